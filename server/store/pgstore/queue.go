package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/store"
)

// queueWaitPoll bounds QueueWait's polling interval.
const queueWaitPoll = 50 * time.Millisecond

// QueueWait polls until no queued row of t is pending (applied or consumed;
// rows passed over still count), or ctx ends. It waits on t.ID, never
// reused, so a table dropped meanwhile is waited for until its rows are
// consumed.
func (s *Store) QueueWait(ctx context.Context, t *store.Table) error {
	delay := time.Millisecond
	for {
		n, err := s.q.QueuePending(ctx, s.pool, gen.QueuePendingParams{TableID: t.ID})
		if err != nil {
			return wrap("queue wait", err)
		}
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgstore: queue wait: %d rows pending: %w", n, ctx.Err())
		case <-time.After(delay):
		}
		delay = min(2*delay, queueWaitPoll)
	}
}

// QueueDepth counts the queued rows of all tables.
func (s *Store) QueueDepth(ctx context.Context) (int64, error) {
	n, err := s.q.QueueDepth(ctx, s.pool)
	if err != nil {
		return 0, wrap("queue depth", err)
	}
	return n, nil
}
