package pgstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/gen"
)

// The index queue workers. Each has its own connection (application_name
// WorkerApplicationName, outside the pool) on which it runs worker steps
// (queue_apply.go), one batch per transaction. It runs batches while they
// find work, then waits for a wake from this process's writers
// (wakeWorkers), a notification (LISTEN: writes of the item functions and
// of processes without workers) or pollInterval, whichever comes first: the
// poll catches other processes' writes, notifications sent while it was
// disconnected, and rows whose pass-over ended. Workers of several processes share the queue: queue_claim_batch
// takes partitions' advisory locks and claims FOR UPDATE SKIP LOCKED.

// WorkerApplicationName is the application_name of the workers' connections.
const WorkerApplicationName = "dynamopg-queue"

const (
	// pollInterval is how long an idle worker waits without a notification.
	pollInterval = time.Second
	// notifyDebounce is the pause between a notification and the batch it
	// triggers.
	notifyDebounce = 2 * time.Millisecond
	// reconnectDelay is the pause after a worker's connection fails.
	reconnectDelay = time.Second
)

// startWorkers starts n workers connecting with a copy of cfg.
func (s *Store) startWorkers(cfg *pgx.ConnConfig, n int) {
	ctx, cancel := context.WithCancel(context.Background())
	s.stopWorkers = cancel
	s.wake = make(chan struct{}, 1)
	s.poll.Store(int64(pollInterval))
	host, _ := os.Hostname()
	for i := range n {
		name := fmt.Sprintf("%s:%d:%d", host, os.Getpid(), i)
		s.workers.Go(func() { s.workerLoop(ctx, cfg, name) })
	}
}

// workerLoop runs one worker until ctx ends, reconnecting after failures.
func (s *Store) workerLoop(ctx context.Context, cfg *pgx.ConnConfig, name string) {
	log := s.log.With("worker", name)
	for ctx.Err() == nil {
		err := s.workerSession(ctx, cfg, name)
		if ctx.Err() != nil {
			return
		}
		log.WarnContext(ctx, "queue worker: connection lost, reconnecting", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(reconnectDelay):
		}
	}
}

// workerSession connects, LISTENs and works until ctx ends or the
// connection fails.
func (s *Store) workerSession(ctx context.Context, cfg *pgx.ConnConfig, name string) error {
	cc := cfg.Copy()
	cc.RuntimeParams["application_name"] = WorkerApplicationName
	// The queue is a table of short-lived rows that autovacuum often
	// truncates to nothing; a plan cached (by pgx, or by PL/pgSQL) while it
	// looked empty is a sequential scan, kept while the table grows and
	// fills with dead rows. Every statement a worker runs reads by an index
	// (the queue's part or id, an item's key), so the session plans none.
	cc.RuntimeParams["enable_seqscan"] = "off"
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return fmt.Errorf("pgstore: queue worker: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := s.q.QueueListen(ctx, conn); err != nil {
		return fmt.Errorf("pgstore: queue worker: listen: %w", err)
	}
	for {
		busy, err := s.workerStep(ctx, conn, name)
		if err != nil {
			return err
		}
		if busy {
			continue
		}
		if err := s.waitWork(ctx, conn); err != nil {
			return err
		}
	}
}

// workerStep runs one batch and reports whether it found work.
func (s *Store) workerStep(ctx context.Context, conn *pgx.Conn, name string) (busy bool, err error) {
	r, err := s.runQueueStep(ctx, conn, name)
	if err != nil {
		return false, fmt.Errorf("pgstore: queue worker: run: %w", err)
	}
	if r.passed > 0 {
		s.log.InfoContext(ctx, "queue worker: items passed over", "worker", name,
			"partition", r.part, "passed", r.passed, "applied", r.applied)
	}
	return r.part >= 0, nil
}

// enqueueStatement is the statement a prepared write queues an item with:
// without a notification when this process has workers, which the writer
// wakes itself after its commit (wakeWorkers); workers of other processes
// find the rows on their poll, if this process's have not applied them
// first.
func (s *Store) enqueueStatement() string {
	if s.wake != nil {
		return gen.QueueEnqueueKeyLocal
	}
	return gen.QueueEnqueueKey
}

// wakeWorkers wakes one of this process's idle workers, if any: a write
// that queued an item calls it after its commit.
func (s *Store) wakeWorkers() {
	select {
	case s.wake <- struct{}{}:
	default: // a wake is pending already
	}
}

// waitWork returns after a wake (wakeWorkers), a notification (a write
// through the item functions, or from a process without workers), or
// pollInterval. The notifications received during the last batch are
// dropped first.
func (s *Store) waitWork(ctx context.Context, conn *pgx.Conn) error {
	drained, cancel := context.WithCancel(ctx)
	cancel()
	for {
		if n, _ := conn.WaitForNotification(drained); n == nil {
			break // a done ctx returns buffered notifications only
		}
	}
	wctx, cancel := context.WithTimeout(ctx, time.Duration(s.poll.Load()))
	defer cancel()
	woken := make(chan struct{})
	go func() {
		select {
		case <-s.wake:
			if wctx.Err() != nil {
				// This wait ended before the wake came: keep it for the next.
				s.wakeWorkers()
			}
			close(woken)
			cancel()
		case <-wctx.Done():
		}
	}()
	_, err := conn.WaitForNotification(wctx)
	select {
	case <-woken:
		err = nil
	default:
	}
	switch {
	case err == nil:
		// Let a burst of writes commit, so that one batch takes them all
		// rather than one batch per write.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(notifyDebounce):
		}
		return nil
	case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return fmt.Errorf("pgstore: queue worker: wait: %w", err)
}
