package api

import "github.com/dynamopg/dynamopg/server/attr"

type queryInput struct {
	exprParams
	TableName              *string   `json:"TableName"`
	IndexName              *string   `json:"IndexName"`
	KeyConditionExpression *string   `json:"KeyConditionExpression"`
	FilterExpression       *string   `json:"FilterExpression"`
	ProjectionExpression   *string   `json:"ProjectionExpression"`
	Select                 *string   `json:"Select"`
	Limit                  *int64    `json:"Limit"`
	ExclusiveStartKey      attr.Item `json:"ExclusiveStartKey"`
	ScanIndexForward       *bool     `json:"ScanIndexForward"`
	ConsistentRead         *bool     `json:"ConsistentRead"`
	ReturnConsumedCapacity *string   `json:"ReturnConsumedCapacity"`
	Segment                *int64    `json:"Segment"`       // Scan only
	TotalSegments          *int64    `json:"TotalSegments"` // Scan only
	// The legacy parameters (see legacy.go).
	AttributesToGet     []string                   `json:"AttributesToGet"`
	KeyConditions       map[string]legacyCondition `json:"KeyConditions"` // Query only
	QueryFilter         map[string]legacyCondition `json:"QueryFilter"`   // Query only
	ScanFilter          map[string]legacyCondition `json:"ScanFilter"`    // Scan only
	ConditionalOperator *string                    `json:"ConditionalOperator"`
}

var enumSelect = []string{"SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"}

// maxPageBytes is the service's 1 MB limit on the data a Query or Scan
// reads (before filtering) for one page.
const maxPageBytes = 1 << 20
