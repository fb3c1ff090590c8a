package api

import (
	"context"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/expr"
)

func (a *API) updateItem(ctx context.Context, r *Request) (any, error) {
	var in updateItemInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	if err := in.check(in.Key != nil, "key"); err != nil {
		return nil, err
	}
	var c constraintErrors
	checkAttributeUpdateMembers(&c, in.AttributeUpdates)
	if err := c.err(); err != nil {
		return nil, err
	}
	if err := in.checkLegacy(in.AttributeUpdates != nil, in.UpdateExpression != nil); err != nil {
		return nil, err
	}
	if err := validateAttributeUpdates(in.AttributeUpdates); err != nil {
		return nil, err
	}
	// upd is the UpdateExpression or the legacy AttributeUpdates, if any.
	var upd interface {
		Apply(attr.Item) (attr.Item, error)
		Paths() []expr.Path
		OnlyRemoves() bool
	}
	if in.AttributeUpdates != nil {
		upd = legacyUpdateOf(in.AttributeUpdates)
	}
	cond, err := in.prepare(in.UpdateExpression != nil, nullUpdateCondition, func(ectx *expr.Context) error {
		if in.UpdateExpression == nil {
			return nil
		}
		u, err := expr.ParseUpdate(*in.UpdateExpression, ectx)
		if err != nil {
			return exprErr(err)
		}
		upd = u
		return nil
	})
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
	var paths []expr.Path
	if upd != nil {
		paths = upd.Paths()
		for _, p := range paths {
			for _, k := range t.KeyNames() {
				if p.Attribute() == k {
					return nil, invalid("Cannot update attribute %s. This attribute is part of the key", k)
				}
			}
		}
	}
	var cur attr.Item
	old, err := a.store.ItemWrite(ctx, t, in.Key, func(old attr.Item) (attr.Item, error) {
		if err := in.guard(cond, old); err != nil {
			return nil, err
		}
		base := old
		if base == nil {
			base = in.Key.Clone()
		}
		next := base
		if upd != nil {
			if next, err = upd.Apply(base); err != nil {
				return nil, exprErr(err)
			}
		}
		if err := checkAttributeNames(next); err != nil {
			return nil, err
		}
		if old == nil && upd != nil && upd.OnlyRemoves() {
			// Removing from an item that does not exist creates nothing:
			// no item, no stream record, no Attributes for ALL_NEW.
			cur = nil
			return nil, nil
		}
		if err := checkIndexKeys(t, next, true); err != nil {
			return nil, err
		}
		if next.Size() > attr.MaxItemSize {
			return nil, ValidationError("Item size to update has exceeded the maximum allowed size")
		}
		cur = next
		return next, nil
	})
	if err != nil {
		return nil, storeErr(err, "update item")
	}
	rv := "NONE"
	if in.ReturnValues != nil {
		rv = *in.ReturnValues
	}
	var ret attr.Item
	switch rv {
	case "ALL_OLD":
		ret = old
	case "ALL_NEW":
		ret = cur
	case "UPDATED_OLD":
		if old != nil {
			ret = expr.ProjectPaths(old, paths)
		}
	case "UPDATED_NEW":
		ret = expr.ProjectPaths(cur, paths)
	}
	metrics := a.writtenCollectionMetrics(ctx, t, in.Key, in.ReturnItemCollectionMetrics)
	return in.result(t, metrics, ret, writeUnits(old.Size(), cur.Size()), indexWriteUnits(t, old, cur)), nil
}
