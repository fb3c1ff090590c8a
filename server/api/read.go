package api

import (
	"context"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/expr"
	"github.com/dynamopg/dynamopg/server/store"
)

// readPlan is a validated Query or Scan: where to read and what to keep.
type readPlan struct {
	table      *store.Table
	index      *store.Index
	filter     *expr.Condition
	projection *expr.Projection
	count      bool // Select=COUNT
	limit      int  // 0: none
	consistent bool
	capacity   *string
	// fetch reads the next batch after a key (nil: from the start).
	// The items come as the store keeps them (ItemQueryJSON, ItemScanJSON).
	fetch func(ctx context.Context, after attr.Item, n int) ([][]byte, error)
	// startKey is the validated ExclusiveStartKey (nil when absent).
	startKey attr.Item
	// fetchBase: the read names attributes a local index does not project,
	// which the service fetches from the table (at extra read cost).
	fetchBase bool
}

// needsBase reports whether a read of a local secondary index must fetch
// whole items from the table: Select=ALL_ATTRIBUTES, or a projection naming
// an attribute outside the index's projection.
func needsBase(t *store.Table, ix *store.Index, sel *string, proj *expr.Projection) bool {
	if ix == nil || ix.Global || ix.Projection.Type == "ALL" {
		return false
	}
	if is(sel, "ALL_ATTRIBUTES") {
		return true
	}
	if proj == nil {
		return false
	}
	projected := map[string]bool{}
	for _, k := range ix.KeyAttrs() {
		projected[k.Name] = true
	}
	for _, n := range t.KeyNames() {
		projected[n] = true
	}
	for _, n := range ix.Projection.NonKeyAttributes {
		projected[n] = true
	}
	for _, n := range proj.TopLevel() {
		if !projected[n] {
			return true
		}
	}
	return false
}

// checkSelect applies the service's rules between Select, the projection and
// the index, which do not need the table.
// projParam names the projection the request used in the texts
// (ProjectionExpression or AttributesToGet).
func checkSelect(sel *string, hasProjection bool, indexName *string, isQuery bool, projParam string) error {
	if sel == nil {
		return nil
	}
	if projParam != "ProjectionExpression" && hasProjection && !is(sel, "SPECIFIC_ATTRIBUTES") && (*sel != "ALL_PROJECTED_ATTRIBUTES" || indexName != nil) {
		what := *sel
		if what == "COUNT" {
			what = "only the Count"
		}
		msg := "Cannot specify the " + projParam + " when choosing to get " + what
		if isQuery {
			msg = "1 validation error detected: " + msg
		}
		return ValidationError("%s", msg)
	}
	switch *sel {
	case "COUNT":
		if hasProjection {
			if isQuery {
				return ValidationError("1 validation error detected: Cannot specify the ProjectionExpression when choosing to get only the Count")
			}
			return ValidationError("Cannot specify the ProjectionExpression when choosing to get only the Count")
		}
	case "SPECIFIC_ATTRIBUTES":
		if !hasProjection {
			// Query words this one as a member constraint, Scan does not.
			if isQuery {
				return ValidationError("1 validation error detected: Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
			}
			return ValidationError("Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
		}
	case "ALL_ATTRIBUTES":
		if hasProjection {
			return ValidationError("Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES")
		}
	case "ALL_PROJECTED_ATTRIBUTES":
		if indexName == nil {
			return ValidationError("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
		}
		if hasProjection {
			return ValidationError("Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES")
		}
	}
	return nil
}

// resolveIndex finds the named index and applies the read rules that need it.
func resolveIndex(t *store.Table, name *string, sel *string, consistent bool) (*store.Index, error) {
	if name == nil {
		return nil, nil
	}
	ix := t.Index(*name)
	if ix == nil || ix.Status != store.StatusActive {
		return nil, ValidationError("The table does not have the specified index: %s", *name)
	}
	if ix.Global && consistent {
		return nil, ValidationError("Consistent reads are not supported on global secondary indexes")
	}
	if is(sel, "ALL_ATTRIBUTES") && ix.Global && ix.Projection.Type != "ALL" {
		return nil, ValidationError("Select type ALL_ATTRIBUTES is not supported for global secondary index %s because its projection type is not ALL", ix.Name)
	}
	return ix, nil
}

// checkStartKey validates an ExclusiveStartKey: the table's key, plus the
// index's key attributes when reading an index.
func checkStartKey(t *store.Table, ix *store.Index, k attr.Item) error {
	if k == nil {
		return nil
	}
	want := map[string]attr.Type{t.Hash.Name: t.Hash.Type}
	if t.Range != nil {
		want[t.Range.Name] = t.Range.Type
	}
	if ix != nil {
		for _, ka := range ix.KeyAttrs() {
			want[ka.Name] = ka.Type
		}
	}
	if len(k) != len(want) {
		return ValidationError("The provided starting key is invalid: The provided key element does not match the schema")
	}
	for n, typ := range want {
		v, ok := k[n]
		if !ok || v.T != typ {
			return ValidationError("The provided starting key is invalid: The provided key element does not match the schema")
		}
	}
	return nil
}

// lastKey is the LastEvaluatedKey for an item read from the table or index.
func lastKey(t *store.Table, ix *store.Index, it attr.Item) attr.Item {
	k := t.KeyOf(it)
	if ix != nil {
		for _, ka := range ix.KeyAttrs() {
			k[ka.Name] = it[ka.Name]
		}
	}
	return k
}

// run reads pages from the store until the Limit or the 1 MB page limit,
// filtering and projecting, and renders the response. Items are answered
// as the store returned them, and decoded only for what the read must look
// at: the filter, the projection, a local index's base key, the last key.
func (a *API) run(ctx context.Context, p *readPlan) (map[string]any, error) {
	var (
		stored    []attr.ItemJSON // the answer without a projection
		projected []attr.Item     // ... with one
		matched   int
		scanned   int
		bytes     int
		// An index read is charged to the index for the entries it read,
		// and to the table only for the items it fetched from it.
		indexBytes, baseBytes int
		last                  *storedItem
		after                 = p.startKey
		stopped               bool
	)
	const batch = 100
	for !stopped {
		n := batch
		if p.limit > 0 && p.limit-scanned < n {
			n = p.limit - scanned
		}
		got, err := p.fetch(ctx, after, n)
		if err != nil {
			return nil, storeErr(err, "read")
		}
		for _, raw := range got {
			row := &storedItem{json: raw}
			size, err := row.size()
			if err != nil {
				return nil, storeErr(err, "read")
			}
			indexBytes += size
			if p.fetchBase {
				base, err := a.baseItem(ctx, p.table, row)
				if err != nil {
					return nil, err
				}
				if base != nil {
					if size, err = base.size(); err != nil {
						return nil, storeErr(err, "read base item")
					}
					row = base
					baseBytes += size
				}
			}
			scanned++
			bytes += size
			last = row
			ok := true
			if p.filter != nil {
				it, err := row.decoded()
				if err != nil {
					return nil, storeErr(err, "read")
				}
				if ok, err = holds(p.filter, it); err != nil {
					return nil, err
				}
			}
			switch {
			case !ok:
			case p.count:
				matched++
			case p.projection != nil:
				it, err := row.decoded()
				if err != nil {
					return nil, storeErr(err, "read")
				}
				projected = append(projected, p.projection.Apply(it))
				matched++
			default:
				stored = append(stored, row.json)
				matched++
			}
			if (p.limit > 0 && scanned >= p.limit) || bytes >= maxPageBytes {
				stopped = true
				break
			}
		}
		if !stopped && len(got) < n {
			last = nil // reached the end
			break
		}
		if len(got) > 0 {
			it, err := (&storedItem{json: got[len(got)-1]}).decoded()
			if err != nil {
				return nil, storeErr(err, "read")
			}
			after = lastKey(p.table, p.index, it)
		}
	}
	out := map[string]any{"Count": matched, "ScannedCount": scanned}
	switch {
	case p.count:
	case p.projection != nil:
		if projected == nil {
			projected = []attr.Item{}
		}
		out["Items"] = projected
	default:
		if stored == nil {
			stored = []attr.ItemJSON{}
		}
		out["Items"] = stored
	}
	if stopped && last != nil {
		it, err := last.decoded()
		if err != nil {
			return nil, storeErr(err, "read")
		}
		out["LastEvaluatedKey"] = lastKey(p.table, p.index, it)
	}
	tableUnits, indexUnits := readUnits(bytes, p.consistent), map[string]float64(nil)
	if p.index != nil {
		tableUnits, indexUnits = 0, map[string]float64{p.index.Name: readUnits(indexBytes, p.consistent)}
		if p.fetchBase && baseBytes > 0 {
			tableUnits = readUnits(baseBytes, p.consistent)
		}
	}
	if cc := consumed(p.capacity, p.table, tableUnits, indexUnits); cc != nil {
		out["ConsumedCapacity"] = cc
	}
	return out, nil
}

// baseItem is the table's item of a local index's entry, which the read
// answers with instead; nil when the table no longer holds it.
func (a *API) baseItem(ctx context.Context, t *store.Table, entry *storedItem) (*storedItem, error) {
	it, err := entry.decoded()
	if err != nil {
		return nil, storeErr(err, "read")
	}
	full, err := a.store.ItemGetJSON(ctx, t, t.KeyOf(it))
	if err != nil {
		return nil, storeErr(err, "read base item")
	}
	if full == nil {
		return nil, nil
	}
	return &storedItem{json: full}, nil
}

// checkMembers records the member constraints Query and Scan share. Their
// Limit is worded differently: Query's is "Value at 'Limit' ..." (no
// value; live captures of the service, pinned by several conformance
// suites), Scan's keeps "Value '0' at 'limit'".
func (in *queryInput) checkMembers(c *constraintErrors, query bool) {
	checkTableRef(c, in.TableName, "tableName")
	checkName(c, in.IndexName, "indexName", false)
	checkEnum(c, in.Select, "select", enumSelect)
	if query && in.Limit != nil && *in.Limit < 1 {
		c.addAt("Limit", "Member must have value greater than or equal to 1")
	} else {
		checkLimit(c, in.Limit)
	}
	checkEnum(c, in.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnCapacity)
	checkAttributesToGet(c, in.AttributesToGet, "attributesToGet")
	checkEnum(c, in.ConditionalOperator, "conditionalOperator", enumConditionalOperator)
}

// parseExprs builds the expression context and parses the filter and
// projection (and, for Query, the key condition through parseMore, which
// runs first as the service orders its errors), then checks that every
// placeholder was used. values says which of the read's expressions take
// values.
func (in *queryInput) parseExprs(usesExpr bool, values valueUse, parseMore func(*expr.Context) error) (*expr.Condition, *expr.Projection, error) {
	ectx, err := exprContext(in.exprParams, usesExpr, values)
	if err != nil {
		return nil, nil, err
	}
	if parseMore != nil {
		if err := parseMore(ectx); err != nil {
			return nil, nil, err
		}
	}
	filter, proj, err := parseReadExprs(in.FilterExpression, in.ProjectionExpression, ectx)
	if err != nil {
		return nil, nil, err
	}
	if err := ectx.CheckUnused(); err != nil {
		return nil, nil, exprErr(err)
	}
	// The legacy filter and projection (checkLegacy refused them beside
	// expressions).
	if f := in.legacyFilter(); f != nil {
		filter = legacyConditionOf(f, in.ConditionalOperator)
	}
	if in.AttributesToGet != nil {
		proj = expr.ProjectionOf(in.AttributesToGet)
	}
	return filter, proj, nil
}

// plan resolves what a Query or Scan needs from the catalog: the table, the
// index, the start key, and the plan the read runs with (fetch is left to
// the caller). checkKeys runs between resolving the index and checking the
// start key, where Query matches its key condition in the service's order.
func (a *API) plan(ctx context.Context, in *queryInput, filter *expr.Condition, proj *expr.Projection, checkKeys func(t *store.Table, ix *store.Index) error) (*readPlan, error) {
	t, err := a.tableFor(ctx, *in.TableName)
	if err != nil {
		return nil, err
	}
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	ix, err := resolveIndex(t, in.IndexName, in.Select, consistent)
	if err != nil {
		return nil, err
	}
	if checkKeys != nil {
		if err := checkKeys(t, ix); err != nil {
			return nil, err
		}
	}
	if err := checkStartKey(t, ix, in.ExclusiveStartKey); err != nil {
		return nil, err
	}
	p := &readPlan{
		table: t, index: ix, filter: filter, projection: proj,
		count: is(in.Select, "COUNT"), consistent: consistent,
		capacity: in.ReturnConsumedCapacity, startKey: in.ExclusiveStartKey,
		fetchBase: needsBase(t, ix, in.Select, proj),
	}
	if in.Limit != nil {
		p.limit = int(*in.Limit)
	}
	return p, nil
}
