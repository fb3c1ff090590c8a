package api

import (
	"context"
	"sort"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/expr"
	"github.com/dynamopg/dynamopg/server/store"
)

// Batch limits of the service.
const (
	maxBatchGetKeys     = 100
	maxBatchWriteItems  = 25
	maxBatchGetResponse = 16 << 20
)

type batchGetTable struct {
	exprParams
	Keys                 []attr.Item `json:"Keys"`
	ProjectionExpression *string     `json:"ProjectionExpression"`
	ConsistentRead       *bool       `json:"ConsistentRead"`
	AttributesToGet      []string    `json:"AttributesToGet"`
}

type batchGetInput struct {
	RequestItems           map[string]batchGetTable `json:"RequestItems"`
	ReturnConsumedCapacity *string                  `json:"ReturnConsumedCapacity"`
}

type writeRequest struct {
	PutRequest    *putRequest    `json:"PutRequest"`
	DeleteRequest *deleteRequest `json:"DeleteRequest"`
}

type putRequest struct {
	Item attr.Item `json:"Item"`
}

type deleteRequest struct {
	Key attr.Item `json:"Key"`
}

type batchWriteInput struct {
	RequestItems                map[string][]writeRequest `json:"RequestItems"`
	ReturnConsumedCapacity      *string                   `json:"ReturnConsumedCapacity"`
	ReturnItemCollectionMetrics *string                   `json:"ReturnItemCollectionMetrics"`
}

// sortedTables returns map keys in byte order so validation is deterministic.
func sortedTables[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// keyString is a canonical identity of a key, for duplicate detection.
func keyString(t *store.Table, k attr.Item) string {
	s := ""
	for _, n := range t.KeyNames() {
		v := k[n]
		s += n + "\x00" + string(v.AppendJSON(nil)) + "\x00"
	}
	return s
}

func (a *API) batchGetItem(ctx context.Context, r *Request) (any, error) {
	var in batchGetInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	names := sortedTables(in.RequestItems)
	if err := in.constraints(names); err != nil {
		return nil, err
	}
	total := 0
	for _, n := range names {
		total += len(in.RequestItems[n].Keys)
	}
	if total > maxBatchGetKeys {
		return nil, ValidationError("Too many items requested for the BatchGetItem call")
	}
	if err := checkBatchGetMixing(&in, names); err != nil {
		return nil, err
	}
	type plan struct {
		t    *store.Table
		proj *expr.Projection
		req  batchGetTable
	}
	plans := make([]plan, 0, len(names))
	for _, n := range names {
		req := in.RequestItems[n]
		if err := checkMixing([]param{{"AttributesToGet", req.AttributesToGet != nil}}, []param{{"ProjectionExpression", req.ProjectionExpression != nil}}); err != nil {
			return nil, err
		}
		if err := checkDuplicateNames(req.AttributesToGet); err != nil {
			return nil, err
		}
		ectx, err := exprContext(req.exprParams, req.ProjectionExpression != nil, valueUse{})
		if err != nil {
			return nil, err
		}
		var proj *expr.Projection
		if req.AttributesToGet != nil {
			proj = expr.ProjectionOf(req.AttributesToGet)
		}
		if req.ProjectionExpression != nil {
			if proj, err = expr.ParseProjection(*req.ProjectionExpression, ectx); err != nil {
				return nil, exprErr(err)
			}
		}
		if err := ectx.CheckUnused(); err != nil {
			return nil, exprErr(err)
		}
		t, err := a.tableFor(ctx, n)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, k := range req.Keys {
			if err := checkKey(t, k); err != nil {
				return nil, err
			}
			ks := keyString(t, k)
			if seen[ks] {
				return nil, ValidationError("Provided list of item keys contains duplicates")
			}
			seen[ks] = true
		}
		plans = append(plans, plan{t: t, proj: proj, req: req})
	}
	responses := map[string][]attr.Item{}
	unprocessed := map[string]any{}
	var capacities []map[string]any
	size := 0
	for _, p := range plans {
		items := []attr.Item{}
		var left []attr.Item
		units := 0.0
		consistent := p.req.ConsistentRead != nil && *p.req.ConsistentRead
		for keys := p.req.Keys; len(keys) > 0; {
			if size >= maxBatchGetResponse {
				left = append(left, keys...)
				break
			}
			n := batchGetChunk(maxBatchGetResponse-size, len(keys))
			got, err := a.getMany(ctx, p.t, keys[:n])
			if err != nil {
				return nil, storeErr(err, "batch get")
			}
			for i, it := range got {
				if size >= maxBatchGetResponse {
					left = append(left, keys[i:n]...)
					break
				}
				units += readUnits(it.Size(), consistent)
				if it == nil {
					continue
				}
				size += it.Size()
				if p.proj != nil {
					it = p.proj.Apply(it)
				}
				items = append(items, it)
			}
			keys = keys[n:]
		}
		responses[p.t.Name] = items
		if len(left) > 0 {
			u := map[string]any{"Keys": left}
			if p.req.ProjectionExpression != nil {
				u["ProjectionExpression"] = *p.req.ProjectionExpression
			}
			if p.req.AttributesToGet != nil {
				u["AttributesToGet"] = p.req.AttributesToGet
			}
			if p.req.ExpressionAttributeNames != nil {
				u["ExpressionAttributeNames"] = p.req.ExpressionAttributeNames
			}
			if p.req.ConsistentRead != nil {
				u["ConsistentRead"] = *p.req.ConsistentRead
			}
			unprocessed[p.t.Name] = u
		}
		if cc := consumed(in.ReturnConsumedCapacity, p.t, units, nil); cc != nil {
			capacities = append(capacities, cc)
		}
	}
	out := map[string]any{"Responses": responses, "UnprocessedKeys": unprocessed}
	if capacities != nil {
		out["ConsumedCapacity"] = capacities
	}
	return out, nil
}

// batchGetChunk is how many of n keys one read takes when budget bytes of
// the response are left: no more than could fill it with items of the
// largest size, so a read never goes more than one item past the response
// limit, as reading the keys one by one would not either.
func batchGetChunk(budget, n int) int {
	return min(n, max(1, (budget+attr.MaxItemSize-1)/attr.MaxItemSize))
}

// getMany reads the items of keys in one round trip (one snapshot), in
// keys' order, nil where absent.
func (a *API) getMany(ctx context.Context, t *store.Table, keys []attr.Item) ([]attr.Item, error) {
	if len(keys) == 1 {
		it, err := a.store.ItemGet(ctx, t, keys[0])
		return []attr.Item{it}, err
	}
	targets := make([]store.TxTarget, len(keys))
	for i, k := range keys {
		targets[i] = store.TxTarget{Table: t, Key: k}
	}
	return a.store.ItemGetMany(ctx, targets)
}

func (a *API) batchWriteItem(ctx context.Context, r *Request) (any, error) {
	var in batchWriteInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	names := sortedTables(in.RequestItems)
	if err := in.constraints(names); err != nil {
		return nil, err
	}
	total := 0
	for _, n := range names {
		total += len(in.RequestItems[n])
	}
	if total > maxBatchWriteItems {
		return nil, ValidationError("Too many items requested for the BatchWriteItem call")
	}
	var ops []batchOp
	for _, n := range names {
		t, err := a.tableFor(ctx, n)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, wr := range in.RequestItems[n] {
			var o batchOp
			switch {
			case wr.PutRequest != nil && wr.DeleteRequest == nil:
				it := wr.PutRequest.Item
				if err := checkAttributeNames(it); err != nil {
					return nil, err
				}
				if err := checkBatchItemKey(t, it); err != nil {
					return nil, err
				}
				if err := checkIndexKeys(t, it, false); err != nil {
					return nil, err
				}
				if it.Size() > attr.MaxItemSize {
					return nil, ValidationError("Item size has exceeded the maximum allowed size")
				}
				o = batchOp{t: t, key: t.KeyOf(it), put: it}
			case wr.DeleteRequest != nil && wr.PutRequest == nil:
				if err := checkKey(t, wr.DeleteRequest.Key); err != nil {
					return nil, err
				}
				o = batchOp{t: t, key: wr.DeleteRequest.Key}
			default:
				return nil, ValidationError("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
			}
			ks := keyString(t, o.key)
			if seen[ks] {
				return nil, ValidationError("Provided list of item keys contains duplicates")
			}
			seen[ks] = true
			ops = append(ops, o)
		}
	}
	units := map[string]float64{}
	indexUnits := map[string]map[string]float64{}
	tables := map[string]*store.Table{}
	olds, err := a.batchWrites(ctx, ops)
	if err != nil {
		return nil, err
	}
	for i, o := range ops {
		old, put := olds[i], o.put
		units[o.t.Name] += writeUnits(old.Size(), put.Size())
		for ix, u := range indexWriteUnits(o.t, old, put) {
			if indexUnits[o.t.Name] == nil {
				indexUnits[o.t.Name] = map[string]float64{}
			}
			indexUnits[o.t.Name][ix] += u
		}
		tables[o.t.Name] = o.t
	}
	out := map[string]any{"UnprocessedItems": map[string]any{}}
	if in.ReturnConsumedCapacity != nil && *in.ReturnConsumedCapacity != "NONE" {
		var ccs []map[string]any
		for _, n := range sortedTables(tables) {
			ccs = append(ccs, consumed(in.ReturnConsumedCapacity, tables[n], units[n], indexUnits[n]))
		}
		out["ConsumedCapacity"] = ccs
	}
	return out, nil
}

// checkBatchItemKey validates a put's key attributes as batch and
// transactional writes do: a key of the wrong type is reported with the key
// schema text, not PutItem's "Type mismatch for key".
func checkBatchItemKey(t *store.Table, it attr.Item) error {
	for _, ka := range []*store.KeyAttr{&t.Hash, t.Range} {
		if ka != nil {
			if v, ok := it[ka.Name]; ok && v.T != ka.Type {
				return ValidationError("The provided key element does not match the schema")
			}
		}
	}
	return checkItemKey(t, it)
}

// batchOp is one write of a BatchWriteItem request.
type batchOp struct {
	t   *store.Table
	key attr.Item
	put attr.Item // nil: delete
}

// batchWrites performs a BatchWriteItem's writes in one ItemWriteMany
// (all or none; the store sizes the item collections of tables with local
// indexes) and returns the item each one replaced or deleted.
func (a *API) batchWrites(ctx context.Context, ops []batchOp) ([]attr.Item, error) {
	wops := make([]store.WriteOp, len(ops))
	for i, o := range ops {
		wops[i] = store.WriteOp{Table: o.t, Key: o.key, Put: o.put}
	}
	olds, err := a.store.ItemWriteMany(ctx, wops)
	if err != nil {
		return nil, storeErr(err, "batch write")
	}
	return olds, nil
}
