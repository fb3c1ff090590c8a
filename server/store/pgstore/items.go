package pgstore

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// writeAttempts bounds ItemWrite's transactions: lost insert races,
// deadlocks and serialization failures are retried, then ErrConflict.
const writeAttempts = 10

// ItemGet returns the item with the given key, or nil. It runs the table's
// dynamopg.item_get_sql statement, which pgx prepares once per connection.
func (s *Store) ItemGet(ctx context.Context, t *store.Table, key attr.Item) (attr.Item, error) {
	stmt, err := s.itemGetStmt(ctx, t.ID)
	if err != nil {
		return nil, err
	}
	var raw []byte
	if err := s.pool.QueryRow(ctx, stmt, encodeItem(key)).Scan(&raw); err != nil {
		return nil, wrap("item get", err) // no row: the table is gone (ErrTableNotFound)
	}
	return decodeItem(raw)
}

// itemGetStmt returns table id's item_get_sql text, read once per table:
// it depends only on the table's id and key schema.
func (s *Store) itemGetStmt(ctx context.Context, id int64) (string, error) {
	if v, ok := s.getStmts.Load(id); ok {
		return v.(string), nil
	}
	stmt, err := s.q.ItemGetSQL(ctx, s.pool, gen.ItemGetSQLParams{TableID: id})
	if err != nil {
		return "", wrap("item get", err)
	}
	s.getStmts.Store(id, stmt)
	return stmt, nil
}

// ItemWrite changes one item in a transaction: it locks and reads the row
// (FOR UPDATE), calls fn, then inserts, replaces or deletes. An insert that
// finds the key taken (a concurrent creator won) rolls back and starts over,
// so fn sees the winner's item; so do deadlocks and serialization failures,
// up to writeAttempts transactions.
func (s *Store) ItemWrite(ctx context.Context, t *store.Table, key attr.Item, fn store.WriteFunc) (attr.Item, error) {
	keyJSON := encodeItem(key)
	var old attr.Item
	err := s.retryTx(ctx, "item write", []any{"table", t.Name}, func() (retry bool, err error) {
		old, retry, err = s.itemWriteOnce(ctx, t, keyJSON, fn)
		return retry, err
	})
	if err != nil {
		return nil, err
	}
	return old, nil
}

// retryTx runs once until it reports no retry, up to writeAttempts times,
// backing off a little more each time; then it gives up with ErrConflict.
// op and logAttrs only label the log records.
func (s *Store) retryTx(ctx context.Context, op string, logAttrs []any, once func() (retry bool, err error)) error {
	for attempt := 1; ; attempt++ {
		retry, err := once()
		if !retry {
			return err
		}
		if attempt == writeAttempts {
			s.log.WarnContext(ctx, op+": giving up", append(logAttrs, "attempts", attempt, "err", err)...)
			return store.ErrConflict
		}
		s.log.DebugContext(ctx, op+": retrying", append(logAttrs, "attempt", attempt, "err", err)...)
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgstore: %s: %w", op, ctx.Err())
		case <-time.After(time.Duration(attempt) * time.Millisecond):
		}
	}
}

// errLostInsert marks an insert that found its key taken.
var errLostInsert = fmt.Errorf("pgstore: item write: key created concurrently")

// itemWriteOnce runs one transaction of ItemWrite; retry reports that it
// should run again.
func (s *Store) itemWriteOnce(ctx context.Context, t *store.Table, keyJSON []byte, fn store.WriteFunc) (old attr.Item, retry bool, err error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, false, wrap("item write", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))

	raw, err := s.q.ItemLock(ctx, tx, gen.ItemLockParams{TableID: t.ID, Key: keyJSON, Version: version(t)})
	if err != nil {
		return nil, retryable(err), wrap("item write", err)
	}
	runHook(&testHookAfterCatalogRead)
	if old, err = decodeItem(raw); err != nil {
		return nil, false, err
	}
	nu, err := fn(old.Clone())
	if err != nil {
		return nil, false, err
	}
	runHook(&testHookBeforeStatement)
	if err := s.itemStore(ctx, tx, t, keyJSON, old, nu); err != nil {
		return nil, err == errLostInsert || retryable(err), wrap("item write", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, retryable(err), wrap("item write", err)
	}
	return old, false, nil
}

// itemStore writes fn's result: insert, replace, delete or nothing.
func (s *Store) itemStore(ctx context.Context, tx pgx.Tx, t *store.Table, keyJSON []byte, old, nu attr.Item) error {
	switch {
	case nu == nil && old == nil:
		return nil
	case nu == nil:
		_, err := s.q.ItemDelete(ctx, tx, gen.ItemDeleteParams{TableID: t.ID, Key: keyJSON,
			Ttl: store.IsTTLDelete(ctx)})
		return err
	}
	size := nu.Size()
	if size > math.MaxInt32 {
		return fmt.Errorf("item of %d bytes", size)
	}
	p := encodeItem(nu)
	if old == nil {
		ok, err := s.q.ItemInsert(ctx, tx, gen.ItemInsertParams{TableID: t.ID, Item: p, Size: int32(size)})
		if err == nil && !ok {
			err = errLostInsert
		}
		return err
	}
	ok, err := s.q.ItemReplace(ctx, tx, gen.ItemReplaceParams{TableID: t.ID, Item: p, Size: int32(size)})
	if err == nil && !ok {
		err = errLostInsert // the locked row vanished: cannot happen, start over
	}
	return err
}
