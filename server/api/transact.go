package api

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/expr"
	"github.com/dynamopg/dynamopg/server/store"
)

// txAction is one validated member of TransactWriteItems.
type txAction struct {
	kind      string // ConditionCheck, Put, Delete, Update
	table     *store.Table
	key       attr.Item
	put       attr.Item
	cond      *expr.Condition
	update    *expr.Update
	returnOld *string
}

// cancellation is a TransactionCanceledException with one reason per member.
func cancellation(reasons []map[string]any) *Error {
	codes := make([]string, len(reasons))
	for i, r := range reasons {
		codes[i] = r["Code"].(string)
	}
	e := newErr(nsDynamo, "TransactionCanceledException", 400,
		"Transaction cancelled, please refer cancellation reasons for specific reasons ["+strings.Join(codes, ", ")+"]")
	e.Extra = map[string]any{"CancellationReasons": reasons}
	return e
}

func (a *API) transactWriteItems(ctx context.Context, r *Request) (any, error) {
	var in transactWriteInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraintErrors
	c.notNull(in.TransactItems != nil, "transactItems")
	if in.TransactItems != nil && len(in.TransactItems) < 1 {
		c.add(strp("[]"), "transactItems", "Member must have length greater than or equal to 1")
	}
	if len(in.TransactItems) > maxTransactItems {
		c.add(strp(fmt.Sprintf("[%d items]", len(in.TransactItems))), "transactItems", "Member must have length less than or equal to 100")
	}
	checkEnum(&c, in.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnCapacity)
	checkEnum(&c, in.ReturnItemCollectionMetrics, "returnItemCollectionMetrics", enumReturnMetrics)
	checkClientToken(&c, in.ClientRequestToken)
	txWriteConstraints(&c, in.TransactItems)
	if err := c.err(); err != nil {
		return nil, err
	}
	actions := make([]*txAction, len(in.TransactItems))
	reasons := make([]string, len(in.TransactItems))
	size := 0
	seen := map[string]bool{}
	for i, ti := range in.TransactItems {
		act, reason, err := a.txWriteAction(ctx, ti)
		if err != nil {
			return nil, err
		}
		actions[i], reasons[i] = act, reason
		if reason != "" {
			continue
		}
		id := act.table.Name + "\x00" + keyString(act.table, act.key)
		if seen[id] {
			return nil, ValidationError("Transaction request cannot include multiple operations on one item")
		}
		seen[id] = true
		size += act.key.Size() + act.put.Size()
	}
	if size > maxTransactBytes {
		return nil, ValidationError("Transaction request cannot be larger than 4 MB")
	}
	if err := txValidationCancel(reasons); err != nil {
		return nil, err
	}
	txs := a.store
	targets := make([]store.TxTarget, len(actions))
	for i, act := range actions {
		targets[i] = store.TxTarget{Table: act.table, Key: act.key}
	}
	// fn may run more than once; the last run is the one that committed.
	var olds []attr.Item
	var writes []store.TxWrite
	fn := func(cur []attr.Item) ([]store.TxWrite, error) {
		w, err := applyTxActions(actions, cur)
		olds, writes = cur, w
		return w, err
	}
	replayed, err := commitTransaction(ctx, txs, targets, in.ClientRequestToken, in.TransactItems, fn, "transact write")
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	if !wantsCapacity(in.ReturnConsumedCapacity) {
		return out, nil
	}
	if !replayed {
		out["ConsumedCapacity"] = txWriteCapacity(in.ReturnConsumedCapacity, actions, olds, writes)
		return out, nil
	}
	// A replay writes nothing; the service charges the reads of the items
	// (transactional reads: twice the units of a consistent read).
	items, err := txs.ItemGetMany(ctx, targets)
	if err != nil {
		return nil, storeErr(err, "transact write")
	}
	units := map[string]float64{}
	tables := map[string]*store.Table{}
	for i, it := range items {
		units[targets[i].Table.Name] += 2 * readUnits(it.Size(), true)
		tables[targets[i].Table.Name] = targets[i].Table
	}
	out["ConsumedCapacity"] = txCapacity(in.ReturnConsumedCapacity, tables, units, nil, "ReadCapacityUnits")
	return out, nil
}

// applyTxActions evaluates every member against the current items; any
// failure cancels the whole transaction with one reason per member.
func applyTxActions(actions []*txAction, olds []attr.Item) ([]store.TxWrite, error) {
	writes := make([]store.TxWrite, len(actions))
	reasons := make([]map[string]any, len(actions))
	failed := false
	for i, act := range actions {
		old := olds[i]
		reasons[i] = map[string]any{"Code": "None"}
		ok, err := holds(act.cond, old)
		if err != nil {
			reasons[i] = map[string]any{"Code": "ValidationError", "Message": validationText(err)}
			failed = true
			continue
		}
		if !ok {
			r := map[string]any{"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}
			if is(act.returnOld, "ALL_OLD") && old != nil {
				r["Item"] = old
			}
			reasons[i] = r
			failed = true
			continue
		}
		switch act.kind {
		case "Put":
			writes[i] = store.TxWrite{Put: act.put}
		case "Delete":
			writes[i] = store.TxWrite{Delete: true}
		case "Update":
			base := old
			if base == nil {
				base = act.key.Clone()
			}
			next := base
			if act.update != nil {
				if next, err = act.update.Apply(base); err != nil {
					reasons[i] = map[string]any{"Code": "ValidationError", "Message": validationText(exprErr(err))}
					failed = true
					continue
				}
			}
			if old == nil && act.update != nil && act.update.OnlyRemoves() {
				writes[i] = store.TxWrite{Delete: true} // of nothing: creates nothing
				continue
			}
			if faults := indexKeyFaults(act.table, next, true); len(faults) > 0 {
				for _, f := range faults {
					if f.empty {
						return nil, f.err // refuses the request, not one member
					}
				}
				reasons[i] = map[string]any{"Code": "ValidationError", "Message": faults[0].err.Message}
				failed = true
				continue
			}
			if next.Size() > attr.MaxItemSize {
				reasons[i] = map[string]any{"Code": "ValidationError", "Message": "Item size to update has exceeded the maximum allowed size"}
				failed = true
				continue
			}
			writes[i] = store.TxWrite{Put: next}
		}
	}
	if failed {
		return nil, cancellation(reasons)
	}
	return writes, nil
}

func validationText(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// txWriteAction validates one member as the single-item operation would.
// A refusal of the whole request is err; a schema misfit that cancels the
// transaction is reason (see transact_validate.go).
func (a *API) txWriteAction(ctx context.Context, ti transactWriteItem) (act *txAction, reason string, err error) {
	common, kind, _, n := ti.action()
	if err := txActionCount(n); err != nil {
		return nil, "", err
	}
	act = &txAction{kind: kind, returnOld: common.ReturnValuesOnConditionCheckFailure}
	var updExpr *string
	switch kind {
	case "Put":
		act.put = ti.Put.Item
	case "Update":
		updExpr = ti.Update.UpdateExpression
	}
	values := valueUse{present: common.ConditionExpression != nil, null: nullCondition}
	if kind == "Update" {
		values = valueUse{present: common.ConditionExpression != nil || updExpr != nil, null: nullUpdateCondition}
	}
	ectx, err := exprContext(common.exprParams, common.ConditionExpression != nil || updExpr != nil, values)
	if err != nil {
		return nil, "", err
	}
	if updExpr != nil {
		if act.update, err = expr.ParseUpdate(*updExpr, ectx); err != nil {
			return nil, "", exprErr(err)
		}
	}
	if act.cond, err = parseCondition(common.ConditionExpression, ectx); err != nil {
		return nil, "", err
	}
	if err := ectx.CheckUnused(); err != nil {
		return nil, "", exprErr(err)
	}
	t, err := a.tableFor(ctx, *common.TableName)
	if err != nil {
		return nil, "", err
	}
	act.table = t
	if kind == "Put" {
		if reason, err = txItemFault(t, act.put); err != nil || reason != "" {
			return act, reason, err
		}
		act.key = t.KeyOf(act.put)
	} else {
		if reason, err = txKeyFault(t, common.Key); err != nil || reason != "" {
			return act, reason, err
		}
		act.key = common.Key
	}
	if act.update != nil {
		for _, p := range act.update.Paths() {
			for _, k := range t.KeyNames() {
				if p.Attribute() == k {
					return nil, "", invalid("Cannot update attribute %s. This attribute is part of the key", k)
				}
			}
		}
	}
	return act, "", nil
}

// checkClientToken records the length constraint of ClientRequestToken
// (1 to 36 in the API reference).
func checkClientToken(c *constraintErrors, tok *string) {
	switch {
	case tok == nil:
	case len(*tok) < 1:
		c.add(tok, "clientRequestToken", "Member must have length greater than or equal to 1")
	case len(*tok) > 36:
		c.add(tok, "clientRequestToken", "Member must have length less than or equal to 36")
	}
	checkNoNUL(c, tok, "clientRequestToken")
}

func (a *API) transactGetItems(ctx context.Context, r *Request) (any, error) {
	var in transactGetInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraintErrors
	c.notNull(in.TransactItems != nil, "transactItems")
	if in.TransactItems != nil && len(in.TransactItems) < 1 {
		c.add(strp("[]"), "transactItems", "Member must have length greater than or equal to 1")
	}
	if len(in.TransactItems) > maxTransactItems {
		c.add(strp(fmt.Sprintf("[%d items]", len(in.TransactItems))), "transactItems", "Member must have length less than or equal to 100")
	}
	checkEnum(&c, in.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnCapacity)
	for i, ti := range in.TransactItems {
		p := fmt.Sprintf("transactItems.%d.member.get", i+1)
		c.notNull(ti.Get != nil, p)
		if ti.Get != nil {
			checkTableRef(&c, ti.Get.TableName, p+".tableName")
			c.notNull(ti.Get.Key != nil, p+".key")
		}
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	targets := make([]store.TxTarget, len(in.TransactItems))
	projs := make([]*expr.Projection, len(in.TransactItems))
	reasons := make([]string, len(in.TransactItems))
	seen := map[string]bool{}
	for i, ti := range in.TransactItems {
		g := ti.Get
		ectx, err := exprContext(g.exprParams, g.ProjectionExpression != nil, valueUse{})
		if err != nil {
			return nil, err
		}
		if g.ProjectionExpression != nil {
			if projs[i], err = expr.ParseProjection(*g.ProjectionExpression, ectx); err != nil {
				return nil, exprErr(err)
			}
		}
		if err := ectx.CheckUnused(); err != nil {
			return nil, exprErr(err)
		}
		t, err := a.tableFor(ctx, *g.TableName)
		if err != nil {
			return nil, err
		}
		if reasons[i], err = txKeyFault(t, g.Key); err != nil {
			return nil, err
		}
		if reasons[i] != "" {
			continue
		}
		id := t.Name + "\x00" + keyString(t, g.Key)
		if seen[id] {
			return nil, ValidationError("Transaction request cannot include multiple operations on one item")
		}
		seen[id] = true
		targets[i] = store.TxTarget{Table: t, Key: g.Key}
	}
	if err := txValidationCancel(reasons); err != nil {
		return nil, err
	}
	txs := a.store
	items, err := txs.ItemGetMany(ctx, targets)
	if err != nil {
		return nil, storeErr(err, "transact get")
	}
	responses := make([]map[string]any, len(items))
	units := map[string]float64{}
	tables := map[string]*store.Table{}
	for i, it := range items {
		responses[i] = map[string]any{}
		units[targets[i].Table.Name] += 2 * readUnits(it.Size(), true)
		tables[targets[i].Table.Name] = targets[i].Table
		if it == nil {
			continue
		}
		if projs[i] != nil {
			it = projs[i].Apply(it)
		}
		// A projection that selects nothing of a present item leaves the
		// response without Item, as the service answers (measured).
		if len(it) > 0 {
			responses[i]["Item"] = it
		}
	}
	out := map[string]any{"Responses": responses}
	if ccs := txCapacity(in.ReturnConsumedCapacity, tables, units, nil, "ReadCapacityUnits"); ccs != nil {
		out["ConsumedCapacity"] = ccs
	}
	return out, nil
}
