package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/store"
)

// A worker step is three parts, in one transaction on the worker's
// connection: the claim (queue_claim_batch, PL/pgSQL), the set-based pass
// per table, here, and the rows that pass left, one item at a time
// (queue_apply_rest, PL/pgSQL, with its lock timeouts and pass-over). The
// set-based pass runs on statements pgx prepares once per connection
// (queue_apply_sql's, and index_write_sql's for each async index, which
// build the index rows from the one definition of the indexing rules,
// index_row_sql) with the key hashes computed in Go, as the writes do
// (prepared.go): a pass in PL/pgSQL planned its dynamic SQL for every
// table of every batch, which at 1,000 writes/s cost more than the writes
// it applied. The statements are pipelined: a step that applies every item
// of one table is three round trips (BEGIN and the claim; the savepoint,
// the catalog and the item locks; the index rows, the queue rows, the
// release and COMMIT).
//
// Only claimed rows are deleted, and only those of items the pass read: a
// claimed row's writer committed before the claim, so before the item was
// read. Unclaimed rows of the same items are left for a later batch, which
// finds the index rows already right.

// queueStep is the outcome of one worker step.
type queueStep struct {
	part                     int32 // first partition taken; -1: nothing claimable
	claimed, applied, passed int
}

// queuedRow is one claimed row of the queue: its id and table, its key as
// claimed, and that key in canonical form (encodeItem).
type queuedRow struct {
	id    int64
	table int64
	key   []byte
	canon string
}

// runQueueStep runs one worker step as worker on conn.
func (s *Store) runQueueStep(ctx context.Context, conn *pgx.Conn, worker string) (r queueStep, err error) {
	open := false
	defer func() {
		if open {
			conn.Exec(context.WithoutCancel(ctx), gen.TxRollback)
		}
	}()
	b := &pgx.Batch{}
	b.Queue(gen.TxBegin)
	b.Queue(gen.QueueClaimBatch, worker)
	br := conn.SendBatch(ctx, b)
	_, err = br.Exec()
	open = err == nil
	var c gen.QueueClaimBatchRow
	if err == nil {
		err = br.QueryRow().Scan(&c.Part, &c.Ids, &c.Tables, &c.Keys)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return r, fmt.Errorf("claim: %w", err)
	}
	r = queueStep{part: c.Part, claimed: len(c.Ids)}
	if c.Part < 0 {
		open = false
		_, err := conn.Exec(ctx, gen.TxCommit)
		return r, err
	}
	rows := make([]queuedRow, len(c.Ids))
	var tables []int64
	for i, k := range c.Keys {
		key, err := decodeItem(k)
		if err != nil {
			return r, err
		}
		rows[i] = queuedRow{id: c.Ids[i], table: c.Tables[i], key: k, canon: string(encodeItem(key))}
		if !slices.Contains(tables, c.Tables[i]) {
			tables = append(tables, c.Tables[i])
		}
	}

	type item struct {
		table int64
		canon string
	}
	settled := make(map[item]bool) // applied, or its table's rows consumed
	all := true                    // every row so far settled
	for n, table := range tables {
		var of []queuedRow
		for _, row := range rows {
			if row.table == table {
				of = append(of, row)
			}
		}
		// The last table's pass commits the step when no row is left.
		res, err := s.queueApplySet(ctx, conn, table, of, all && n == len(tables)-1)
		if res.ended {
			open = false
		}
		if err != nil {
			if ctx.Err() != nil || !open {
				return r, err
			}
			// Undone; the rows go one at a time below, where an error is
			// the item's own.
			s.log.WarnContext(ctx, "queue worker: set apply failed", "worker", worker, "table", table, "err", err)
			all = false
			continue
		}
		r.applied += res.applied
		all = all && res.all
		for _, k := range res.settled {
			settled[item{table, k}] = true
		}
	}
	if !open {
		return r, nil
	}
	var left gen.QueueApplyRestParams
	for _, row := range rows {
		if !settled[item{row.table, row.canon}] {
			left.Ids = append(left.Ids, row.id)
			left.Tables = append(left.Tables, row.table)
			left.Keys = append(left.Keys, row.key)
		}
	}
	if len(left.Ids) > 0 {
		left.Holding = r.applied > 0
		rest, err := s.q.QueueApplyRest(ctx, conn, left)
		if err != nil {
			return r, fmt.Errorf("apply: %w", err)
		}
		r.applied += int(rest.Applied)
		r.passed = int(rest.Passed)
	}
	open = false
	_, err = conn.Exec(ctx, gen.TxCommit)
	return r, err
}

// setResult is the outcome of queueApplySet.
type setResult struct {
	applied int      // items applied
	settled []string // canonical keys whose rows it deleted
	all     bool     // every key settled
	ended   bool     // the step's transaction ended (COMMIT ran, or failed)
}

// queueApplySet is the set-based pass over the claimed rows of one table, in
// a savepoint: the items nobody holds and those absent get their current state
// written to every async index, and their rows are deleted. Items a writer
// holds are left, their rows untouched. On an error nothing of it is left
// (the savepoint is rolled back). A table gone, or left without async
// indexes, has its rows consumed and applies none. With commit, when every
// row turns out settled, it commits the step's transaction in its last
// pipeline.
func (s *Store) queueApplySet(ctx context.Context, conn *pgx.Conn, table int64, rows []queuedRow, commit bool) (res setResult, err error) {
	var keys [][]byte
	var canon []string
	for _, r := range rows {
		if !slices.Contains(canon, r.canon) {
			keys = append(keys, r.key)
			canon = append(canon, r.canon)
		}
	}
	ids := func(pick func(queuedRow) bool) []int64 {
		var out []int64
		for _, r := range rows {
			if pick(r) {
				out = append(out, r.id)
			}
		}
		return out
	}
	inSavepoint := false
	defer func() {
		if err != nil && inSavepoint && !res.ended {
			if _, rerr := conn.Exec(context.WithoutCancel(ctx), gen.QueueSetRollback); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}
		if err != nil {
			res = setResult{ended: res.ended}
		}
	}()

	// One pipeline: the savepoint; the catalog (its own statement: the table
	// lock, then the definition); the items nobody holds, locked. The
	// statement texts are read the first time inside the savepoint, where
	// a table gone fails the pass only.
	b := &pgx.Batch{}
	var qs *gen.QueueApplySQLRow
	if v, ok := s.queueStmts.Load(table); ok {
		qs = v.(*gen.QueueApplySQLRow)
		b.Queue(gen.QueueSetSavepoint)
	} else {
		if _, err = conn.Exec(ctx, gen.QueueSetSavepoint); err != nil {
			return res, err
		}
		inSavepoint = true
		row, err := s.q.QueueApplySQL(ctx, conn, gen.QueueApplySQLParams{TableID: table})
		if err != nil {
			return res, fmt.Errorf("queue statements: %w", err)
		}
		qs = &row
		s.queueStmts.Store(table, qs)
	}
	b.Queue(gen.QueueTableDef, table)
	b.Queue(qs.LockSql, keys)
	br := conn.SendBatch(ctx, b)
	if !inSavepoint {
		_, err = br.Exec()
		inSavepoint = err == nil
	}
	var def []byte
	if err == nil {
		err = br.QueryRow().Scan(&def)
	}
	var raw [][]byte
	var lockErr error
	if err == nil {
		var lrows pgx.Rows
		if lrows, lockErr = br.Query(); lockErr == nil {
			raw, lockErr = pgx.CollectRows(lrows, pgx.RowTo[[]byte])
		}
	}
	if cerr := br.Close(); err == nil && lockErr == nil {
		lockErr = cerr
	}
	if err != nil {
		return res, fmt.Errorf("catalog: %w", err)
	}
	var t *store.Table
	if def != nil {
		if t, err = decodeTable(def); err != nil {
			return res, err
		}
	}
	if t == nil || !slices.ContainsFunc(t.Indexes, func(ix store.Index) bool { return ix.Async() }) {
		// Gone, or left without async indexes: the rows are consumed (the
		// items' storage may be gone too: the locks may have failed).
		b := &pgx.Batch{}
		b.Queue(gen.QueueSetRollback)
		b.Queue(gen.QueueSetRelease)
		b.Queue(gen.QueueRowsDelete, ids(func(queuedRow) bool { return true }))
		if err := runBatch(ctx, conn, b, nil, nil, nil); err != nil {
			return res, fmt.Errorf("consume rows: %w", err)
		}
		inSavepoint = false
		return setResult{settled: canon, all: true}, nil
	}
	if lockErr != nil {
		return res, fmt.Errorf("lock items: %w", lockErr)
	}
	items, err := decodeItems(raw)
	if err != nil {
		return res, err
	}
	applied := make(map[string]bool, len(keys))
	for _, it := range items {
		applied[string(encodeItem(t.KeyOf(it)))] = true
	}
	// Which of the others are absent, in a later statement: a row skipped
	// because its writer holds it exists, or is being inserted (its writer
	// then queues a row of its own).
	var others [][]byte
	for i, k := range keys {
		if !applied[canon[i]] {
			others = append(others, k)
		}
	}
	if len(others) > 0 {
		rows, err := conn.Query(ctx, qs.AbsentSql, others)
		if err != nil {
			return res, fmt.Errorf("absent items: %w", err)
		}
		absent, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
		if err != nil {
			return res, fmt.Errorf("absent items: %w", err)
		}
		for _, k := range absent {
			key, err := decodeItem(k)
			if err != nil {
				return res, err
			}
			applied[string(encodeItem(key))] = true
		}
	}

	// One pipeline: every async index's rows of every applied key deleted,
	// the locked items' projections inserted; the claimed rows of those
	// keys deleted; the savepoint released; COMMIT when nothing is left.
	b = &pgx.Batch{}
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if !ix.Async() {
			continue
		}
		st, err := s.indexWriteStmts(ctx, conn, table, ix.ID)
		if err != nil {
			return res, err
		}
		for k := range applied {
			b.Queue(st.DeleteSql, []byte(k))
		}
		for j, it := range items {
			// The statement writes a row only where the item is indexable.
			b.Queue(st.InsertSql, raw[j], keyHash(ix.Hash.Name, it))
		}
	}
	b.Queue(gen.QueueRowsDelete, ids(func(r queuedRow) bool { return applied[r.canon] }))
	b.Queue(gen.QueueSetRelease)
	commit = commit && len(applied) == len(keys)
	if commit {
		b.Queue(gen.TxCommit)
	}
	br = conn.SendBatch(ctx, b)
	for i := range b.Len() {
		if _, err = br.Exec(); err != nil {
			// A failure before COMMIT skips it: the savepoint is undone.
			res.ended = commit && i == b.Len()-1
			break
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return res, fmt.Errorf("write index rows: %w", err)
	}
	inSavepoint = false
	res = setResult{applied: len(applied), all: len(applied) == len(keys), ended: commit}
	for k := range applied {
		res.settled = append(res.settled, k)
	}
	return res, nil
}
