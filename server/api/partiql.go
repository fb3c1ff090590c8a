package api

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/expr"
	"github.com/dynamopg/dynamopg/server/partiql"
	"github.com/dynamopg/dynamopg/server/store"
)

// PartiQL texts of the service (as DynamoDB Local words them).
const (
	msgPQDuplicateItem   = "Duplicate primary key exists in table"
	msgPQExistsOutsideTx = "EXISTS can only be used in ExecuteTransaction write requests."
	msgPQConsistentGSI   = "Strongly consistent read is not supported on Global Secondary Indexes"
	msgPQOrderByWhere    = "Must have WHERE clause in the statement when using ORDER BY clause."
	msgPQOrderByHash     = "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."
	msgPQOrderByKey      = "Variable reference %s in ORDER BY clause must be part of the primary key"
	msgPQInvalidToken    = "Invalid NextToken"
	msgPQTokenMismatch   = "NextToken does not match request"
	msgPQInsertFormat    = "Unsupported format in item expression. Please use struct format {...} to express item values for insert statement."
	msgPQMultipleKeyCond = "Multiple conditions on same key %s. Only single item Update/Insert/Delete are supported"
)

// duplicateItemError is INSERT's answer for a key that exists.
func duplicateItemError() *Error {
	return newErr(nsDynamo, "DuplicateItemException", 400, msgPQDuplicateItem)
}

// pqErr turns a parser or compiler error into a ValidationException.
func pqErr(err error) error {
	var pe *partiql.Error
	if errors.As(err, &pe) {
		return ValidationError("%s", pe.Msg)
	}
	return exprErr(err)
}

// checkStatementMember records the constraints of one Statement member.
func checkStatementMember(c *constraintErrors, s *string, path string) {
	switch {
	case s == nil:
		c.notNull(false, path)
	case len(*s) < 1:
		c.add(s, path, "Member must have length greater than or equal to 1")
	case len(*s) > maxStatementBytes:
		c.add(s, path, "Member must have length less than or equal to 8192")
	}
}

// parseStatement parses a statement and checks its parameters.
func parseStatement(s string, params []attr.Value) (*partiql.Statement, error) {
	st, err := partiql.Parse(s)
	if err != nil {
		return nil, pqErr(err)
	}
	// A quoted identifier may hold any character; a table or index name
	// holding U+0000 names nothing (nul.go) and is held to the name rules.
	var c constraintErrors
	if hasNUL(st.Table) {
		checkName(&c, &st.Table, "tableName", true)
	}
	if hasNUL(st.Index) {
		checkName(&c, &st.Index, "indexName", true)
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	if err := st.CheckParams(len(params)); err != nil {
		return nil, pqErr(err)
	}
	if err := st.CheckOrdering(params); err != nil {
		return nil, pqErr(err)
	}
	return st, nil
}

// pqContext builds the expression context of a compiled statement.
func pqContext(c *partiql.Compiler) (*expr.Context, error) {
	ctx, err := expr.NewContext(c.NamesOrNil(), c.ValuesOrNil())
	if err != nil {
		return nil, exprErr(err)
	}
	return ctx, nil
}

// ---------------------------------------------------------------------------
// Writes

// pqWrite is a validated INSERT, UPDATE, DELETE or EXISTS on one item.
type pqWrite struct {
	kind      partiql.Kind
	table     *store.Table
	key       attr.Item
	put       attr.Item       // INSERT
	cond      *expr.Condition // the WHERE (UPDATE, DELETE, EXISTS)
	update    *expr.Update    // UPDATE
	paths     []expr.Path     // UPDATE's paths, for RETURNING MODIFIED
	returning string          // RETURNING
	returnOld *string         // ReturnValuesOnConditionCheckFailure
}

// next computes the item's new state from its current one: the item to
// store (nil: none), and whether anything is written.
func (w *pqWrite) next(old attr.Item) (attr.Item, bool, error) {
	switch w.kind {
	case partiql.Insert:
		if old != nil {
			return nil, false, duplicateItemError()
		}
		return w.put, true, nil
	case partiql.Delete:
		if old == nil {
			return nil, false, nil
		}
		ok, err := holds(w.cond, old)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, conditionFailed(old, w.returnOld)
		}
		return nil, true, nil
	case partiql.Exists:
		ok, err := holds(w.cond, old)
		if err != nil {
			return nil, false, err
		}
		if old == nil || !ok {
			return nil, false, conditionFailed(old, w.returnOld)
		}
		return old, false, nil
	}
	// UPDATE: the item must exist and the WHERE hold.
	if old == nil {
		return nil, false, ConditionalCheckFailedError()
	}
	ok, err := holds(w.cond, old)
	if err != nil {
		return nil, false, err
	}
	if !ok {
		return nil, false, conditionFailed(old, w.returnOld)
	}
	next, err := w.update.Apply(old)
	if err != nil {
		return nil, false, exprErr(err)
	}
	if err := checkIndexKeys(w.table, next, true); err != nil {
		return nil, false, err
	}
	if next.Size() > attr.MaxItemSize {
		return nil, false, ValidationError("Item size to update has exceeded the maximum allowed size")
	}
	return next, true, nil
}

// fullKey finds the equality on every key attribute among the WHERE's
// top-level ANDs.
func fullKey(c *partiql.Compiler, t *store.Table, where partiql.Expr, missing string) (attr.Item, error) {
	names := t.KeyNames()
	conds, err := c.KeyConds(where, names...)
	if err != nil {
		return nil, pqErr(err)
	}
	key := attr.Item{}
	for _, kc := range conds {
		if kc.Op != "=" {
			continue
		}
		if _, dup := key[kc.Name]; dup {
			return nil, ValidationError(msgPQMultipleKeyCond, kc.Name)
		}
		key[kc.Name] = kc.Values[0]
	}
	if len(key) != len(names) {
		return nil, ValidationError("%s", missing)
	}
	return key, nil
}

// prepareWrite validates an INSERT, UPDATE, DELETE or EXISTS against its
// table.
func (a *API) prepareWrite(ctx context.Context, st *partiql.Statement, params []attr.Value, returnOld *string) (*pqWrite, error) {
	t, err := a.tableFor(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	w := &pqWrite{kind: st.Kind, table: t, returning: st.Returning, returnOld: returnOld}
	c := partiql.NewCompiler(params)
	if st.Kind == partiql.Insert {
		if _, ok := st.Value.(partiql.MapExpr); !ok {
			return nil, ValidationError("%s", msgPQInsertFormat)
		}
		v, err := c.Const(st.Value)
		if err != nil {
			return nil, pqErr(err)
		}
		w.put = attr.Item(v.M)
		if err := checkItemKey(t, w.put); err != nil {
			return nil, err
		}
		if err := checkIndexKeys(t, w.put, false); err != nil {
			return nil, err
		}
		if w.put.Size() > attr.MaxItemSize {
			return nil, ValidationError("Item size has exceeded the maximum allowed size")
		}
		w.key = t.KeyOf(w.put)
		return w, nil
	}
	if st.Index != "" {
		return nil, ValidationError("Operations on indices are not supported in transactions")
	}
	missing := partiql.MsgIncompleteKey
	if st.Kind == partiql.Exists {
		missing = "EXISTS() must contain a single item read with additional condition"
	}
	if w.key, err = fullKey(c, t, st.Where, missing); err != nil {
		return nil, err
	}
	if err := checkKey(t, w.key); err != nil {
		return nil, err
	}
	condText, err := c.Condition(st.Where)
	if err != nil {
		return nil, pqErr(err)
	}
	var updText string
	if st.Kind == partiql.Update {
		if updText, err = c.Update(st.Sets, st.Removes); err != nil {
			return nil, pqErr(err)
		}
	}
	ectx, err := pqContext(c)
	if err != nil {
		return nil, err
	}
	if w.cond, err = expr.ParseCondition(expr.KindCondition, condText, ectx); err != nil {
		return nil, exprErr(err)
	}
	if st.Kind == partiql.Update {
		if w.update, err = expr.ParseUpdate(updText, ectx); err != nil {
			return nil, exprErr(err)
		}
		w.paths = w.update.Paths()
		for _, p := range w.paths {
			for _, k := range t.KeyNames() {
				if p.Attribute() == k {
					return nil, invalid("Cannot update attribute %s. This attribute is part of the key", k)
				}
			}
		}
	}
	return w, nil
}

// returned is what RETURNING gives for a write that ran.
func (w *pqWrite) returned(old, cur attr.Item) attr.Item {
	switch w.returning {
	case "ALL OLD":
		return old
	case "ALL NEW":
		return cur
	case "MODIFIED OLD":
		if old == nil {
			return nil
		}
		return expr.ProjectPaths(old, w.paths)
	case "MODIFIED NEW":
		if cur == nil {
			return nil
		}
		return expr.ProjectPaths(cur, w.paths)
	}
	return nil
}

// runWrite runs one write on its own.
func (a *API) runWrite(ctx context.Context, w *pqWrite) (old, cur attr.Item, err error) {
	if w.kind == partiql.Delete && w.returning != "" && w.returning != "ALL OLD" {
		return nil, nil, ValidationError("Invalid returning clause: RETURNING %s *. Only RETURNING ALL OLD * is allowed in DELETE statements.", w.returning)
	}
	old, err = a.store.ItemWrite(ctx, w.table, w.key, func(old attr.Item) (attr.Item, error) {
		next, write, err := w.next(old)
		if err != nil {
			return nil, err
		}
		if !write {
			return old, nil // unchanged (DELETE of a missing item: nil)
		}
		cur = next
		return next, nil
	})
	if err != nil {
		return nil, nil, storeErr(err, "partiql write")
	}
	return old, cur, nil
}

// ---------------------------------------------------------------------------
// Reads

// pqRead is a validated SELECT.
type pqRead struct {
	table   *store.Table
	index   *store.Index
	filter  *expr.Condition
	proj    *expr.Projection
	hash    *attr.Value  // the partition key's value: a Query
	eq      []attr.Value // an index's further partition values (multi-attribute key)
	rng     *store.RangeCond
	forward bool
	c       *partiql.Compiler
}

func (a *API) prepareRead(ctx context.Context, st *partiql.Statement, params []attr.Value, consistent bool) (*pqRead, error) {
	t, err := a.tableFor(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	r := &pqRead{table: t, forward: true, c: partiql.NewCompiler(params)}
	hashKey, rangeKey := t.Hash, t.Range
	if st.Index != "" {
		ix := t.Index(st.Index)
		if ix == nil || ix.Status != store.StatusActive {
			// Unlike Query's, PartiQL's text does not name the index
			// (nubo-db/dynamodb-conformance, partiqlIndexQualifier).
			return nil, ValidationError("The table does not have the specified index")
		}
		if ix.Global && consistent {
			return nil, ValidationError("%s", msgPQConsistentGSI)
		}
		r.index = ix
		hashKey, rangeKey = ix.Hash, ix.Range
	}
	c := r.c
	var projText, filterText string
	if !st.Star {
		projText = c.Projection(st.Projection)
	}
	if st.Where != nil {
		if filterText, err = c.Condition(st.Where); err != nil {
			return nil, pqErr(err)
		}
	}
	// The key conditions: an equality on the partition key makes a Query,
	// and one usable condition on the sort key narrows it.
	names := []string{hashKey.Name}
	if rangeKey != nil {
		names = append(names, rangeKey.Name)
	}
	conds, err := c.KeyConds(st.Where, names...)
	if err != nil {
		return nil, pqErr(err)
	}
	var rangeConds []partiql.KeyCond
	for _, kc := range conds {
		switch {
		case kc.Name == hashKey.Name && kc.Op == "=" && r.hash == nil && kc.Values[0].T == hashKey.Type:
			v := kc.Values[0]
			r.hash = &v
		case rangeKey != nil && kc.Name == rangeKey.Name:
			rangeConds = append(rangeConds, kc)
		}
	}
	if r.hash != nil && len(rangeConds) == 1 {
		kc := rangeConds[0]
		usable := true
		for _, v := range kc.Values {
			usable = usable && v.T == rangeKey.Type
		}
		if kc.Op == "BEGINS_WITH" && rangeKey.Type == attr.TypeN {
			usable = false
		}
		if kc.Op == "BETWEEN" && usable {
			if n, _ := attr.Compare(kc.Values[0], kc.Values[1]); n > 0 {
				usable = false // matches nothing; the filter says so
			}
		}
		if usable {
			op := map[string]store.RangeOp{"=": store.RangeEQ, "<": store.RangeLT, "<=": store.RangeLE, ">": store.RangeGT, ">=": store.RangeGE, "BETWEEN": store.RangeBetween, "BEGINS_WITH": store.RangeBeginsWith}[kc.Op]
			r.rng = &store.RangeCond{Op: op, Values: kc.Values}
		}
	}
	if r.index != nil && r.index.MultiKey() {
		if r.hash, r.eq, err = pqMultiKeyEq(c, st.Where, r.index); err != nil {
			return nil, err
		}
		r.rng = nil
	}
	if len(st.OrderBy) > 0 {
		if st.Where == nil {
			return nil, ValidationError("%s", msgPQOrderByWhere)
		}
		multi := r.index != nil && r.index.MultiKey()
		for _, o := range st.OrderBy {
			if multi && r.index.IsKey(o.Name) {
				continue // any attribute of a multi-attribute key
			}
			if o.Name != hashKey.Name && (rangeKey == nil || o.Name != rangeKey.Name) {
				return nil, ValidationError(msgPQOrderByKey, o.Name)
			}
		}
		if r.hash == nil {
			return nil, ValidationError("%s", msgPQOrderByHash)
		}
		for _, o := range st.OrderBy {
			if rangeKey != nil && o.Name == rangeKey.Name || multi && slices.ContainsFunc(r.index.RangeAttrs(), func(k store.KeyAttr) bool { return k.Name == o.Name }) {
				r.forward = !o.Desc
			}
		}
	}
	ectx, err := pqContext(c)
	if err != nil {
		return nil, err
	}
	if projText != "" {
		if r.proj, err = expr.ParseProjection(projText, ectx); err != nil {
			return nil, exprErr(err)
		}
	}
	if filterText != "" {
		if r.filter, err = expr.ParseCondition(expr.KindFilter, filterText, ectx); err != nil {
			return nil, exprErr(err)
		}
	}
	// A filter on attributes the index does not project is refused only on
	// a read keyed on the index (a Query); unkeyed, the read is a scan and
	// such a filter matches nothing (measured by a conformance suite).
	keyedFilter := r.filter
	if r.hash == nil {
		keyedFilter = nil
	}
	if err := checkPQIndexAttrs(t, r.index, keyedFilter, r.proj); err != nil {
		return nil, err
	}
	return r, nil
}

// nextToken is the opaque NextToken: the last key read and a hash of the
// request it continues.
type nextToken struct {
	Hash string    `json:"h"`
	Key  attr.Item `json:"k"`
}

func statementHash(stmt string, params []attr.Value) string {
	h := sha256.New()
	h.Write([]byte(stmt))
	for _, p := range params {
		h.Write([]byte{0})
		h.Write(p.AppendJSON(nil))
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func encodeNextToken(hash string, key attr.Item) string {
	b, _ := json.Marshal(nextToken{Hash: hash, Key: key})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeNextToken(s, hash string) (attr.Item, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ValidationError("%s", msgPQInvalidToken)
	}
	var tok nextToken
	if err := json.Unmarshal(b, &tok); err != nil || tok.Key == nil {
		return nil, ValidationError("%s", msgPQInvalidToken)
	}
	if tok.Hash != hash {
		return nil, ValidationError("%s", msgPQTokenMismatch)
	}
	return tok.Key, nil
}

// runSelect runs a SELECT of ExecuteStatement: one page.
func (a *API) runSelect(ctx context.Context, st *partiql.Statement, in *executeStatementInput) (any, error) {
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	r, err := a.prepareRead(ctx, st, in.Parameters, consistent)
	if err != nil {
		return nil, err
	}
	hash := statementHash(*in.Statement, in.Parameters)
	var start attr.Item
	if in.NextToken != nil {
		if start, err = decodeNextToken(*in.NextToken, hash); err != nil {
			return nil, err
		}
		if checkStartKey(r.table, r.index, start) != nil {
			return nil, ValidationError("%s", msgPQInvalidToken)
		}
	}
	p := &readPlan{
		table: r.table, index: r.index, filter: r.filter, projection: r.proj,
		consistent: consistent, capacity: in.ReturnConsumedCapacity, startKey: start,
		fetchBase: needsBase(r.table, r.index, nil, r.proj),
	}
	if in.Limit != nil {
		p.limit = int(*in.Limit)
	}
	t, ix := r.table, r.index
	if r.hash != nil {
		hv, eq, rng, fwd := *r.hash, r.eq, r.rng, r.forward
		p.fetch = func(ctx context.Context, after attr.Item, n int) ([][]byte, error) {
			return a.store.ItemQueryJSON(ctx, t, store.QueryInput{Index: ix, Hash: hv, Eq: eq, Range: rng, Forward: fwd, After: after, Limit: n})
		}
	} else {
		p.fetch = func(ctx context.Context, after attr.Item, n int) ([][]byte, error) {
			return a.store.ItemScanJSON(ctx, t, store.ScanInput{Index: ix, Segment: 0, TotalSegments: 1, After: after, Limit: n})
		}
	}
	res, err := a.run(ctx, p)
	if err != nil {
		return nil, err
	}
	if items, ok := res["Items"].([]attr.Item); ok && r.proj != nil {
		for i, it := range items {
			items[i] = pqSelectShape(r.proj, it)
		}
	}
	out := map[string]any{"Items": res["Items"]}
	if lk, ok := res["LastEvaluatedKey"].(attr.Item); ok && lk != nil {
		out["NextToken"] = encodeNextToken(hash, lk)
		out["LastEvaluatedKey"] = lk
	}
	if cc, ok := res["ConsumedCapacity"]; ok {
		out["ConsumedCapacity"] = cc
	}
	return out, nil
}

// keyRead is a SELECT by full primary key (BatchExecuteStatement and
// ExecuteTransaction reads).
type keyRead struct {
	table  *store.Table
	key    attr.Item
	filter *expr.Condition
	proj   *expr.Projection
}

func (a *API) prepareKeyRead(ctx context.Context, st *partiql.Statement, params []attr.Value, missing, onIndex string) (*keyRead, error) {
	if st.Index != "" {
		return nil, ValidationError("%s", onIndex)
	}
	t, err := a.tableFor(ctx, st.Table)
	if err != nil {
		return nil, err
	}
	c := partiql.NewCompiler(params)
	kr := &keyRead{table: t}
	if kr.key, err = fullKey(c, t, st.Where, missing); err != nil {
		return nil, err
	}
	if err := checkKey(t, kr.key); err != nil {
		return nil, err
	}
	var projText, condText string
	if !st.Star {
		projText = c.Projection(st.Projection)
	}
	if condText, err = c.Condition(st.Where); err != nil {
		return nil, pqErr(err)
	}
	ectx, err := pqContext(c)
	if err != nil {
		return nil, err
	}
	if projText != "" {
		if kr.proj, err = expr.ParseProjection(projText, ectx); err != nil {
			return nil, exprErr(err)
		}
	}
	if kr.filter, err = expr.ParseCondition(expr.KindFilter, condText, ectx); err != nil {
		return nil, exprErr(err)
	}
	return kr, nil
}

// result is the item a key read gives: nil when absent or filtered out.
func (kr *keyRead) result(it attr.Item) (attr.Item, error) {
	if it == nil {
		return nil, nil
	}
	ok, err := holds(kr.filter, it)
	if err != nil || !ok {
		return nil, err
	}
	if kr.proj != nil {
		return pqSelectShape(kr.proj, kr.proj.Apply(it)), nil
	}
	return it, nil
}

// pqSelectShape renames a projected item the way PartiQL's SELECT names
// its columns: a nested path ending in a name (SELECT m.nested) gives that
// name (nested: …), not the document structure a ProjectionExpression keeps
// (measured by a conformance suite). Top-level names, and paths ending in a
// list index, keep the projection's shape.
func pqSelectShape(proj *expr.Projection, projected attr.Item) attr.Item {
	out := attr.Item{}
	for _, path := range proj.Paths() {
		last := path[len(path)-1]
		if len(path) == 1 || last.IsIndex {
			name := path[0].Name
			if v, ok := projected[name]; ok {
				out[name] = v
			}
			continue
		}
		if v, ok := path.Get(projected); ok {
			out[last.Name] = v
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// ExecuteStatement

func (a *API) executeStatement(ctx context.Context, r *Request) (any, error) {
	var in executeStatementInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraintErrors
	checkStatementMember(&c, in.Statement, "statement")
	if in.Parameters != nil && len(in.Parameters) < 1 {
		c.add(strp("[]"), "parameters", "Member must have length greater than or equal to 1")
	}
	checkEnum(&c, in.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnCapacity)
	checkLimit(&c, in.Limit)
	checkEnum(&c, in.ReturnValuesOnConditionCheckFailure, "returnValuesOnConditionCheckFailure", enumReturnOnConditon)
	if in.NextToken != nil && len(*in.NextToken) < 1 {
		c.add(in.NextToken, "nextToken", "Member must have length greater than or equal to 1")
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	st, err := parseStatement(*in.Statement, in.Parameters)
	if err != nil {
		return nil, err
	}
	switch st.Kind {
	case partiql.Select:
		return a.runSelect(ctx, st, &in)
	case partiql.Exists:
		return nil, ValidationError("%s", msgPQExistsOutsideTx)
	}
	w, err := a.prepareWrite(ctx, st, in.Parameters, in.ReturnValuesOnConditionCheckFailure)
	if err != nil {
		return nil, err
	}
	old, cur, err := a.runWrite(ctx, w)
	if err != nil {
		return nil, err
	}
	items := []attr.Item{}
	if ret := w.returned(old, cur); ret != nil && w.returning != "" {
		items = append(items, ret)
	}
	out := map[string]any{"Items": items}
	if cc := consumed(in.ReturnConsumedCapacity, w.table, writeUnits(old.Size(), cur.Size()), indexWriteUnits(w.table, old, cur)); cc != nil {
		out["ConsumedCapacity"] = cc
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// BatchExecuteStatement

// batchErrorCode is the Code of a statement's Error in a batch response.
func batchErrorCode(e *Error) string {
	switch n := e.Name(); n {
	case "ValidationException":
		return "ValidationError"
	case "ConditionalCheckFailedException":
		return "ConditionalCheckFailed"
	case "ResourceNotFoundException":
		return "ResourceNotFound"
	case "DuplicateItemException":
		return "DuplicateItem"
	case "TransactionConflictException":
		return "TransactionConflict"
	case "ItemCollectionSizeLimitExceededException":
		return "ItemCollectionSizeLimitExceeded"
	default:
		if len(n) > len("Exception") && n[len(n)-len("Exception"):] == "Exception" {
			return n[:len(n)-len("Exception")]
		}
		return n
	}
}

// batchError renders a statement's failure, or returns the error when it
// is a server fault that fails the whole request.
func batchError(err error, tableName string) (map[string]any, error) {
	var e *Error
	if !errors.As(err, &e) {
		return nil, err
	}
	body := map[string]any{"Code": batchErrorCode(e), "Message": e.Message}
	if it, ok := e.Extra["Item"]; ok {
		body["Item"] = it
	}
	out := map[string]any{"Error": body}
	if tableName != "" && e.Name() != "ValidationException" {
		out["TableName"] = tableName
	}
	return out, nil
}

func (a *API) batchExecuteStatement(ctx context.Context, r *Request) (any, error) {
	var in batchExecuteStatementInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraintErrors
	c.notNull(in.Statements != nil, "statements")
	if in.Statements != nil && len(in.Statements) < 1 {
		c.add(strp("[]"), "statements", "Member must have length greater than or equal to 1")
	}
	if len(in.Statements) > maxBatchStatements {
		c.add(strp(fmt.Sprintf("[%d items]", len(in.Statements))), "statements", "Member must have length less than or equal to 25")
	}
	for i, s := range in.Statements {
		checkStatementMember(&c, s.Statement, fmt.Sprintf("statements.%d.member.statement", i+1))
		if s.Parameters != nil && len(s.Parameters) < 1 {
			c.add(strp("[]"), fmt.Sprintf("statements.%d.member.parameters", i+1), "Member must have length greater than or equal to 1")
		}
		checkEnum(&c, s.ReturnValuesOnConditionCheckFailure, fmt.Sprintf("statements.%d.member.returnValuesOnConditionCheckFailure", i+1), enumReturnOnConditon)
	}
	checkEnum(&c, in.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnCapacity)
	if err := c.err(); err != nil {
		return nil, err
	}
	// Parse every statement first: a statement that does not parse gets its
	// Error; reads and writes cannot be mixed.
	parsed := make([]*partiql.Statement, len(in.Statements))
	parseErrs := make([]error, len(in.Statements))
	reads, writes := false, false
	for i, s := range in.Statements {
		st, err := parseStatement(*s.Statement, s.Parameters)
		if err == nil && st.Kind == partiql.Exists {
			err = ValidationError("%s", msgPQExistsOutsideTx)
		}
		if err != nil {
			parseErrs[i] = err
			continue
		}
		parsed[i] = st
		if st.Kind == partiql.Select {
			reads = true
		} else {
			writes = true
		}
	}
	if reads && writes {
		return nil, ValidationError("Read and write requests together in the same batch is not supported.")
	}
	responses := make([]map[string]any, len(in.Statements))
	tables := map[string]*store.Table{}
	units := map[string]float64{}
	for i, s := range in.Statements {
		st := parsed[i]
		var res map[string]any
		var err error
		table := ""
		if st == nil {
			err = parseErrs[i]
		} else {
			table = st.Table
			if st.Kind == partiql.Select {
				res, err = a.batchRead(ctx, st, s, tables, units)
			} else {
				res, err = a.batchWrite(ctx, st, s, tables, units)
			}
		}
		if err != nil {
			if res, err = batchError(err, table); err != nil {
				return nil, err
			}
		}
		responses[i] = res
	}
	out := map[string]any{"Responses": responses}
	if ccs := txCapacity(in.ReturnConsumedCapacity, tables, units, nil, "CapacityUnits"); ccs != nil {
		out["ConsumedCapacity"] = ccs
	}
	return out, nil
}

func (a *API) batchRead(ctx context.Context, st *partiql.Statement, s batchStatementRequest, tables map[string]*store.Table, units map[string]float64) (map[string]any, error) {
	kr, err := a.prepareKeyRead(ctx, st, s.Parameters, "Only single item select is supported", "Only single item select is supported")
	if err != nil {
		return nil, err
	}
	it, err := a.store.ItemGet(ctx, kr.table, kr.key)
	if err != nil {
		return nil, storeErr(err, "batch execute read")
	}
	tables[kr.table.Name] = kr.table
	units[kr.table.Name] += readUnits(it.Size(), s.ConsistentRead != nil && *s.ConsistentRead)
	res := map[string]any{"TableName": kr.table.Name}
	got, err := kr.result(it)
	if err != nil {
		return nil, err
	}
	if got != nil {
		res["Item"] = got
	}
	return res, nil
}

func (a *API) batchWrite(ctx context.Context, st *partiql.Statement, s batchStatementRequest, tables map[string]*store.Table, units map[string]float64) (map[string]any, error) {
	w, err := a.prepareWrite(ctx, st, s.Parameters, s.ReturnValuesOnConditionCheckFailure)
	if err != nil {
		return nil, err
	}
	old, cur, err := a.runWrite(ctx, w)
	if err != nil {
		return nil, err
	}
	tables[w.table.Name] = w.table
	units[w.table.Name] += writeUnits(old.Size(), cur.Size())
	return map[string]any{"TableName": w.table.Name}, nil
}

// ---------------------------------------------------------------------------
// ExecuteTransaction

func (a *API) executeTransaction(ctx context.Context, r *Request) (any, error) {
	var in executeTransactionInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraintErrors
	c.notNull(in.TransactStatements != nil, "transactStatements")
	if in.TransactStatements != nil && len(in.TransactStatements) < 1 {
		c.add(strp("[]"), "transactStatements", "Member must have length greater than or equal to 1")
	}
	if len(in.TransactStatements) > maxTransactItems {
		c.add(strp(fmt.Sprintf("[%d items]", len(in.TransactStatements))), "transactStatements", "Member must have length less than or equal to 100")
	}
	for i, s := range in.TransactStatements {
		checkStatementMember(&c, s.Statement, fmt.Sprintf("transactStatements.%d.member.statement", i+1))
		if s.Parameters != nil && len(s.Parameters) < 1 {
			c.add(strp("[]"), fmt.Sprintf("transactStatements.%d.member.parameters", i+1), "Member must have length greater than or equal to 1")
		}
		checkEnum(&c, s.ReturnValuesOnConditionCheckFailure, fmt.Sprintf("transactStatements.%d.member.returnValuesOnConditionCheckFailure", i+1), enumReturnOnConditon)
	}
	checkEnum(&c, in.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnCapacity)
	checkClientToken(&c, in.ClientRequestToken)
	if err := c.err(); err != nil {
		return nil, err
	}
	parsed := make([]*partiql.Statement, len(in.TransactStatements))
	reads := false
	for i, s := range in.TransactStatements {
		st, err := parseStatement(*s.Statement, s.Parameters)
		if err != nil {
			var e *Error
			if errors.As(err, &e) && e.Name() == "ValidationException" {
				return nil, ValidationError("Validation failed in TransactStatements[%d]: %s", i, e.Message)
			}
			return nil, err
		}
		isRead := st.Kind == partiql.Select
		if i == 0 {
			reads = isRead
		} else if reads != isRead {
			return nil, ValidationError("ExecuteTransaction API does not support both read and write operations in the same request.")
		}
		parsed[i] = st
	}
	txs := a.store
	if reads {
		return a.transactReads(ctx, txs, &in, parsed)
	}
	return a.transactWrites(ctx, txs, &in, parsed)
}

func (a *API) transactReads(ctx context.Context, txs store.Transactions, in *executeTransactionInput, parsed []*partiql.Statement) (any, error) {
	reads := make([]*keyRead, len(parsed))
	targets := make([]store.TxTarget, len(parsed))
	seen := map[string]bool{}
	for i, st := range parsed {
		kr, err := a.prepareKeyRead(ctx, st, in.TransactStatements[i].Parameters,
			"Select statements within ExecuteTransaction must specify the primary key in the where clause.",
			fmt.Sprintf("Validation failed in TransactStatements[%d]: Reads on indices are not supported within transactions.", i))
		if err != nil {
			return nil, err
		}
		id := kr.table.Name + "\x00" + keyString(kr.table, kr.key)
		if seen[id] {
			return nil, ValidationError("Transaction request cannot include multiple operations on one item")
		}
		seen[id] = true
		reads[i] = kr
		targets[i] = store.TxTarget{Table: kr.table, Key: kr.key}
	}
	items, err := txs.ItemGetMany(ctx, targets)
	if err != nil {
		return nil, storeErr(err, "execute transaction read")
	}
	responses := make([]map[string]any, len(items))
	units := map[string]float64{}
	tables := map[string]*store.Table{}
	for i, it := range items {
		responses[i] = map[string]any{}
		units[targets[i].Table.Name] += 2 * readUnits(it.Size(), true)
		tables[targets[i].Table.Name] = targets[i].Table
		got, err := reads[i].result(it)
		if err != nil {
			return nil, err
		}
		if got != nil {
			responses[i]["Item"] = got
		}
	}
	out := map[string]any{"Responses": responses}
	if ccs := txCapacity(in.ReturnConsumedCapacity, tables, units, nil, "ReadCapacityUnits"); ccs != nil {
		out["ConsumedCapacity"] = ccs
	}
	return out, nil
}

func (a *API) transactWrites(ctx context.Context, txs store.Transactions, in *executeTransactionInput, parsed []*partiql.Statement) (any, error) {
	writes := make([]*pqWrite, len(parsed))
	targets := make([]store.TxTarget, len(parsed))
	seen := map[string]bool{}
	for i, st := range parsed {
		if st.Returning != "" {
			return nil, ValidationError("Validation failed in TransactStatements[%d]: RETURNING clause is not supported in ExecuteTransaction.", i)
		}
		w, err := a.prepareWrite(ctx, st, in.TransactStatements[i].Parameters, in.TransactStatements[i].ReturnValuesOnConditionCheckFailure)
		if err != nil {
			return nil, err
		}
		id := w.table.Name + "\x00" + keyString(w.table, w.key)
		if seen[id] {
			return nil, ValidationError("Transaction request cannot include multiple operations on one item")
		}
		seen[id] = true
		writes[i] = w
		targets[i] = store.TxTarget{Table: w.table, Key: w.key}
	}
	var olds []attr.Item
	var txw []store.TxWrite
	fn := func(cur []attr.Item) ([]store.TxWrite, error) {
		out, err := applyPQWrites(writes, cur)
		olds, txw = cur, out
		return out, err
	}
	replayed, err := commitTransaction(ctx, txs, targets, in.ClientRequestToken, in.TransactStatements, fn, "execute transaction")
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	if !replayed && wantsCapacity(in.ReturnConsumedCapacity) {
		actions := make([]*txAction, len(writes))
		for i, w := range writes {
			kind := "Put"
			switch w.kind {
			case partiql.Exists:
				kind = "ConditionCheck"
			case partiql.Delete:
				kind = "Delete"
			}
			actions[i] = &txAction{kind: kind, table: w.table, key: w.key}
		}
		out["ConsumedCapacity"] = txWriteCapacity(in.ReturnConsumedCapacity, actions, olds, txw)
	}
	return out, nil
}

// applyPQWrites evaluates every statement of a transaction against the
// current items; any failure cancels all of them with one reason each.
func applyPQWrites(writes []*pqWrite, olds []attr.Item) ([]store.TxWrite, error) {
	out := make([]store.TxWrite, len(writes))
	reasons := make([]map[string]any, len(writes))
	failed := false
	for i, w := range writes {
		reasons[i] = map[string]any{"Code": "None"}
		next, write, err := w.next(olds[i])
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				return nil, err
			}
			failed = true
			switch e.Name() {
			case "ConditionalCheckFailedException":
				r := map[string]any{"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}
				if it, ok := e.Extra["Item"]; ok {
					r["Item"] = it
				}
				reasons[i] = r
			case "DuplicateItemException":
				reasons[i] = map[string]any{"Code": "DuplicateItem", "Message": msgPQDuplicateItem}
			default:
				reasons[i] = map[string]any{"Code": "ValidationError", "Message": e.Message}
			}
			continue
		}
		switch {
		case !write:
		case next == nil:
			out[i] = store.TxWrite{Delete: true}
		default:
			out[i] = store.TxWrite{Put: next}
		}
	}
	if failed {
		return nil, cancellation(reasons)
	}
	return out, nil
}
