package api

// deletingDescription is DeleteTable's TableDescription. The service leaves
// out of it what DescribeTable has on the table's shape, CreationDateTime,
// KeySchema, AttributeDefinitions and the index lists (alternator's
// test_delete_table_description and test_delete_table_description_with_si,
// which pass against DynamoDB; dynalite #60 shows the same answer).
type deletingDescription struct {
	TableName                 string                  `json:"TableName"`
	TableStatus               string                  `json:"TableStatus"`
	ProvisionedThroughput     throughputOut           `json:"ProvisionedThroughput"`
	TableSizeBytes            int64                   `json:"TableSizeBytes"`
	ItemCount                 int64                   `json:"ItemCount"`
	TableArn                  string                  `json:"TableArn"`
	TableId                   string                  `json:"TableId"`
	BillingModeSummary        *billingModeSummary     `json:"BillingModeSummary,omitempty"`
	DeletionProtectionEnabled bool                    `json:"DeletionProtectionEnabled"`
	TableClassSummary         *tableClassSummary      `json:"TableClassSummary,omitempty"`
	SSEDescription            *sseDescription         `json:"SSEDescription,omitempty"`
	OnDemandThroughput        *onDemandThroughputOut  `json:"OnDemandThroughput,omitempty"`
	WarmThroughput            *warmThroughputOut      `json:"WarmThroughput,omitempty"`
	StreamSpecification       *streamSpecificationOut `json:"StreamSpecification,omitempty"`
	LatestStreamArn           string                  `json:"LatestStreamArn,omitempty"`
	LatestStreamLabel         string                  `json:"LatestStreamLabel,omitempty"`
}

func deleting(d *tableDescription) *deletingDescription {
	return &deletingDescription{
		TableName:                 d.TableName,
		TableStatus:               d.TableStatus,
		ProvisionedThroughput:     d.ProvisionedThroughput,
		TableSizeBytes:            d.TableSizeBytes,
		ItemCount:                 d.ItemCount,
		TableArn:                  d.TableArn,
		TableId:                   d.TableId,
		BillingModeSummary:        d.BillingModeSummary,
		DeletionProtectionEnabled: d.DeletionProtectionEnabled,
		TableClassSummary:         d.TableClassSummary,
		SSEDescription:            d.SSEDescription,
		OnDemandThroughput:        d.OnDemandThroughput,
		WarmThroughput:            d.WarmThroughput,
		StreamSpecification:       d.StreamSpecification,
		LatestStreamArn:           d.LatestStreamArn,
		LatestStreamLabel:         d.LatestStreamLabel,
	}
}
