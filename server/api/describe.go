package api

import (
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// The account every ARN names: one shared namespace of tables.
const accountID = "000000000000"

type tableDescription struct {
	AttributeDefinitions      []attrDefOut            `json:"AttributeDefinitions"`
	TableName                 string                  `json:"TableName"`
	KeySchema                 []keySchemaOut          `json:"KeySchema"`
	TableStatus               string                  `json:"TableStatus"`
	CreationDateTime          epochTime               `json:"CreationDateTime"`
	ProvisionedThroughput     throughputOut           `json:"ProvisionedThroughput"`
	TableSizeBytes            int64                   `json:"TableSizeBytes"`
	ItemCount                 int64                   `json:"ItemCount"`
	TableArn                  string                  `json:"TableArn"`
	TableId                   string                  `json:"TableId"`
	BillingModeSummary        *billingModeSummary     `json:"BillingModeSummary,omitempty"`
	LocalSecondaryIndexes     []indexDescription      `json:"LocalSecondaryIndexes,omitempty"`
	GlobalSecondaryIndexes    []indexDescription      `json:"GlobalSecondaryIndexes,omitempty"`
	DeletionProtectionEnabled bool                    `json:"DeletionProtectionEnabled"`
	TableClassSummary         *tableClassSummary      `json:"TableClassSummary,omitempty"`
	SSEDescription            *sseDescription         `json:"SSEDescription,omitempty"`
	OnDemandThroughput        *onDemandThroughputOut  `json:"OnDemandThroughput,omitempty"`
	WarmThroughput            *warmThroughputOut      `json:"WarmThroughput,omitempty"`
	StreamSpecification       *streamSpecificationOut `json:"StreamSpecification,omitempty"`
	LatestStreamArn           string                  `json:"LatestStreamArn,omitempty"`
	LatestStreamLabel         string                  `json:"LatestStreamLabel,omitempty"`
}

type attrDefOut struct {
	AttributeName string `json:"AttributeName"`
	AttributeType string `json:"AttributeType"`
}

type keySchemaOut struct {
	AttributeName string `json:"AttributeName"`
	KeyType       string `json:"KeyType"`
}

type throughputOut struct {
	LastIncreaseDateTime   *epochTime `json:"LastIncreaseDateTime,omitempty"`
	LastDecreaseDateTime   *epochTime `json:"LastDecreaseDateTime,omitempty"`
	NumberOfDecreasesToday int64      `json:"NumberOfDecreasesToday"`
	ReadCapacityUnits      int64      `json:"ReadCapacityUnits"`
	WriteCapacityUnits     int64      `json:"WriteCapacityUnits"`
}

type billingModeSummary struct {
	BillingMode                       string     `json:"BillingMode"`
	LastUpdateToPayPerRequestDateTime *epochTime `json:"LastUpdateToPayPerRequestDateTime,omitempty"`
}

type projectionOut struct {
	ProjectionType   string   `json:"ProjectionType"`
	NonKeyAttributes []string `json:"NonKeyAttributes,omitempty"`
}

type indexDescription struct {
	IndexName             string             `json:"IndexName"`
	KeySchema             []keySchemaOut     `json:"KeySchema"`
	Projection            projectionOut      `json:"Projection"`
	IndexStatus           string             `json:"IndexStatus,omitempty"`
	Backfilling           *bool              `json:"Backfilling,omitempty"`
	ProvisionedThroughput *throughputOut     `json:"ProvisionedThroughput,omitempty"`
	OnDemandThroughput    *indexOnDemandOut  `json:"OnDemandThroughput,omitempty"`
	WarmThroughput        *warmThroughputOut `json:"WarmThroughput,omitempty"`
	IndexSizeBytes        int64              `json:"IndexSizeBytes"`
	ItemCount             int64              `json:"ItemCount"`
	IndexArn              string             `json:"IndexArn"`
}

// epochTime encodes as the service does: seconds since the epoch, fractional.
type epochTime time.Time

func (e epochTime) MarshalJSON() ([]byte, error) {
	ms := time.Time(e).UnixMilli()
	return []byte(formatEpoch(ms)), nil
}

func formatEpoch(ms int64) string {
	s := itoa(ms / 1000)
	if frac := ms % 1000; frac != 0 {
		f := itoa(1000 + frac)[1:]
		for len(f) > 0 && f[len(f)-1] == '0' {
			f = f[:len(f)-1]
		}
		s += "." + f
	}
	return s
}

func epochPtr(t time.Time) *epochTime {
	if t.IsZero() {
		return nil
	}
	e := epochTime(t)
	return &e
}

func tableArn(region, name string) string {
	return "arn:aws:dynamodb:" + region + ":" + accountID + ":table/" + name
}

func keySchemaOf(hash store.KeyAttr, rng *store.KeyAttr) []keySchemaOut {
	ks := []keySchemaOut{{AttributeName: hash.Name, KeyType: "HASH"}}
	if rng != nil {
		ks = append(ks, keySchemaOut{AttributeName: rng.Name, KeyType: "RANGE"})
	}
	return ks
}

// indexKeySchemaOf is an index's KeySchema as created: every partition
// attribute, then every sort attribute.
func indexKeySchemaOf(ix *store.Index) []keySchemaOut {
	var ks []keySchemaOut
	for _, k := range ix.HashAttrs() {
		ks = append(ks, keySchemaOut{AttributeName: k.Name, KeyType: "HASH"})
	}
	for _, k := range ix.RangeAttrs() {
		ks = append(ks, keySchemaOut{AttributeName: k.Name, KeyType: "RANGE"})
	}
	return ks
}

func throughputOf(t store.Throughput) throughputOut {
	return throughputOut{
		LastIncreaseDateTime:   epochPtr(t.LastIncrease),
		LastDecreaseDateTime:   epochPtr(t.LastDecrease),
		NumberOfDecreasesToday: t.DecreasesToday,
		ReadCapacityUnits:      t.Read,
		WriteCapacityUnits:     t.Write,
	}
}

// describe renders a table as DescribeTable shows it.
func describe(t *store.Table, region string, items, size int64) *tableDescription {
	arn := tableArn(region, t.Name)
	d := &tableDescription{
		TableName:             t.Name,
		KeySchema:             keySchemaOf(t.Hash, t.Range),
		TableStatus:           t.Status,
		CreationDateTime:      epochTime(t.CreatedAt),
		ProvisionedThroughput: throughputOf(t.Throughput),
		TableSizeBytes:        size,
		ItemCount:             items,
		TableArn:              arn,
		TableId:               t.TableID,
	}
	for _, def := range t.AttributeDefinitions {
		d.AttributeDefinitions = append(d.AttributeDefinitions, attrDefOut{def.Name, def.Type.String()})
	}
	if t.BillingMode == "PAY_PER_REQUEST" {
		d.BillingModeSummary = &billingModeSummary{BillingMode: t.BillingMode, LastUpdateToPayPerRequestDateTime: epochPtr(t.BillingModeSetAt)}
	} else if !t.BillingModeSetAt.IsZero() {
		d.BillingModeSummary = &billingModeSummary{BillingMode: t.BillingMode}
	}
	for _, ix := range t.Indexes {
		id := indexDescription{
			IndexName:  ix.Name,
			KeySchema:  indexKeySchemaOf(&ix),
			Projection: projectionOut{ProjectionType: ix.Projection.Type, NonKeyAttributes: ix.Projection.NonKeyAttributes},
			IndexArn:   arn + "/index/" + ix.Name,
		}
		if ix.Global {
			id.IndexStatus = ix.Status
			if ix.Status == store.StatusCreating {
				b := ix.Backfilling
				id.Backfilling = &b
			}
			tp := throughputOf(ix.Throughput)
			id.ProvisionedThroughput = &tp
			describeIndexThroughput(&id, t, &ix)
			d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, id)
		} else {
			d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, id)
		}
	}
	describeOptions(d, t)
	describeStreamMembers(d, t, region)
	return d
}
