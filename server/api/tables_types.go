package api

// Wire shapes of the control-plane requests. Pointers mark optional members
// so that "absent" and "zero" stay distinct, as the service's validation needs.

type attributeDefinition struct {
	AttributeName *string `json:"AttributeName"`
	AttributeType *string `json:"AttributeType"`
}

type keySchemaElement struct {
	AttributeName *string `json:"AttributeName"`
	KeyType       *string `json:"KeyType"`
}

type provisionedThroughput struct {
	ReadCapacityUnits  *int64 `json:"ReadCapacityUnits"`
	WriteCapacityUnits *int64 `json:"WriteCapacityUnits"`
}

type projection struct {
	ProjectionType   *string  `json:"ProjectionType"`
	NonKeyAttributes []string `json:"NonKeyAttributes"`
}

// secondaryIndex is an index of CreateTable or an UpdateTable Create; the
// throughput members apply to global indexes only.
type secondaryIndex struct {
	IndexName             *string                `json:"IndexName"`
	KeySchema             []keySchemaElement     `json:"KeySchema"`
	Projection            *projection            `json:"Projection"`
	ProvisionedThroughput *provisionedThroughput `json:"ProvisionedThroughput"`
	OnDemandThroughput    *onDemandThroughput    `json:"OnDemandThroughput"`
	WarmThroughput        *warmThroughput        `json:"WarmThroughput"`
}

type createTableInput struct {
	TableName              *string                `json:"TableName"`
	AttributeDefinitions   []attributeDefinition  `json:"AttributeDefinitions"`
	KeySchema              []keySchemaElement     `json:"KeySchema"`
	LocalSecondaryIndexes  []secondaryIndex       `json:"LocalSecondaryIndexes"`
	GlobalSecondaryIndexes []secondaryIndex       `json:"GlobalSecondaryIndexes"`
	BillingMode            *string                `json:"BillingMode"`
	ProvisionedThroughput  *provisionedThroughput `json:"ProvisionedThroughput"`
	tableOptionsInput
	Tags                []tagInput                `json:"Tags"`
	StreamSpecification *streamSpecificationInput `json:"StreamSpecification"`
}

type tableNameInput struct {
	TableName *string `json:"TableName"`
}

type listTablesInput struct {
	ExclusiveStartTableName *string `json:"ExclusiveStartTableName"`
	Limit                   *int64  `json:"Limit"`
}

type updateTableInput struct {
	TableName                   *string                `json:"TableName"`
	AttributeDefinitions        []attributeDefinition  `json:"AttributeDefinitions"`
	BillingMode                 *string                `json:"BillingMode"`
	ProvisionedThroughput       *provisionedThroughput `json:"ProvisionedThroughput"`
	GlobalSecondaryIndexUpdates []gsiUpdate            `json:"GlobalSecondaryIndexUpdates"`
	tableOptionsInput
	StreamSpecification *streamSpecificationInput `json:"StreamSpecification"`
}

// gsiUpdate is one member of GlobalSecondaryIndexUpdates: exactly one of
// Create, Delete and Update.
type gsiUpdate struct {
	Create *secondaryIndex `json:"Create"`
	Delete *struct {
		IndexName *string `json:"IndexName"`
	} `json:"Delete"`
	Update *gsiUpdateAction `json:"Update"`
}

// gsiUpdateAction is an Update of GlobalSecondaryIndexUpdates: any of the
// throughput members, as the table's billing mode allows.
type gsiUpdateAction struct {
	IndexName             *string                `json:"IndexName"`
	ProvisionedThroughput *provisionedThroughput `json:"ProvisionedThroughput"`
	OnDemandThroughput    *onDemandThroughput    `json:"OnDemandThroughput"`
	WarmThroughput        *warmThroughput        `json:"WarmThroughput"`
}
