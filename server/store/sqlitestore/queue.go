package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore/internal/sqlitedb"
)

// The asynchronous index queue, the contract of store.Queue. A write to a
// table whose catalog definition (read in the write's transaction) has async
// indexes inserts a row naming the item into index_queue in that same
// transaction (target.enqueue); the workers of worker.go apply the rows.

// enqueue names the target's item in index_queue (QueueInsert) and marks
// the store's open write transaction for a wake-up of the workers.
func (r *target) enqueue(ctx context.Context, tx *sql.Tx) error {
	err := queries.QueueInsert(ctx, tx, sqlitedb.QueueInsertParams{
		TableID: r.def.ID, Pk: r.k.pk, Sk: r.k.sk,
		EnqueuedAt: sql.NullInt64{Int64: time.Now().UnixNano(), Valid: true},
	})
	if err != nil {
		return fmt.Errorf("enqueue for async indexes: %w", err)
	}
	r.s.enqueued.Store(true)
	return nil
}

// QueueWait returns once no row of t is pending, or with ctx's error. It
// waits on the table's id, which is never reused: the rows of a dropped
// table are consumed by the workers, so waiting on a dropped table returns
// nil once they are. With the workers disabled it applies the queue itself.
func (s *Store) QueueWait(ctx context.Context, t *store.Table) error {
	const poll = 50 * time.Millisecond // rows another process applies
	for {
		applied := s.progress.wait()
		pending, err := queries.QueuePending(ctx, s.reader, sqlitedb.QueuePendingParams{TableID: t.ID})
		if err != nil {
			return fmt.Errorf("queue wait for %q: %w", t.Name, interpretError(err))
		}
		if !pending {
			return nil
		}
		if s.workers == 0 {
			if _, err := s.applyBatch(ctx); err != nil {
				return fmt.Errorf("queue wait for %q: %w", t.Name, err)
			}
			continue
		}
		s.wakeWorkers()
		select {
		case <-ctx.Done():
			return fmt.Errorf("queue wait for %q: %w", t.Name, ctx.Err())
		case <-applied:
		case <-time.After(poll):
		}
	}
}

// QueueDepth counts the pending rows of all tables.
func (s *Store) QueueDepth(ctx context.Context) (int64, error) {
	n, err := queries.QueueDepth(ctx, s.reader)
	if err != nil {
		return 0, fmt.Errorf("queue depth: %w", interpretError(err))
	}
	return n, nil
}

// notifier broadcasts an event to every goroutine waiting on it.
type notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

// wait returns a channel closed at the next broadcast.
func (n *notifier) wait() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch == nil {
		n.ch = make(chan struct{})
	}
	return n.ch
}

// broadcast wakes every goroutine waiting since the last broadcast.
func (n *notifier) broadcast() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch != nil {
		close(n.ch)
		n.ch = nil
	}
}
