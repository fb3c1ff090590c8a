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
// (queue_apply.go), one batch per transaction. It steps again while its
// batches are full or this process's writers queue more (workerSession),
// then waits for a wake from those writers (wakeWorkers), a notification
// (LISTEN: writes of processes without workers)
// or pollInterval, whichever comes first: the poll catches other
// processes' writes, notifications sent while it was disconnected, and
// rows whose pass-over ended. Workers of several processes share the
// queue: queue_claim_batch takes partitions' advisory locks and claims
// FOR UPDATE SKIP LOCKED.

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
//
// A worker that ends a step goes on at once only when the step claimed a
// full batch (a backlog), or when this process's writers queued items
// since the step began (the queued count moved); else it waits. While one
// worker is stepping, writers do not wake another (wakeWorkers): the
// stepping one takes their rows in its next step, so the workers do not
// split a steady stream into batches of one or two items, each paying for
// a claim. The count is read before the claim and again after the worker
// has stopped counting as stepping, and a writer adds to it after its
// commit and before it looks at who is stepping: so a row a step did not
// claim is either seen by that re-read, or its writer sees no worker
// stepping and wakes one.
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
	batch, err := s.q.QueueBatchSize(ctx, conn)
	if err != nil {
		return fmt.Errorf("pgstore: queue worker: settings: %w", err)
	}
	s.stepping.Add(1)
	defer s.stepping.Add(-1)
	for {
		queued := s.queued.Load()
		claimed, err := s.workerStep(ctx, conn, name)
		if err != nil {
			return err
		}
		full := claimed >= int(batch)
		s.backlog.Store(full)
		if full {
			continue
		}
		s.stepping.Add(-1)
		if s.queued.Load() == queued {
			err = s.waitWork(ctx, conn)
		}
		s.stepping.Add(1)
		if err != nil {
			return err
		}
		// Let a burst of writes commit, so that one batch takes them all
		// rather than one batch per write.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(notifyDebounce):
		}
	}
}

// workerStep runs one batch and returns how many rows it claimed.
func (s *Store) workerStep(ctx context.Context, conn *pgx.Conn, name string) (claimed int, err error) {
	r, err := s.runQueueStep(ctx, conn, name)
	if err != nil {
		return 0, fmt.Errorf("pgstore: queue worker: run: %w", err)
	}
	if r.passed > 0 {
		s.log.InfoContext(ctx, "queue worker: items passed over", "worker", name,
			"partition", r.part, "passed", r.passed, "applied", r.applied)
	}
	return r.claimed, nil
}

// enqueueStatement is the statement a write queues an item with:
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

// wakeWorkers is called by a write that queued an item, after its commit:
// it counts the item and wakes one of this process's idle workers, unless
// one is stepping (it will step again for the item; workerSession) and no
// backlog calls for a second.
func (s *Store) wakeWorkers() {
	if s.wake == nil {
		return
	}
	s.queued.Add(1)
	if s.stepping.Load() > 0 && !s.backlog.Load() {
		return
	}
	s.signalWake()
}

// signalWake wakes one idle worker, if any.
func (s *Store) signalWake() {
	select {
	case s.wake <- struct{}{}:
	default: // a wake is pending already
	}
}

// waitWork returns after a wake (wakeWorkers), a notification (a write
// from a process without workers; one
// received during the last step returns at once, as the step may have
// missed its row), or pollInterval.
func (s *Store) waitWork(ctx context.Context, conn *pgx.Conn) error {
	wctx, cancel := context.WithTimeout(ctx, time.Duration(s.poll.Load()))
	defer cancel()
	woken := make(chan struct{})
	go func() {
		select {
		case <-s.wake:
			if wctx.Err() != nil {
				// This wait ended before the wake came: keep it for the next.
				s.signalWake()
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
		return nil
	case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return fmt.Errorf("pgstore: queue worker: wait: %w", err)
}
