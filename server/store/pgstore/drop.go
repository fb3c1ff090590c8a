package pgstore

import (
	"context"
	"time"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/store"
)

// Dropping deleted tables' storage: TableDelete's second step and the
// sweeper. The SQL side, and why its steps come in that order, is
// sql/functions/drop.sql.

const (
	// dropLockTimeout bounds each lock wait of drop_table_storage and of an
	// orphan's drop (writers and queue batches in flight, readers of the data
	// tables); a timeout leaves the table DELETING for the next pass.
	dropLockTimeout = "3s"
	// dropBarrierWait bounds dropStorage's wait for the item writes in
	// flight (as dropLockTimeout the lock waits).
	dropBarrierWait = 3 * time.Second
	// dropInlineTimeout bounds TableDelete's inline drop as a whole. It does
	// not follow the caller's context: a client that goes away must not
	// interrupt a drop that is under way.
	dropInlineTimeout = 30 * time.Second
	// dropDeadlockTries is how often the inline drop runs when it keeps
	// failing with a deadlock.
	dropDeadlockTries = 3
)

// dropStorageInline runs drop_table_storage for a table TableDelete has just
// marked DELETING. A failure is only logged: the sweeper finishes the table.
// A deadlock with the writers still in flight (the drop is its victim, the
// writers that follow see DELETING) is retried a few times first.
func (s *Store) dropStorageInline(ctx context.Context, id int64, name string) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dropInlineTimeout)
	defer cancel()
	err := s.dropStorage(dctx, id)
	for try := 1; try < dropDeadlockTries && retryable(err) && dctx.Err() == nil; try++ {
		s.log.InfoContext(ctx, "table delete: storage drop deadlocked with a writer, retrying", "table", name, "id", id, "err", err)
		err = s.dropStorage(dctx, id)
	}
	if err != nil {
		s.log.WarnContext(ctx, "table delete: storage not dropped yet, left DELETING for the sweeper",
			"table", name, "id", id, "err", err)
	}
}

// dropStorage finishes the deletion of a DELETING table: queue rows, data
// tables, catalog row. First it waits out the item writes that may have
// read the catalog row before the DELETING mark: they do not lock the row
// (item_write_sql), but each holds a lock on dynamopg.tables from before
// its snapshot to its end, so the catalog barrier (barrier.go), started
// after the mark committed, waits for all of them; a write it does not see
// reads DELETING and writes nothing. drop_table_storage's own first step
// (the row FOR UPDATE) then waits for the queue and build steps, which do
// lock the row (table_def).
func (s *Store) dropStorage(ctx context.Context, id int64) error {
	if _, err := s.catalogBarrier(ctx, s.pool, dropBarrierWait); err != nil {
		return err
	}
	return s.q.DropTableStorage(ctx, s.pool, gen.DropTableStorageParams{TableID: id, LockTimeout: dropLockTimeout})
}

// SweepResult counts what one sweeper pass did.
type SweepResult struct {
	// Finished is the number of DELETING tables whose deletion it finished;
	// Left the number it could not finish (lock timeouts) and left DELETING.
	Finished, Left int
	// Orphans is the number of data tables no catalog row owned that it
	// dropped; Pending the orphaned index tables it saw for the first time
	// (or whose catalog barrier has not passed yet) and will drop at a later
	// pass if they are still orphaned.
	Orphans, Pending int
}

// Sweep runs one sweeper pass now: it finishes the tables left DELETING (a
// TableDelete whose drop timed out, or a process that stopped between the
// two steps) and drops the data tables no catalog row owns. A t_<id> without
// its catalog row is dropped at once (TableCreate makes both visible in one
// commit, so it is not a table being created). An i_<id> no row lists (an
// index removed by UpdateTable or a build whose deferred drop did not run,
// or cancelled by a DBA) is dropped only when the previous pass saw it
// orphaned too and the catalog barrier of that pass has passed: every
// transaction that held a lock on dynamopg.tables at the end of the
// previous pass has ended, so no write that read a definition listing the
// index is still in flight (barrier.go). The barrier is spread over the
// passes: a pass never waits for it. Several processes may sweep at once.
// The error is the first failure; the pass goes on after one.
func (s *Store) Sweep(ctx context.Context) (SweepResult, error) {
	s.sweepMu.Lock()
	defer s.sweepMu.Unlock()
	var r SweepResult
	var first error
	note := func(err error) {
		if first == nil {
			first = err
		}
	}

	ids, err := s.q.TablesDeleting(ctx, s.pool)
	if err != nil {
		return r, wrap("sweep", err)
	}
	for _, id := range ids {
		if err := s.dropStorage(ctx, id); err != nil {
			r.Left++
			s.log.WarnContext(ctx, "sweep: DELETING table not dropped yet", "id", id, "err", err)
			note(wrap("sweep", err))
			continue
		}
		r.Finished++
		s.log.InfoContext(ctx, "sweep: finished deleting table", "id", id)
	}

	orphans, err := s.q.StorageOrphans(ctx, s.pool)
	if err != nil {
		note(wrap("sweep", err))
		return r, first
	}
	// The previous pass's barrier: have its lockers all ended?
	barrierPassed := true
	if len(s.orphanLockers) > 0 {
		left, err := s.q.CatalogLockersLeft(ctx, s.pool, gen.CatalogLockersLeftParams{Vxids: s.orphanLockers})
		if err != nil {
			note(wrap("sweep", err))
			return r, first
		}
		barrierPassed = left == 0
	}
	seen := make(map[string]bool, len(orphans))
	for _, o := range orphans {
		if o.IsIndex && (!s.orphansSeen[o.Rel] || !barrierPassed) {
			seen[o.Rel] = true
			r.Pending++
			continue
		}
		dropped, err := s.q.DropOrphanStorage(ctx, s.pool, gen.DropOrphanStorageParams{Rel: o.Rel, LockTimeout: dropLockTimeout})
		if err != nil {
			if interpretError(err) == store.ErrTableNotFound {
				continue // dropped by another pass between the listing and the lock
			}
			if o.IsIndex {
				seen[o.Rel] = true
			}
			s.log.WarnContext(ctx, "sweep: orphan data table not dropped yet", "rel", o.Rel, "err", err)
			note(wrap("sweep", err))
			continue
		}
		if dropped {
			r.Orphans++
			s.log.InfoContext(ctx, "sweep: dropped orphan data table", "rel", o.Rel)
		}
	}
	// This pass's barrier, for the index tables it left pending: taken
	// after the listing, so after their catalog rows stopped listing them.
	// (A table whose previous barrier has not passed gets this newer one:
	// any snapshot taken after the table was orphaned will do.)
	var lockers []string
	if len(seen) > 0 {
		if lockers, err = s.q.CatalogLockers(ctx, s.pool); err != nil {
			note(wrap("sweep", err))
			seen = map[string]bool{} // start over at the next pass
		}
	}
	s.orphansSeen, s.orphanLockers = seen, lockers
	return r, first
}

// startSweeper runs Sweep at once and then every interval until Close.
func (s *Store) startSweeper(interval time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	s.stopSweeper = cancel
	s.sweeper.Go(func() {
		t := time.NewTimer(0)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			r, err := s.Sweep(ctx)
			if err != nil && ctx.Err() == nil {
				s.log.WarnContext(ctx, "sweep: pass incomplete", "err", err,
					"finished", r.Finished, "left", r.Left, "orphans", r.Orphans)
			}
			t.Reset(interval)
		}
	})
}
