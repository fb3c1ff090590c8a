package api

import (
	"context"
	"slices"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/expr"
	"github.com/dynamopg/dynamopg/server/store"
)

func (a *API) query(ctx context.Context, r *Request) (any, error) {
	var in queryInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraintErrors
	in.checkMembers(&c, true)
	checkConditionMembers(&c, in.KeyConditions, "keyConditions", true)
	checkConditionMembers(&c, in.QueryFilter, "queryFilter", true)
	if err := c.err(); err != nil {
		return nil, err
	}
	if err := in.checkLegacy(true); err != nil {
		return nil, err
	}
	if err := checkSelect(in.Select, in.ProjectionExpression != nil || in.AttributesToGet != nil, in.IndexName, true, in.projectionParam()); err != nil {
		return nil, err
	}
	if in.KeyConditionExpression == nil && in.KeyConditions == nil {
		return nil, ValidationError("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
	}
	var conds []keyCond
	usesExpr := in.KeyConditionExpression != nil || in.FilterExpression != nil || in.ProjectionExpression != nil
	values := valueUse{present: in.KeyConditionExpression != nil || in.FilterExpression != nil, null: nullFilterKey}
	filter, proj, err := in.parseExprs(usesExpr, values, func(ectx *expr.Context) error {
		if in.KeyConditionExpression == nil {
			return nil
		}
		var err error
		conds, err = parseKeyCondition(*in.KeyConditionExpression, ectx)
		return err
	})
	if err != nil {
		return nil, err
	}
	legacyKeys := in.KeyConditions != nil
	if legacyKeys {
		if err := in.checkKeyConditions(); err != nil {
			return nil, err
		}
		conds = keyConditionsOf(in.KeyConditions)
	}
	var hash attr.Value
	var eq []attr.Value
	var rng *store.RangeCond
	plan, err := a.plan(ctx, &in, filter, proj, func(t *store.Table, ix *store.Index) error {
		var err error
		if ix != nil && ix.MultiKey() {
			if hash, eq, rng, err = matchMultiKeyConditions(conds, ix); err != nil {
				return err
			}
			if legacyKeys {
				return checkFilterKeys(in.QueryFilter, keyNamesOf(t, ix))
			}
			return checkFilterExprKeys(filter, keyNamesOf(t, ix))
		}
		hashKey, rangeKey := t.Hash, t.Range
		if ix != nil {
			hashKey, rangeKey = ix.Hash, ix.Range
		}
		if legacyKeys {
			if err := checkKeyConditionCount(conds, ix); err != nil {
				return err
			}
			if hash, rng, err = matchLegacyKeyConditions(conds, hashKey, rangeKey); err != nil {
				return err
			}
			return checkFilterKeys(in.QueryFilter, keyNamesOf(t, ix))
		}
		if hash, rng, err = matchKeyConditions(conds, hashKey, rangeKey); err != nil {
			return err
		}
		return checkFilterExprKeys(filter, keyNamesOf(t, ix))
	})
	if err != nil {
		return nil, err
	}
	forward := in.ScanIndexForward == nil || *in.ScanIndexForward
	t, ix := plan.table, plan.index
	plan.fetch = func(ctx context.Context, after attr.Item, n int) ([][]byte, error) {
		return a.store.ItemQueryJSON(ctx, t, store.QueryInput{Index: ix, Hash: hash, Eq: eq, Range: rng, Forward: forward, After: after, Limit: n})
	}
	return a.run(ctx, plan)
}

// checkFilterExprKeys refuses a FilterExpression that reads a key attribute
// of the table or index being queried: the key condition is where those
// go. The first such attribute in the expression is named.
func checkFilterExprKeys(filter *expr.Condition, keys []string) error {
	if filter == nil {
		return nil
	}
	for _, n := range filter.Attributes() {
		if slices.Contains(keys, n) {
			return ValidationError("Filter Expression can only contain non-primary key attributes: Primary key attribute: %s", n)
		}
	}
	return nil
}

func checkLimit(c *constraintErrors, limit *int64) {
	if limit != nil && *limit < 1 {
		c.add(strp(itoa(*limit)), "limit", "Member must have value greater than or equal to 1")
	}
}

// parseReadExprs parses the optional filter and projection of a read.
func parseReadExprs(filter, projection *string, ectx *expr.Context) (*expr.Condition, *expr.Projection, error) {
	var f *expr.Condition
	var p *expr.Projection
	var err error
	if filter != nil {
		if f, err = expr.ParseCondition("FilterExpression", *filter, ectx); err != nil {
			return nil, nil, exprErr(err)
		}
	}
	if projection != nil {
		if p, err = expr.ParseProjection(*projection, ectx); err != nil {
			return nil, nil, exprErr(err)
		}
	}
	return f, p, nil
}

// keyCond is one condition of a KeyConditionExpression.
type keyCond struct {
	name   string
	op     store.RangeOp
	values []attr.Value
}

// matchKeyConditions maps the parsed conditions onto the key schema being
// queried, with the service's refusals.
func matchKeyConditions(conds []keyCond, hashKey store.KeyAttr, rangeKey *store.KeyAttr) (attr.Value, *store.RangeCond, error) {
	var hash *keyCond
	var rng *keyCond
	for i := range conds {
		kc := &conds[i]
		switch {
		case kc.name == hashKey.Name:
			if kc.op != store.RangeEQ {
				return attr.Value{}, nil, ValidationError("Query key condition not supported")
			}
			hash = kc
		case rangeKey != nil && kc.name == rangeKey.Name:
			rng = kc
		default:
			return attr.Value{}, nil, ValidationError("Query condition missed key schema element: %s", hashKey.Name)
		}
	}
	if hash == nil {
		return attr.Value{}, nil, ValidationError("Query condition missed key schema element: %s", hashKey.Name)
	}
	if hash.values[0].T != hashKey.Type {
		return attr.Value{}, nil, invalid("Condition parameter type does not match schema type")
	}
	if rng == nil {
		return hash.values[0], nil, nil
	}
	for _, v := range rng.values {
		if v.T != rangeKey.Type {
			return attr.Value{}, nil, invalid("Condition parameter type does not match schema type")
		}
	}
	if rng.op == store.RangeBeginsWith && rangeKey.Type == attr.TypeN {
		return attr.Value{}, nil, invalid("Query key condition not supported")
	}
	if rng.op == store.RangeBetween {
		if c, _ := attr.Compare(rng.values[0], rng.values[1]); c > 0 {
			return attr.Value{}, nil, ValidationError("Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {%s}, upper bound operand: AttributeValue: {%s}", renderScalar(rng.values[0]), renderScalar(rng.values[1]))
		}
	}
	return hash.values[0], &store.RangeCond{Op: rng.op, Values: rng.values}, nil
}

func renderScalar(v attr.Value) string {
	switch v.T {
	case attr.TypeB:
		return "B:" + string(v.AppendJSON(nil))
	default:
		return v.T.String() + ":" + v.S
	}
}

// parseKeyCondition parses a KeyConditionExpression into key conditions.
func parseKeyCondition(s string, ectx *expr.Context) ([]keyCond, error) {
	kc, err := expr.ParseKeyCondition(s, ectx)
	if err != nil {
		return nil, exprErr(err)
	}
	out := make([]keyCond, len(kc.Conds))
	for i, c := range kc.Conds {
		out[i] = keyCond{name: c.Name, op: store.RangeOp(c.Op), values: c.Values}
	}
	return out, nil
}
