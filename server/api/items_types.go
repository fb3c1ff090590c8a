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

type putItemInput struct {
	exprParams
	TableName                           *string   `json:"TableName"`
	Item                                attr.Item `json:"Item"`
	ConditionExpression                 *string   `json:"ConditionExpression"`
	ReturnValues                        *string   `json:"ReturnValues"`
	ReturnConsumedCapacity              *string   `json:"ReturnConsumedCapacity"`
	ReturnItemCollectionMetrics         *string   `json:"ReturnItemCollectionMetrics"`
	ReturnValuesOnConditionCheckFailure *string   `json:"ReturnValuesOnConditionCheckFailure"`
}

type getItemInput struct {
	exprParams
	TableName              *string   `json:"TableName"`
	Key                    attr.Item `json:"Key"`
	ProjectionExpression   *string   `json:"ProjectionExpression"`
	ConsistentRead         *bool     `json:"ConsistentRead"`
	ReturnConsumedCapacity *string   `json:"ReturnConsumedCapacity"`
}

type deleteItemInput struct {
	exprParams
	TableName                           *string   `json:"TableName"`
	Key                                 attr.Item `json:"Key"`
	ConditionExpression                 *string   `json:"ConditionExpression"`
	ReturnValues                        *string   `json:"ReturnValues"`
	ReturnConsumedCapacity              *string   `json:"ReturnConsumedCapacity"`
	ReturnItemCollectionMetrics         *string   `json:"ReturnItemCollectionMetrics"`
	ReturnValuesOnConditionCheckFailure *string   `json:"ReturnValuesOnConditionCheckFailure"`
}

type updateItemInput struct {
	exprParams
	TableName                           *string   `json:"TableName"`
	Key                                 attr.Item `json:"Key"`
	UpdateExpression                    *string   `json:"UpdateExpression"`
	ConditionExpression                 *string   `json:"ConditionExpression"`
	ReturnValues                        *string   `json:"ReturnValues"`
	ReturnConsumedCapacity              *string   `json:"ReturnConsumedCapacity"`
	ReturnItemCollectionMetrics         *string   `json:"ReturnItemCollectionMetrics"`
	ReturnValuesOnConditionCheckFailure *string   `json:"ReturnValuesOnConditionCheckFailure"`
}

// The enum sets as the service lists them in its constraint messages.
var (
	enumReturnValues     = []string{"ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"}
	enumReturnCapacity   = []string{"INDEXES", "TOTAL", "NONE"}
	enumReturnMetrics    = []string{"SIZE", "NONE"}
	enumReturnOnConditon = []string{"ALL_OLD", "NONE"}
)
