package api

import (
	"encoding/json"
	"errors"
	"sort"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/expr"
)

// exprContext validates the placeholder maps and builds the context that
// the request's expressions share. usesExpr says whether the request has any
// expression that may use them.
func exprContext(p exprParams, usesExpr bool) (*expr.Context, error) {
	if p.ExpressionAttributeNames != nil {
		if !usesExpr {
			return nil, ValidationError("ExpressionAttributeNames can only be specified when using expressions")
		}
		if len(p.ExpressionAttributeNames) == 0 {
			return nil, ValidationError("ExpressionAttributeNames must not be empty")
		}
	}
	var values map[string]attr.Value
	if p.ExpressionAttributeValues != nil {
		if !usesExpr {
			return nil, ValidationError("ExpressionAttributeValues can only be specified when using expressions")
		}
		if len(p.ExpressionAttributeValues) == 0 {
			return nil, ValidationError("ExpressionAttributeValues must not be empty")
		}
		keys := make([]string, 0, len(p.ExpressionAttributeValues))
		for k := range p.ExpressionAttributeValues {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		values = make(map[string]attr.Value, len(keys))
		for _, k := range keys {
			var v attr.Value
			if err := json.Unmarshal(p.ExpressionAttributeValues[k], &v); err != nil {
				var ae *attr.Error
				if errors.As(err, &ae) && ae.Serialization {
					return nil, SerializationError(ae.Msg)
				}
				return nil, ValidationError("ExpressionAttributeValues contains invalid value: %s for key %s", err.Error(), k)
			}
			values[k] = v
		}
	}
	ctx, err := expr.NewContext(p.ExpressionAttributeNames, values)
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
