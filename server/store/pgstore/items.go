package pgstore

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// writeAttempts bounds ItemWrite's transactions: lost insert races,
// deadlocks and serialization failures are retried, then ErrConflict.
const writeAttempts = 10

// ItemGet returns the item with the given key, or nil.
func (s *Store) ItemGet(ctx context.Context, t *store.Table, key attr.Item) (attr.Item, error) {
	raw, err := s.itemGetStored(ctx, t, key)
	if err != nil {
		return nil, err
	}
	return decodeItem(raw)
}

// ItemGetJSON returns the item with the given key as wire JSON, or nil.
func (s *Store) ItemGetJSON(ctx context.Context, t *store.Table, key attr.Item) ([]byte, error) {
	raw, err := s.itemGetStored(ctx, t, key)
	if err != nil || raw == nil {
		return nil, err
	}
	return unescapeJSON(appendCompactJSON(make([]byte, 0, len(raw)), raw)), nil
}

// itemGetStored reads the item with the given key in its stored form (nil
// when absent), keeping it as the item's image on the tables whose writes
// use them.
func (s *Store) itemGetStored(ctx context.Context, t *store.Table, key attr.Item) ([]byte, error) {
	return s.itemGetRaw(ctx, t.ID, encodeItem(key), guardable(t))
}

// itemGetStmt returns table id's item_get_sql text, read once per table:
// it depends only on the table's id and key schema.
func (s *Store) itemGetStmt(ctx context.Context, id int64) (string, error) {
	return cachedText(&s.getStmts, id, "item get", func() (string, error) {
		return s.q.ItemGetSQL(ctx, s.pool, gen.ItemGetSQLParams{TableID: id})
	})
}

// cachedText returns cache's text for table id, reading it with read the
// first time.
func cachedText(cache *sync.Map, id int64, op string, read func() (string, error)) (string, error) {
	if v, ok := cache.Load(id); ok {
		return v.(string), nil
	}
	text, err := read()
	if err != nil {
		return "", wrap(op, err)
	}
	cache.Store(id, text)
	return text, nil
}

// ItemWrite changes one item in a transaction: it locks and reads the row
// (FOR UPDATE), and the counter of its item collection when the table has
// a local index (collections.go), calls fn, then inserts, replaces or
// deletes, and stores the collection's new size. An insert that
// finds the key taken (a concurrent creator won) rolls back and starts over,
// so fn sees the winner's item; so do deadlocks and serialization failures,
// up to writeAttempts transactions.
func (s *Store) ItemWrite(ctx context.Context, t *store.Table, key attr.Item, fn store.WriteFunc) (attr.Item, error) {
	keyJSON := encodeItem(key)
	if old, done, err := s.itemWriteGuarded(ctx, t, keyJSON, fn); done {
		return old, err
	}
	var old attr.Item
	err := s.retryTx(ctx, "item write", []any{"table", t.Name}, func() (retry bool, err error) {
		old, retry, err = s.itemWriteOnce(ctx, t, key, keyJSON, fn)
		return s.sizeUnsized(ctx, retry, err)
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

// itemWriteOnce runs one transaction of ItemWrite in two round trips: BEGIN
// and the lock statement in one pipeline, then the write and COMMIT in
// another (a write that fails aborts the pipeline before the COMMIT, and
// the deferred ROLLBACK ends the transaction). retry reports that it should
// run again; an *errUnsized, that the item's collection needs sizing
// first.
func (s *Store) itemWriteOnce(ctx context.Context, t *store.Table, key attr.Item, keyJSON []byte, fn store.WriteFunc) (old attr.Item, retry bool, err error) {
	// Before the connection: writeStmts may take one of its own.
	ts, err := s.writeStmts(ctx, t)
	if err != nil {
		return nil, false, err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, wrap("item write", err)
	}
	defer func() {
		if conn.Conn().PgConn().TxStatus() != 'I' {
			// A broken connection fails here too; Release then drops it.
			s.q.TxRollback(context.WithoutCancel(ctx), conn)
		}
		conn.Release()
	}()

	lock := &pgx.Batch{}
	lock.Queue(gen.TxBegin)
	st := ts.lock(keyJSON)
	lock.Queue(st.sql, st.args...)
	var raw []byte
	dest := []any{nil, &raw}
	var colls []collection
	if ts.sized {
		colls = []collection{collectionOf(t, key)}
		dest = lockCollections(lock, dest, colls)
	}
	if err := runBatch(ctx, conn, lock, dest...); err != nil {
		return nil, retryable(err), wrap("item write", err)
	}
	if err := unsized(colls); err != nil {
		return nil, true, err
	}
	runHook(&testHookAfterCatalogRead)
	if old, err = decodeItem(raw); err != nil {
		return nil, false, err
	}
	nu, err := fn(old)
	if err != nil {
		return nil, false, err
	}
	var tally *store.CollectionTally
	if ts.sized {
		tally = s.tally(colls)
		tally.Add(colls[0].key(), 0, t, old, nu)
		if err := tally.Check(); err != nil {
			return nil, false, err
		}
	}
	runHook(&testHookBeforeStatement)
	w, err := ts.store(keyJSON, old, nu, store.IsTTLDelete(ctx))
	if err != nil {
		return nil, false, err
	}
	write := &pgx.Batch{}
	ok := true
	dest = queueCollectionSets(write, nil, tally)
	if w.sql != "" {
		dest = w.queue(write, dest, &ok)
	}
	write.Queue(gen.TxCommit)
	dest = append(dest, nil)
	if err := runBatch(ctx, conn, write, dest...); err != nil {
		return nil, retryable(err), wrap("item write", err)
	}
	if !ok {
		// The insert found the key taken (a concurrent creator won), or the
		// locked row vanished (cannot happen): nothing was written; start over.
		return nil, true, wrap("item write", errLostInsert)
	}
	if w.enqueues {
		s.wakeWorkers()
	}
	return old, false, nil
}

// batchSender is what runBatch sends on: a pool connection or a
// transaction.
type batchSender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// runBatch sends b and reads one result per queued statement into dest
// (nil: an Exec), returning the first error (later statements of a failed
// pipeline only report the aborted transaction).
func runBatch(ctx context.Context, conn batchSender, b *pgx.Batch, dest ...any) error {
	br := conn.SendBatch(ctx, b)
	var first error
	for _, d := range dest {
		var err error
		if d == nil {
			_, err = br.Exec()
		} else {
			err = br.QueryRow().Scan(d)
		}
		if first == nil {
			first = err
		}
	}
	if err := br.Close(); first == nil {
		first = err
	}
	return first
}
