package api

import "github.com/dynamopg/dynamopg/server/attr"

// Transaction limits of the service.
const (
	maxTransactItems = 100
	// maxTransactBytes is the service's limit on a transaction's items.
	maxTransactBytes = 4 << 20
)

type txCommon struct {
	exprParams
	TableName                           *string   `json:"TableName"`
	ConditionExpression                 *string   `json:"ConditionExpression"`
	ReturnValuesOnConditionCheckFailure *string   `json:"ReturnValuesOnConditionCheckFailure"`
	Key                                 attr.Item `json:"Key"`
}

type txPut struct {
	txCommon
	Item attr.Item `json:"Item"`
}

type txUpdate struct {
	txCommon
	UpdateExpression *string `json:"UpdateExpression"`
}

type transactWriteItem struct {
	ConditionCheck *txCommon `json:"ConditionCheck"`
	Put            *txPut    `json:"Put"`
	Delete         *txCommon `json:"Delete"`
	Update         *txUpdate `json:"Update"`
}

type transactWriteInput struct {
	TransactItems               []transactWriteItem `json:"TransactItems"`
	ClientRequestToken          *string             `json:"ClientRequestToken"`
	ReturnConsumedCapacity      *string             `json:"ReturnConsumedCapacity"`
	ReturnItemCollectionMetrics *string             `json:"ReturnItemCollectionMetrics"`
}

type txGet struct {
	exprParams
	TableName            *string   `json:"TableName"`
	Key                  attr.Item `json:"Key"`
	ProjectionExpression *string   `json:"ProjectionExpression"`
}

type transactGetItem struct {
	Get *txGet `json:"Get"`
}

type transactGetInput struct {
	TransactItems          []transactGetItem `json:"TransactItems"`
	ReturnConsumedCapacity *string           `json:"ReturnConsumedCapacity"`
}
