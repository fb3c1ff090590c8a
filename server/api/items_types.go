package api

import (
	"encoding/json"

	"github.com/dynamopg/dynamopg/server/attr"
)

// exprParams are the expression members shared by item operations.
type exprParams struct {
	ExpressionAttributeNames  map[string]string          `json:"ExpressionAttributeNames"`
	ExpressionAttributeValues map[string]json.RawMessage `json:"ExpressionAttributeValues"`
}

// writeOptions are the members PutItem, DeleteItem and UpdateItem share.
type writeOptions struct {
	exprParams
	TableName                           *string `json:"TableName"`
	ConditionExpression                 *string `json:"ConditionExpression"`
	ReturnValues                        *string `json:"ReturnValues"`
	ReturnConsumedCapacity              *string `json:"ReturnConsumedCapacity"`
	ReturnItemCollectionMetrics         *string `json:"ReturnItemCollectionMetrics"`
	ReturnValuesOnConditionCheckFailure *string `json:"ReturnValuesOnConditionCheckFailure"`
	// The legacy conditions (see legacy.go).
	Expected            map[string]legacyCondition `json:"Expected"`
	ConditionalOperator *string                    `json:"ConditionalOperator"`
}

type putItemInput struct {
	writeOptions
	Item attr.Item `json:"Item"`
}

type getItemInput struct {
	exprParams
	TableName              *string   `json:"TableName"`
	Key                    attr.Item `json:"Key"`
	ProjectionExpression   *string   `json:"ProjectionExpression"`
	ConsistentRead         *bool     `json:"ConsistentRead"`
	ReturnConsumedCapacity *string   `json:"ReturnConsumedCapacity"`
	AttributesToGet        []string  `json:"AttributesToGet"`
}

type deleteItemInput struct {
	writeOptions
	Key attr.Item `json:"Key"`
}

type updateItemInput struct {
	writeOptions
	Key              attr.Item `json:"Key"`
	UpdateExpression *string   `json:"UpdateExpression"`
	// AttributeUpdates is the legacy form of the update (see legacy.go).
	AttributeUpdates map[string]attributeValueUpdate `json:"AttributeUpdates"`
}

// The enum sets as the service lists them in its constraint messages.
var (
	enumReturnValues     = []string{"ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"}
	enumReturnCapacity   = []string{"INDEXES", "TOTAL", "NONE"}
	enumReturnMetrics    = []string{"SIZE", "NONE"}
	enumReturnOnConditon = []string{"ALL_OLD", "NONE"}
)
