package api

import (
	"context"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/expr"
	"github.com/dynamopg/dynamopg/server/store"
)

// conditionFailed is the ConditionalCheckFailedException for a write whose
// condition was false, carrying the old item when the client asked for it.
func conditionFailed(old attr.Item, returnOld *string) error {
	e := ConditionalCheckFailedError()
	if is(returnOld, "ALL_OLD") && old != nil {
		e.Extra = map[string]any{"Item": old}
	}
	return e
}

// parseCondition parses an optional ConditionExpression.
func parseCondition(s *string, ctx *expr.Context) (*expr.Condition, error) {
	if s == nil {
		return nil, nil
	}
	c, err := expr.ParseCondition("ConditionExpression", *s, ctx)
	if err != nil {
		return nil, exprErr(err)
	}
	return c, nil
}

// holds evaluates an optional condition against an item (nil when absent).
func holds(c *expr.Condition, it attr.Item) (bool, error) {
	if c == nil {
		return true, nil
	}
	ok, err := c.Eval(it)
	if err != nil {
		return false, exprErr(err)
	}
	return ok, nil
}

func (a *API) putItem(ctx context.Context, r *Request) (any, error) {
	var in putItemInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	if err := in.check(in.Item != nil, "item"); err != nil {
		return nil, err
	}
	if err := checkAttributeNames(in.Item); err != nil {
		return nil, err
	}
	if err := in.checkLegacy(false, false); err != nil {
		return nil, err
	}
	if in.ReturnValues != nil && !oneOf(*in.ReturnValues, "NONE", "ALL_OLD") {
		return nil, ValidationError("ReturnValues can only be ALL_OLD or NONE")
	}
	cond, err := in.prepare(false, nullCondition, nil)
	if err != nil {
		return nil, err
	}
	t, err := a.tableFor(ctx, *in.TableName)
	if err != nil {
		return nil, err
	}
	if err := checkItemKey(t, in.Item); err != nil {
		return nil, err
	}
	if err := checkIndexKeys(t, in.Item, false); err != nil {
		return nil, err
	}
	if in.Item.Size() > attr.MaxItemSize {
		return nil, ValidationError("Item size has exceeded the maximum allowed size")
	}
	key := t.KeyOf(in.Item)
	write := a.store.ItemWrite
	if cond == nil {
		// Nothing to check against the old item: one round trip.
		write = func(ctx context.Context, t *store.Table, _ attr.Item, _ store.WriteFunc) (attr.Item, error) {
			if !is(in.ReturnValues, "ALL_OLD") && consumed(in.ReturnConsumedCapacity, t, 0, nil) == nil {
				// The old item would only size the consumed capacity.
				ctx = store.WithOldUnneeded(ctx)
			}
			return a.store.ItemPut(ctx, t, in.Item)
		}
	}
	old, err := write(ctx, t, key, func(old attr.Item) (attr.Item, error) {
		if err := in.guard(cond, old); err != nil {
			return nil, err
		}
		return in.Item, nil
	})
	if err != nil {
		return nil, storeErr(err, "put item")
	}
	metrics := a.writtenCollectionMetrics(ctx, t, key, in.ReturnItemCollectionMetrics)
	return in.result(t, metrics, allOld(in.ReturnValues, old), writeUnits(old.Size(), in.Item.Size()), indexWriteUnits(t, old, in.Item)), nil
}

func (a *API) getItem(ctx context.Context, r *Request) (any, error) {
	var in getItemInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraintErrors
	checkTableRef(&c, in.TableName, "tableName")
	checkEnum(&c, in.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnCapacity)
	c.notNull(in.Key != nil, "key")
	checkAttributesToGet(&c, in.AttributesToGet, "attributesToGet")
	if err := c.err(); err != nil {
		return nil, err
	}
	if err := checkMixing([]param{{"AttributesToGet", in.AttributesToGet != nil}}, []param{{"ProjectionExpression", in.ProjectionExpression != nil}}); err != nil {
		return nil, err
	}
	if err := checkDuplicateNames(in.AttributesToGet); err != nil {
		return nil, err
	}
	ectx, err := exprContext(in.exprParams, in.ProjectionExpression != nil, valueUse{})
	if err != nil {
		return nil, err
	}
	var proj *expr.Projection
	if in.AttributesToGet != nil {
		proj = expr.ProjectionOf(in.AttributesToGet)
	}
	if in.ProjectionExpression != nil {
		if proj, err = expr.ParseProjection(*in.ProjectionExpression, ectx); err != nil {
			return nil, exprErr(err)
		}
	}
	if err := ectx.CheckUnused(); err != nil {
		return nil, exprErr(err)
	}
	t, err := a.tableFor(ctx, *in.TableName)
	if err != nil {
		return nil, err
	}
	if err := checkKey(t, in.Key); err != nil {
		return nil, err
	}
	if proj == nil && !wantsCapacity(in.ReturnConsumedCapacity) {
		// The item as stored is the response's: no decoding, no encoding.
		raw, err := a.store.ItemGetJSON(ctx, t, in.Key)
		if err != nil {
			return nil, storeErr(err, "get item")
		}
		out := map[string]any{}
		if raw != nil {
			out["Item"] = attr.ItemJSON(raw)
		}
		return out, nil
	}
	it, err := a.store.ItemGet(ctx, t, in.Key)
	if err != nil {
		return nil, storeErr(err, "get item")
	}
	out := map[string]any{}
	if it != nil {
		if proj != nil {
			out["Item"] = proj.Apply(it)
		} else {
			out["Item"] = it
		}
	}
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	if cc := consumed(in.ReturnConsumedCapacity, t, readUnits(it.Size(), consistent), nil); cc != nil {
		out["ConsumedCapacity"] = cc
	}
	return out, nil
}

func (a *API) deleteItem(ctx context.Context, r *Request) (any, error) {
	var in deleteItemInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	if err := in.check(in.Key != nil, "key"); err != nil {
		return nil, err
	}
	if err := in.checkLegacy(false, false); err != nil {
		return nil, err
	}
	if in.ReturnValues != nil && !oneOf(*in.ReturnValues, "NONE", "ALL_OLD") {
		return nil, ValidationError("ReturnValues can only be ALL_OLD or NONE")
	}
	cond, err := in.prepare(false, nullCondition, nil)
	if err != nil {
		return nil, err
	}
	t, err := a.tableFor(ctx, *in.TableName)
	if err != nil {
		return nil, err
	}
	if err := checkKey(t, in.Key); err != nil {
		return nil, err
	}
	write := a.store.ItemWrite
	if cond == nil {
		// Nothing to check against the old item: one round trip.
		write = func(ctx context.Context, t *store.Table, key attr.Item, _ store.WriteFunc) (attr.Item, error) {
			return a.store.ItemRemove(ctx, t, key)
		}
	}
	old, err := write(ctx, t, in.Key, func(old attr.Item) (attr.Item, error) {
		if err := in.guard(cond, old); err != nil {
			return nil, err
		}
		return nil, nil
	})
	if err != nil {
		return nil, storeErr(err, "delete item")
	}
	metrics := a.writtenCollectionMetrics(ctx, t, in.Key, in.ReturnItemCollectionMetrics)
	return in.result(t, metrics, allOld(in.ReturnValues, old), writeUnits(old.Size(), 0), indexWriteUnits(t, old, nil)), nil
}

// allOld is the item a PutItem or DeleteItem returns: the old one for
// ReturnValues=ALL_OLD, none otherwise.
func allOld(rv *string, old attr.Item) attr.Item {
	if is(rv, "ALL_OLD") {
		return old
	}
	return nil
}
