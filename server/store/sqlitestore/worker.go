package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore/internal/sqlitedb"
)

// The queue workers: goroutines that apply index_queue under the single
// writer, a small batch per write transaction so that client writes
// interleave. Applying a row rewrites the item's current state into every
// async index of its table's current definition, so rows applied late, twice
// or out of order converge; the rows of a dropped table, or naming an index
// since dropped, are consumed without effect.

const (
	// queueBatch is how many rows one write transaction applies.
	queueBatch = 64
	// queueTick is the fallback wake-up: rows committed by another process,
	// or left behind by a failed batch.
	queueTick = time.Second
)

// startWorkers starts the configured number of workers.
func (s *Store) startWorkers() {
	if s.workers == 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	for range s.workers {
		s.done.Go(func() { s.work(ctx) })
	}
	s.wakeWorkers() // rows left by an earlier run
}

// stopWorkers stops the workers and waits for them.
func (s *Store) stopWorkers() {
	if s.stop != nil {
		s.stop()
		s.done.Wait()
	}
}

// wakeWorkers signals the workers that rows were committed; it never blocks.
func (s *Store) wakeWorkers() {
	select {
	case s.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// work applies the queue whenever woken, batch after batch until it is
// empty, until ctx ends.
func (s *Store) work(ctx context.Context) {
	tick := time.NewTicker(queueTick)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-tick.C:
		}
		for {
			n, err := s.applyBatch(ctx)
			if err != nil {
				if ctx.Err() == nil {
					s.log.ErrorContext(ctx, "sqlite store: apply index queue", "err", err)
				}
				break // retried at the next wake-up or tick
			}
			if n < queueBatch {
				break
			}
		}
	}
}

// queued is one row of index_queue.
type queued struct {
	seq     int64
	tableID int64
	k       rowKey
}

// applyBatch applies up to queueBatch rows, oldest first, in one write
// transaction, and returns how many it consumed.
func (s *Store) applyBatch(ctx context.Context) (int, error) {
	var n int
	err := s.inWrite(ctx, func(tx *sql.Tx) error {
		rows, err := readQueue(ctx, tx, queueBatch)
		if err != nil {
			return err
		}
		defs := map[int64]*store.Table{} // nil: the table is gone
		for _, q := range rows {
			def, ok := defs[q.tableID]
			if !ok {
				def, err = catalogByID(ctx, tx, q.tableID)
				if errors.Is(err, store.ErrTableNotFound) {
					def, err = nil, nil
				}
				if err != nil {
					return fmt.Errorf("apply index queue: %w", err)
				}
				defs[q.tableID] = def
			}
			if def != nil {
				if err := s.reindex(ctx, tx, def, q.k); err != nil {
					return fmt.Errorf("apply index queue: table %q: %w", def.Name, err)
				}
			}
			if err := queries.QueueDelete(ctx, tx, sqlitedb.QueueDeleteParams{Seq: q.seq}); err != nil {
				return fmt.Errorf("apply index queue: consume row: %w", err)
			}
		}
		n = len(rows)
		return nil
	})
	if err != nil {
		return 0, err
	}
	if n > 0 {
		s.progress.broadcast()
	}
	return n, nil
}

// readQueue reads the oldest rows of the queue.
func readQueue(ctx context.Context, tx *sql.Tx, limit int) ([]queued, error) {
	rows, err := queries.QueueRead(ctx, tx, sqlitedb.QueueReadParams{MaxRows: int64(limit)})
	if err != nil {
		return nil, fmt.Errorf("read index queue: %w", err)
	}
	out := make([]queued, len(rows))
	for i, r := range rows {
		out[i] = queued{seq: r.Seq, tableID: r.TableID, k: rowKey{pk: nonNil(r.Pk), sk: nonNil(r.Sk)}}
	}
	return out, nil
}

// reindex writes an item's current state (read now, under the write lock)
// into every async index of its table: the item's rows are deleted by base
// key, and its projection inserted when it is indexable.
func (s *Store) reindex(ctx context.Context, tx *sql.Tx, t *store.Table, k rowKey) error {
	cur, err := s.getRow(ctx, tx, t.ID, k)
	if err != nil {
		return fmt.Errorf("read item: %w", err)
	}
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if !ix.Async() {
			continue
		}
		if err := s.indexRow(ctx, tx, t, ix, k, true, cur); err != nil {
			return fmt.Errorf("index %q: %w", ix.Name, err)
		}
	}
	return nil
}
