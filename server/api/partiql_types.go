package api

import "github.com/dynamopg/dynamopg/server/attr"

// maxStatementBytes is the service's limit on one PartiQL statement.
const maxStatementBytes = 8192

// maxBatchStatements is BatchExecuteStatement's limit.
const maxBatchStatements = 25

type executeStatementInput struct {
	Statement                           *string      `json:"Statement"`
	Parameters                          []attr.Value `json:"Parameters"`
	ConsistentRead                      *bool        `json:"ConsistentRead"`
	NextToken                           *string      `json:"NextToken"`
	ReturnConsumedCapacity              *string      `json:"ReturnConsumedCapacity"`
	Limit                               *int64       `json:"Limit"`
	ReturnValuesOnConditionCheckFailure *string      `json:"ReturnValuesOnConditionCheckFailure"`
}

type batchStatementRequest struct {
	Statement                           *string      `json:"Statement"`
	Parameters                          []attr.Value `json:"Parameters"`
	ConsistentRead                      *bool        `json:"ConsistentRead"`
	ReturnValuesOnConditionCheckFailure *string      `json:"ReturnValuesOnConditionCheckFailure"`
}

type batchExecuteStatementInput struct {
	Statements             []batchStatementRequest `json:"Statements"`
	ReturnConsumedCapacity *string                 `json:"ReturnConsumedCapacity"`
}

type parameterizedStatement struct {
	Statement                           *string      `json:"Statement"`
	Parameters                          []attr.Value `json:"Parameters"`
	ReturnValuesOnConditionCheckFailure *string      `json:"ReturnValuesOnConditionCheckFailure"`
}

type executeTransactionInput struct {
	TransactStatements     []parameterizedStatement `json:"TransactStatements"`
	ClientRequestToken     *string                  `json:"ClientRequestToken"`
	ReturnConsumedCapacity *string                  `json:"ReturnConsumedCapacity"`
}
