package api

import (
	"errors"
	"sort"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/expr"
)

// valueUse describes the expressions of an operation that take
// ExpressionAttributeValues: whether one is in the request, and the text
// naming them when none is ("ConditionExpression is null"); "" when the
// operation has no ExpressionAttributeValues member, whose values the
// service then ignores (GetItem, BatchGetItem, TransactGetItems).
type valueUse struct {
	present bool
	null    string
}

// The texts of DynamoDB Local's InputConverter (EXPR_ATTR_VALUES_WITHOUT_
// EXPRESSIONS), which dynalite's measured tests (test/scan.js, query.js,
// deleteItem.js) and users' reports of the service quote.
const (
	nullCondition       = "ConditionExpression is null"
	nullUpdateCondition = "UpdateExpression and ConditionExpression are null"
	nullFilter          = "FilterExpression is null"
	nullFilterKey       = "FilterExpression and KeyConditionExpression are null"
)

// exprContext validates the placeholder maps and builds the context that
// the request's expressions share. usesExpr says whether the request has any
// expression (names may serve any); values says which take values.
func exprContext(p exprParams, usesExpr bool, values valueUse) (*expr.Context, error) {
	if values.null == "" {
		p.ExpressionAttributeValues = nil
	}
	if p.ExpressionAttributeNames != nil {
		if !usesExpr {
			return nil, ValidationError("ExpressionAttributeNames can only be specified when using expressions")
		}
		if len(p.ExpressionAttributeNames) == 0 {
			return nil, ValidationError("ExpressionAttributeNames must not be empty")
		}
	}
	var vals map[string]attr.Value
	if p.ExpressionAttributeValues != nil {
		if !values.present {
			return nil, ValidationError("ExpressionAttributeValues can only be specified when using expressions: %s", values.null)
		}
		if len(p.ExpressionAttributeValues) == 0 {
			return nil, ValidationError("ExpressionAttributeValues must not be empty")
		}
		keys := make([]string, 0, len(p.ExpressionAttributeValues))
		for k := range p.ExpressionAttributeValues {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		vals = make(map[string]attr.Value, len(keys))
		for _, k := range keys {
			// A RawMessage holds well-formed JSON (the request was), so
			// json.Unmarshal would only hand it to UnmarshalJSON.
			var v attr.Value
			if err := v.UnmarshalJSON(p.ExpressionAttributeValues[k]); err != nil {
				var ae *attr.Error
				if errors.As(err, &ae) && ae.Serialization {
					return nil, SerializationError(ae.Msg)
				}
				return nil, ValidationError("ExpressionAttributeValues contains invalid value: %s for key %s", err.Error(), k)
			}
			vals[k] = v
		}
	}
	ctx, err := expr.NewContext(p.ExpressionAttributeNames, vals)
	if err != nil {
		return nil, exprErr(err)
	}
	return ctx, nil
}

// exprErr turns an expression error into the service's ValidationException.
func exprErr(err error) error {
	var ee *expr.Error
	if errors.As(err, &ee) {
		return ValidationError("%s", ee.Msg)
	}
	var ae *attr.Error
	if errors.As(err, &ae) {
		return ValidationError("%s", ae.Msg)
	}
	var apiErr *Error
	if errors.As(err, &apiErr) {
		return apiErr
	}
	return err
}
