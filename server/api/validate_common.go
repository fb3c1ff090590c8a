package api

import (
	"strings"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/expr"
	"github.com/dynamopg/dynamopg/server/store"
)

// checkEnum records an enum constraint failure for an optional member.
func checkEnum(c *constraintErrors, v *string, path string, set []string) {
	if v != nil && !oneOf(*v, set...) {
		c.add(v, path, "Member must satisfy enum value set: ["+strings.Join(set, ", ")+"]")
	}
}

// check validates the shared members of a single-item write, the item or
// key member (present, named for the message) included, in the service's
// order. Measured (registry/splits.json of nubo-db/dynamodb-conformance,
// old-cohort regions): UpdateItem lists returnConsumedCapacity before
// returnValues, PutItem lists returnValues before tableName.
func (w *writeOptions) check(present bool, member string) error {
	var c constraintErrors
	checkEnum(&c, w.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnCapacity)
	checkEnum(&c, w.ReturnValues, "returnValues", enumReturnValues)
	checkTableRef(&c, w.TableName, "tableName")
	checkEnum(&c, w.ReturnItemCollectionMetrics, "returnItemCollectionMetrics", enumReturnMetrics)
	checkEnum(&c, w.ReturnValuesOnConditionCheckFailure, "returnValuesOnConditionCheckFailure", enumReturnOnConditon)
	c.notNull(present, member)
	checkEnum(&c, w.ConditionalOperator, "conditionalOperator", enumConditionalOperator)
	checkConditionMembers(&c, w.Expected, "expected", false)
	if err := c.err(); err != nil {
		return err
	}
	return nil // not c.err(): a nil *Error is a non-nil error
}

// prepare builds the expression context and parses the ConditionExpression
// (and, for UpdateItem, the UpdateExpression through parseMore), then checks
// that every placeholder was used. A legacy Expected is validated first and
// becomes the condition (checkLegacy has refused it beside expressions).
// valuesNull names the operation's expressions that take values.
func (w *writeOptions) prepare(usesMore bool, valuesNull string, parseMore func(*expr.Context) error) (*expr.Condition, error) {
	if err := validateExpected(w.Expected); err != nil {
		return nil, err
	}
	uses := w.ConditionExpression != nil || usesMore
	ectx, err := exprContext(w.exprParams, uses, valueUse{present: uses, null: valuesNull})
	if err != nil {
		return nil, err
	}
	if parseMore != nil {
		if err := parseMore(ectx); err != nil {
			return nil, err
		}
	}
	cond, err := parseCondition(w.ConditionExpression, ectx)
	if err != nil {
		return nil, err
	}
	if err := ectx.CheckUnused(); err != nil {
		return nil, exprErr(err)
	}
	if w.Expected != nil {
		cond = legacyConditionOf(w.Expected, w.ConditionalOperator)
	}
	return cond, nil
}

func is(p *string, v string) bool { return p != nil && *p == v }

// guard evaluates the write's condition against the current item (nil when
// absent): a false condition is ConditionalCheckFailedException, carrying
// the old item when ReturnValuesOnConditionCheckFailure=ALL_OLD.
func (w *writeOptions) guard(cond *expr.Condition, old attr.Item) error {
	ok, err := holds(cond, old)
	if err != nil {
		return err
	}
	if !ok {
		return conditionFailed(old, w.ReturnValuesOnConditionCheckFailure)
	}
	return nil
}

// result renders a single-item write's response: the returned attributes
// (when any), consumed capacity and the item collection metrics
// (collectionMetrics; nil: none).
func (w *writeOptions) result(t *store.Table, metrics map[string]any, ret attr.Item, units float64, indexUnits map[string]float64) map[string]any {
	out := map[string]any{}
	if len(ret) > 0 {
		out["Attributes"] = ret
	}
	if cc := consumed(w.ReturnConsumedCapacity, t, units, indexUnits); cc != nil {
		out["ConsumedCapacity"] = cc
	}
	if metrics != nil {
		out["ItemCollectionMetrics"] = metrics
	}
	return out
}
