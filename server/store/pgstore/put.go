package pgstore

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// ItemPut writes item whole in one round trip (putStatement: the table's
// prepared statements, pipelined, or dynamopg.item_put): no BEGIN, lock,
// write and COMMIT round trips. Deadlocks and serialization failures
// (among them a prepared put's lost insert race) are retried as ItemWrite
// retries them.
func (s *Store) ItemPut(ctx context.Context, t *store.Table, item attr.Item) (attr.Item, error) {
	size := item.Size()
	if size > math.MaxInt32 {
		return nil, fmt.Errorf("pgstore: item put: item of %d bytes", size)
	}
	st, err := s.putStatement(ctx, t, item, int32(size))
	if err != nil {
		return nil, err
	}
	return s.blindWrite(ctx, "item put", t, func() ([]byte, error) { return s.queryOld(ctx, st) })
}

// ItemRemove deletes the item with key in one round trip (removeStatement).
func (s *Store) ItemRemove(ctx context.Context, t *store.Table, key attr.Item) (attr.Item, error) {
	st, err := s.removeStatement(ctx, t, encodeItem(key))
	if err != nil {
		return nil, err
	}
	return s.blindWrite(ctx, "item remove", t, func() ([]byte, error) { return s.queryOld(ctx, st) })
}

// queryOld runs w (one implicit transaction) and returns the old item its
// data row's statement returns.
func (s *Store) queryOld(ctx context.Context, w itemWrite) ([]byte, error) {
	var raw []byte
	if len(w.extra) == 0 {
		err := s.pool.QueryRow(ctx, w.sql, w.args...).Scan(&raw)
		return raw, err
	}
	b := &pgx.Batch{}
	err := s.sendBatch(ctx, b, w.queue(b, nil, &raw))
	if err == nil && w.enqueues {
		s.wakeWorkers()
	}
	return raw, err
}

// putStatement is item's blind put into t: the table's prepared put and
// index statements (writeStmts), else dynamopg.item_put.
func (s *Store) putStatement(ctx context.Context, t *store.Table, item attr.Item, size int32) (itemWrite, error) {
	ts, err := s.writeStmts(ctx, t)
	if err != nil {
		return itemWrite{}, err
	}
	itemJSON := encodeItem(item)
	if ts == nil {
		return itemWrite{statement: statement{gen.ItemPut, []any{t.ID, itemJSON, size, version(t)}}}, nil
	}
	return ts.write(statement{ts.data.PutSql, []any{itemJSON, size, keyHash(t.Hash.Name, item), t.Version}}, nil, item, itemJSON), nil
}

// removeStatement is the blind delete of keyJSON from t: the table's
// prepared remove and index statements, else dynamopg.item_remove.
func (s *Store) removeStatement(ctx context.Context, t *store.Table, keyJSON []byte) (itemWrite, error) {
	ts, err := s.writeStmts(ctx, t)
	if err != nil {
		return itemWrite{}, err
	}
	if ts == nil {
		return itemWrite{statement: statement{gen.ItemRemove, []any{t.ID, keyJSON, version(t)}}}, nil
	}
	return ts.write(statement{ts.data.RemoveSql, []any{keyJSON, t.Version}}, keyJSON, nil, nil), nil
}

// version is the catalog version an item write checks t against
// (table_def's p_version): none for a description without one.
func version(t *store.Table) pgtype.Int8 {
	return pgtype.Int8{Int64: t.Version, Valid: t.Version != 0}
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

// ItemWriteMany runs every op's put or remove (putStatement,
// removeStatement) in one pipeline: one round trip and one implicit
// transaction, in lockOrder (table id, then key) so that two batches never
// wait on each other in a cycle.
// Deadlocks with other writers and serialization failures are retried as
// ItemWrite retries them.
func (s *Store) ItemWriteMany(ctx context.Context, ops []store.WriteOp) ([]attr.Item, error) {
	targets := make([]store.TxTarget, len(ops))
	for i, o := range ops {
		targets[i] = store.TxTarget{Table: o.Table, Key: o.Key}
	}
	order := lockOrder(targets)
	stmts := make([]itemWrite, len(order))
	for i, o := range order {
		op := ops[o.pos]
		var err error
		if op.Put == nil {
			if stmts[i], err = s.removeStatement(ctx, op.Table, o.key); err != nil {
				return nil, err
			}
			continue
		}
		size := op.Put.Size()
		if size > math.MaxInt32 {
			return nil, fmt.Errorf("pgstore: item put: item of %d bytes", size)
		}
		if stmts[i], err = s.putStatement(ctx, op.Table, op.Put, int32(size)); err != nil {
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
