package pgstore

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// ItemPut writes item whole in one round trip (tableStmts.put: the table's
// statements, pipelined): no BEGIN, lock, write and COMMIT round trips;
// when the caller does not want the old item (store.OldUnneeded) and the
// table has no stream, the data row's statement is the plain upsert
// (tableStmts.upsert), which does not read it.
// Deadlocks and serialization failures (among them a lost insert race) are
// retried as ItemWrite retries them. On a table with a local index it is
// ItemWrite, which sizes the item's collection (collections.go).
func (s *Store) ItemPut(ctx context.Context, t *store.Table, item attr.Item) (attr.Item, error) {
	if t.HasLocalIndex() {
		return s.ItemWrite(ctx, t, t.KeyOf(item), func(attr.Item) (attr.Item, error) { return item, nil })
	}
	ts, err := s.writeStmts(ctx, t)
	if err != nil {
		return nil, err
	}
	put := ts.put
	if store.OldUnneeded(ctx) && !ts.stream.Enabled {
		put = ts.upsert // its old is nil: not read
	}
	w, err := put(item)
	if err != nil {
		return nil, err
	}
	keyJSON := encodeItem(t.KeyOf(item))
	old, err := s.blindWrite(ctx, "item put", t, func() ([]byte, error) { return s.queryOld(ctx, t.ID, keyJSON, w) })
	if err == nil && ts.guardable() {
		// What an UpdateItem of the item will believe (guarded.go).
		s.images.put(t.ID, keyJSON, image{raw: w.args[0].([]byte)})
	}
	return old, err
}

// ItemRemove deletes the item with key in one round trip (tableStmts.remove);
// on a table with a local index, or whose writes keep index rows, it is
// ItemWrite (blindRemoveSafe).
func (s *Store) ItemRemove(ctx context.Context, t *store.Table, key attr.Item) (attr.Item, error) {
	remove := func() (attr.Item, error) {
		return s.ItemWrite(ctx, t, key, func(attr.Item) (attr.Item, error) { return nil, nil })
	}
	if t.HasLocalIndex() {
		return remove()
	}
	ts, err := s.writeStmts(ctx, t)
	if err != nil {
		return nil, err
	}
	if !ts.blindRemoveSafe() {
		return remove()
	}
	keyJSON := encodeItem(t.KeyOf(key))
	w := ts.remove(keyJSON)
	return s.blindWrite(ctx, "item remove", t, func() ([]byte, error) { return s.queryOld(ctx, t.ID, keyJSON, w) })
}

// queryOld runs w, the write of the item at keyJSON of table, in one
// implicit transaction, and returns the old item its data row's statement
// returns. The transaction is shared with the other writes in flight
// (coalesce.go) unless w queues the item for async indexes: pipelined,
// those cost PostgreSQL more and ran no faster.
func (s *Store) queryOld(ctx context.Context, table int64, keyJSON []byte, w itemWrite) ([]byte, error) {
	var raw []byte
	if w.enqueues {
		b := &pgx.Batch{}
		err := s.sendBatch(ctx, b, w.queue(b, nil, &raw))
		if err == nil {
			s.wakeWorkers()
		}
		return raw, err
	}
	err := s.writes.write(ctx, table, keyJSON, w, &raw)
	return raw, err
}

// blindWrite runs one statement returning the old item, retrying what
// ItemWrite retries.
func (s *Store) blindWrite(ctx context.Context, op string, t *store.Table, stmt func() ([]byte, error)) (attr.Item, error) {
	var old attr.Item
	err := s.retryTx(ctx, op, []any{"table", t.Name}, func() (bool, error) {
		raw, err := stmt()
		if err != nil {
			return retryable(err), wrap(op, err)
		}
		old, err = decodeItem(raw)
		return false, err
	})
	if err != nil {
		return nil, err
	}
	return old, nil
}

// ItemWriteMany runs every op's put or remove (tableStmts.put,
// tableStmts.remove) in one pipeline: one round trip and one implicit
// transaction, in lockOrder (table id, then key) so that two batches never
// wait on each other in a cycle.
// Deadlocks with other writers and serialization failures are retried as
// ItemWrite retries them. When an op's table has a local index, or one of
// its deletes is on a table whose writes keep index rows
// (blindRemoveSafe), the ops are one ItemTransact instead.
func (s *Store) ItemWriteMany(ctx context.Context, ops []store.WriteOp) ([]attr.Item, error) {
	targets := make([]store.TxTarget, len(ops))
	for i, o := range ops {
		targets[i] = store.TxTarget{Table: o.Table, Key: o.Key}
	}
	if slices.ContainsFunc(ops, func(o store.WriteOp) bool { return o.Table.HasLocalIndex() }) {
		return s.itemWriteManyLocked(ctx, targets, ops)
	}
	order := lockOrder(targets)
	if err := s.withWriteStmts(ctx, order); err != nil {
		return nil, err
	}
	if slices.ContainsFunc(order, func(o txTarget) bool { return ops[o.pos].Put == nil && !o.stmts.blindRemoveSafe() }) {
		return s.itemWriteManyLocked(ctx, targets, ops)
	}
	stmts := make([]itemWrite, len(order))
	for i, o := range order {
		op := ops[o.pos]
		if op.Put == nil {
			stmts[i] = o.stmts.remove(o.key)
			continue
		}
		var err error
		if stmts[i], err = o.stmts.put(op.Put); err != nil {
			return nil, err
		}
	}
	var olds []attr.Item
	err := s.retryTx(ctx, "item write many", []any{"ops", len(ops)}, func() (bool, error) {
		b := &pgx.Batch{}
		raws := make([][]byte, len(order))
		var dest []any
		for i, st := range stmts {
			dest = st.queue(b, dest, &raws[i])
		}
		if err := s.sendBatch(ctx, b, dest); err != nil {
			return retryable(err), wrap("item write many", err)
		}
		if slices.ContainsFunc(stmts, func(w itemWrite) bool { return w.enqueues }) {
			s.wakeWorkers()
		}
		var err error
		olds, err = itemsInCallerOrder(order, raws)
		return false, err
	})
	if err != nil {
		return nil, err
	}
	for i, o := range order {
		if o.stmts.guardable() {
			// What an UpdateItem of the item will believe (guarded.go),
			// as after ItemPut: a table loaded by BatchWriteItem is
			// updated in one round trip.
			var im image
			if ops[o.pos].Put != nil {
				im.raw = stmts[i].args[0].([]byte)
			}
			s.images.put(o.t.ID, o.key, im)
		}
	}
	return olds, nil
}

// itemWriteManyLocked is ItemWriteMany as one ItemTransact of its ops.
func (s *Store) itemWriteManyLocked(ctx context.Context, targets []store.TxTarget, ops []store.WriteOp) ([]attr.Item, error) {
	var olds []attr.Item
	err := s.ItemTransact(ctx, targets, func(cur []attr.Item) ([]store.TxWrite, error) {
		olds = cur
		writes := make([]store.TxWrite, len(ops))
		for i, o := range ops {
			writes[i] = store.TxWrite{Put: o.Put, Delete: o.Put == nil}
		}
		return writes, nil
	})
	if err != nil {
		return nil, err
	}
	return olds, nil
}

// sendBatch sends b on a pool connection and scans one row per statement
// into dest, returning the first error.
func (s *Store) sendBatch(ctx context.Context, b *pgx.Batch, dest []any) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	return runBatch(ctx, conn, b, dest...)
}
