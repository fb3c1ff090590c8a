package pgstore

import (
	"context"
	"fmt"
	"time"
)

// SetQueuePoll sets how long this store's idle workers wait with neither a
// wake nor a notification (pollInterval), from their next wait on.
func (s *Store) SetQueuePoll(d time.Duration) { s.poll.Store(int64(d)) }

// QueueStep runs one worker step (runQueueStep: the claim, the set-based
// pass in Go, the rest) as worker "test" on a connection of the pool, and
// reports part (-1: nothing claimable), claimed, applied and passed.
func (s *Store) QueueStep(ctx context.Context) (part int32, claimed, applied, passed int, err error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("acquire: %w", err)
	}
	defer c.Release()
	r, err := s.runQueueStep(ctx, c.Conn(), "test")
	return r.part, r.claimed, r.applied, r.passed, err
}
