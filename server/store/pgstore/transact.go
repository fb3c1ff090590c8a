package pgstore

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// txTarget is one target of ItemTransact as the functions take it.
type txTarget struct {
	t   *store.Table
	key []byte // encodeItem(t.KeyOf(key)): the key attributes only
	pos int    // index in the caller's targets
	// stmts is t's write statements (writeStmts), set by withWriteStmts
	// before any connection is taken.
	stmts *tableStmts
	// hash is the partition key value (encodeValue) when t has a local
	// index; coll is then the index of its collection in the transaction's
	// (collectionsOf), -1 otherwise.
	hash []byte
	coll int
}

// lockOrder is targets in the canonical locking order: table id, then key
// encoding. Every transaction locks in this order, so two of them never wait
// on each other's rows in a cycle.
func lockOrder(targets []store.TxTarget) []txTarget {
	order := make([]txTarget, len(targets))
	for i, tg := range targets {
		order[i] = txTarget{t: tg.Table, key: encodeItem(tg.Table.KeyOf(tg.Key)), pos: i, coll: -1}
		if tg.Table.HasLocalIndex() {
			order[i].hash = encodeValue(tg.Key[tg.Table.Hash.Name])
		}
	}
	slices.SortFunc(order, func(a, b txTarget) int {
		if c := cmp.Compare(a.t.ID, b.t.ID); c != 0 {
			return c
		}
		return bytes.Compare(a.key, b.key)
	})
	return order
}

// withWriteStmts sets the stmts field of every target, before the caller
// holds a connection (writeStmts may take one). Targets of one description
// (adjacent in lockOrder) share their statements.
func (s *Store) withWriteStmts(ctx context.Context, order []txTarget) error {
	for i := range order {
		if i > 0 && order[i-1].t == order[i].t {
			order[i].stmts = order[i-1].stmts
			continue
		}
		ts, err := s.writeStmts(ctx, order[i].t)
		if err != nil {
			return err
		}
		order[i].stmts = ts
	}
	return nil
}

// ItemTransact changes several items in one transaction: it checks each
// target's catalog row and locks its item FOR UPDATE (pipelined, in
// lockOrder), then the counters of their item collections (collections.go),
// calls fn with the items in the caller's order, then writes fn's answer
// for each target in lockOrder through the statements ItemWrite uses
// (index, queue and stream statements included) with the collections' new
// sizes, all of them in one pipeline, and commits. Lost insert races, deadlocks and
// serialization failures roll back and start over, up to writeAttempts
// transactions, then ErrConflict; fn's error is returned as is.
func (s *Store) ItemTransact(ctx context.Context, targets []store.TxTarget, fn store.TxFunc) error {
	order := lockOrder(targets)
	if err := s.withWriteStmts(ctx, order); err != nil {
		return err
	}
	return s.retryTx(ctx, "item transact", []any{"targets", len(targets)}, func() (bool, error) {
		retry, _, err := s.itemTransactOnce(ctx, order, nil, fn)
		return s.sizeUnsized(ctx, retry, err)
	})
}

// itemTransactOnce runs one transaction of ItemTransact (or of
// ItemTransactToken when tok is not nil: the token is claimed first, see
// claimToken); retry reports that it should run again, replayed that a live
// token of the same request ended it without writing.
func (s *Store) itemTransactOnce(ctx context.Context, order []txTarget, tok *store.TxToken, fn store.TxFunc) (retry, replayed bool, err error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return false, false, wrap("item transact", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))

	if tok != nil {
		claimed, err := s.claimToken(ctx, tx, tok)
		if err != nil {
			if err == store.ErrTokenMismatch {
				return false, false, err
			}
			return retryable(err), false, wrap("item transact", err)
		}
		if !claimed {
			return false, true, nil // the rollback releases the token's row
		}
	}
	colls := collectionsOf(order)
	olds, err := s.lockMany(ctx, tx, order, colls)
	if err != nil {
		return retryable(err), false, wrap("item transact", err)
	}
	if err := unsized(colls); err != nil {
		return true, false, err
	}
	args := make([]attr.Item, len(olds))
	for i, old := range olds {
		args[i] = old.Clone()
	}
	writes, err := fn(args)
	if err != nil {
		return false, false, err // unchanged: callers compare it
	}
	if len(writes) != len(order) {
		return false, false, fmt.Errorf("pgstore: item transact: %d writes for %d targets", len(writes), len(order))
	}
	// Every target's write in one pipeline, in lockOrder, after the
	// collections' sizes. A write that does not take effect raises
	// (item_write_sql), aborting the transaction before any later statement
	// runs.
	nus := make([]attr.Item, len(order))
	tally := s.tally(colls)
	for i, o := range order {
		w := writes[o.pos]
		switch {
		case w.Put != nil:
			if !bytes.Equal(encodeItem(o.t.KeyOf(w.Put)), o.key) {
				return false, false, fmt.Errorf("pgstore: item transact: put of target %d changes its key", o.pos)
			}
			nus[i] = w.Put
		case !w.Delete:
			continue // a check
		}
		if o.coll >= 0 {
			tally.Add(colls[o.coll].key(), o.pos, o.t, olds[o.pos], nus[i])
		}
	}
	if err := tally.Check(); err != nil {
		return false, false, err
	}
	b := &pgx.Batch{}
	dest := queueCollectionSets(b, nil, tally)
	oks := make([]bool, len(order))
	for i, o := range order {
		w := writes[o.pos]
		if w.Put == nil && !w.Delete {
			oks[i] = true
			continue // a check: the row lock (if any) made it atomic
		}
		st, err := o.stmts.store(o.key, olds[o.pos], nus[i], false)
		if err != nil {
			return false, false, err
		}
		if st.sql == "" {
			oks[i] = true
			continue
		}
		dest = st.queue(b, dest, &oks[i])
	}
	if b.Len() > 0 {
		if err := runBatch(ctx, tx, b, dest...); err != nil {
			return retryable(err), false, wrap("item transact", err)
		}
	}
	if slices.Contains(oks, false) {
		// The insert found the key taken, or the locked row vanished
		// (cannot happen): start over.
		return true, false, wrap("item transact", errLostInsert)
	}
	if err := tx.Commit(ctx); err != nil {
		return retryable(err), false, wrap("item transact", err)
	}
	if slices.ContainsFunc(order, func(o txTarget) bool { return o.stmts.queued }) {
		s.wakeWorkers()
	}
	return false, false, nil
}

// lockMany locks and reads the targets in one pipelined round trip, in the
// order given (each target's lock statement: the catalog check, then the
// item), then the collections colls (their sizes read into them), and
// returns the items in the caller's order (by pos).
func (s *Store) lockMany(ctx context.Context, tx pgx.Tx, order []txTarget, colls []collection) ([]attr.Item, error) {
	b := &pgx.Batch{}
	for _, o := range order {
		st := o.stmts.lock(o.key)
		b.Queue(st.sql, st.args...)
	}
	raws := make([][]byte, len(order))
	dest := make([]any, len(order), len(order)+len(colls))
	for i := range raws {
		dest[i] = &raws[i]
	}
	dest = lockCollections(b, dest, colls)
	if err := runBatch(ctx, tx, b, dest...); err != nil {
		return nil, err
	}
	return itemsInCallerOrder(order, raws)
}

// itemsInCallerOrder decodes raws, one per target in order, into the
// caller's order (by pos).
func itemsInCallerOrder(order []txTarget, raws [][]byte) ([]attr.Item, error) {
	olds := make([]attr.Item, len(order))
	for i, o := range order {
		it, err := decodeItem(raws[i])
		if err != nil {
			return nil, err
		}
		olds[o.pos] = it
	}
	return olds, nil
}

// ItemGetMany reads the targets in one pipelined round trip: BEGIN
// ISOLATION LEVEL REPEATABLE READ READ ONLY, the reads, COMMIT, so that they
// come from one snapshot. A table with getManyMinKeys targets or more is
// read by one statement (item_get_many_sql); one with fewer by one
// statement per key (ItemGet's item_get_sql). All are prepared. Absent
// items are nil; a table gone or DELETING (its statement returns no row) is
// ErrTableNotFound.
func (s *Store) ItemGetMany(ctx context.Context, targets []store.TxTarget) ([]attr.Item, error) {
	raws, err := s.ItemGetManyJSON(ctx, targets)
	if err != nil {
		return nil, err
	}
	out := make([]attr.Item, len(raws))
	for i, raw := range raws {
		if raw == nil {
			continue
		}
		if out[i], err = attr.DecodeItem(raw); err != nil {
			return nil, fmt.Errorf("pgstore: decode item: %w", err)
		}
	}
	return out, nil
}

// ItemGetManyJSON is ItemGetMany's items as wire JSON.
func (s *Store) ItemGetManyJSON(ctx context.Context, targets []store.TxTarget) ([][]byte, error) {
	if len(targets) == 0 {
		return [][]byte{}, nil
	}
	// The targets by table, in the order the tables first appear.
	type tableKeys struct {
		id   int64
		keys [][]byte
		pos  []int
		raws [][]byte
	}
	var order []*tableKeys
	byTable := map[int64]*tableKeys{}
	for i, tg := range targets {
		g := byTable[tg.Table.ID]
		if g == nil {
			g = &tableKeys{id: tg.Table.ID}
			byTable[g.id] = g
			order = append(order, g)
		}
		g.keys = append(g.keys, encodeItem(tg.Table.KeyOf(tg.Key)))
		g.pos = append(g.pos, i)
	}
	// Before the connection: the statement texts may take one of their own.
	b := &pgx.Batch{}
	b.Queue(gen.TxBeginSnapshot)
	dest := []any{nil}
	for _, g := range order {
		if len(g.keys) >= getManyMinKeys {
			stmt, err := s.itemGetManyStmt(ctx, g.id)
			if err != nil {
				return nil, err
			}
			b.Queue(stmt, g.keys)
			dest = append(dest, &g.raws)
			continue
		}
		stmt, err := s.itemGetStmt(ctx, g.id)
		if err != nil {
			return nil, err
		}
		g.raws = make([][]byte, len(g.keys))
		for k, key := range g.keys {
			b.Queue(stmt, key)
			dest = append(dest, &g.raws[k])
		}
	}
	b.Queue(gen.TxCommit)
	dest = append(dest, nil)

	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, wrap("item get many", err)
	}
	defer func() {
		if conn.Conn().PgConn().TxStatus() != 'I' {
			// A failed read leaves the transaction open (the pipeline
			// skipped the COMMIT); a broken connection fails here too.
			s.q.TxRollback(context.WithoutCancel(ctx), conn)
		}
		conn.Release()
	}()
	if err := runBatch(ctx, conn, b, dest...); err != nil {
		return nil, wrap("item get many", err) // no row: a table is gone (ErrTableNotFound)
	}
	out := make([][]byte, len(targets))
	for _, g := range order {
		if len(g.raws) != len(g.pos) {
			return nil, fmt.Errorf("pgstore: item get many: %d items for %d keys", len(g.raws), len(g.pos))
		}
		// Each row is a copy of its own (or its own part of the array):
		// compacted in place, as a read's rows (wireRead).
		for k, raw := range g.raws {
			if raw != nil {
				out[g.pos[k]] = unescapeJSON(appendCompactJSON(raw[:0], raw))
			}
		}
	}
	return out, nil
}

// getManyMinKeys is the fewest keys of one table that ItemGetMany reads
// with item_get_many_sql. Its plan is the same for any number of keys (a
// lookup of the table key per key), but the planner prices the generic plan
// for ten: for fewer keys the plan cache keeps planning the statement on
// every call (92 against 34 µs in EXPLAIN ANALYZE for four keys), and one
// statement per key costs PostgreSQL no more (TransactGetItems of 4 items:
// ~120 µs either way).
const getManyMinKeys = 10

// itemGetManyStmt returns table id's item_get_many_sql text, read once per
// table: like item_get_sql it depends only on the table's id and key schema.
func (s *Store) itemGetManyStmt(ctx context.Context, id int64) (string, error) {
	return cachedText(&s.getManyStmts, id, "item get many", func() (string, error) {
		return s.q.ItemGetManySQL(ctx, s.pool, gen.ItemGetManySQLParams{TableID: id})
	})
}
