package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/store"
)

// The catalog barrier (docs/index-build.md, "Why it is exact"). A change of
// a table's index set commits at once (TableUpdate takes the catalog row FOR
// NO KEY UPDATE; item writers read the row without locking it, and the
// queue's FOR KEY SHARE does not conflict). What must then be waited out
// are the writes that read the old definition: each of them holds a lock
// on the relation dynamopg.tables from before its catalog read (the item
// write's statement takes ACCESS SHARE when it is bound, before its
// snapshot; table_def ROW SHARE in a statement of its own) until it ends.
// DeleteTable's drop waits out the item writes the same way (drop.go).
// The barrier lists the transactions holding such a lock once, after the
// commit (dynamopg.catalog_lockers), and polls until none of them
// is running. It takes no lock, so no writer ever waits for it; a writer
// that starts meanwhile reads the new definition and is not waited for.

const (
	// barrierPoll is the barrier's polling interval.
	barrierPoll = 10 * time.Millisecond
	// defaultBarrierWait applies when the setting build_barrier_wait_ms
	// cannot be read.
	defaultBarrierWait = time.Minute
)

// errBarrierTimeout: transactions that held a lock on dynamopg.tables when
// the barrier started were still running after build_barrier_wait_ms. It is
// a transient failure (the build's recovery, or the next sweep, retries).
var errBarrierTimeout = errors.New("pgstore: catalog barrier: transactions holding dynamopg.tables still running after build_barrier_wait_ms")

// barrierWait reads the setting build_barrier_wait_ms.
func (s *Store) barrierWait(ctx context.Context, db gen.DBTX) (time.Duration, error) {
	ms, err := s.q.BuildSettingInt(ctx, db, gen.BuildSettingIntParams{Key: "build_barrier_wait_ms", Fallback: int32(defaultBarrierWait / time.Millisecond)})
	if err != nil {
		return 0, err
	}
	return time.Duration(max(ms, 0)) * time.Millisecond, nil
}

// catalogBarrier waits until every transaction that held (or waited for) a
// lock on dynamopg.tables when it was called, other than db's own, has
// ended, for at most limit (then errBarrierTimeout). db must not be inside
// a transaction that holds such a lock that others wait for (nobody waits
// for an ACCESS SHARE or ROW SHARE lock: only EXCLUSIVE and ACCESS
// EXCLUSIVE conflict).
// It returns how long it waited.
func (s *Store) catalogBarrier(ctx context.Context, db gen.DBTX, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	vxids, err := s.q.CatalogLockers(ctx, db)
	if err != nil {
		return 0, fmt.Errorf("pgstore: catalog barrier: %w", err)
	}
	for len(vxids) > 0 {
		left, err := s.q.CatalogLockersLeft(ctx, db, gen.CatalogLockersLeftParams{Vxids: vxids})
		if err != nil {
			return time.Since(start), fmt.Errorf("pgstore: catalog barrier: %w", err)
		}
		if left == 0 {
			break
		}
		if time.Since(start) >= limit {
			return time.Since(start), errBarrierTimeout
		}
		select {
		case <-ctx.Done():
			return time.Since(start), fmt.Errorf("pgstore: catalog barrier: %w", ctx.Err())
		case <-time.After(barrierPoll):
		}
	}
	return time.Since(start), nil
}

// msInt32 is d in milliseconds, clamped to int32.
func msInt32(d time.Duration) int32 {
	return int32(min(d.Milliseconds(), math.MaxInt32))
}

// dropIndexesDeferred drops the storage (i_<id>) of indexes a committed
// catalog change removed, in the background: after the catalog barrier, so
// that no write that read the old definition (and may still write to the
// index) is in flight, then each through drop_orphan_storage (only if no
// catalog row lists it). A failure, or a store closing first, leaves the
// tables to the sweeper, which drops orphaned index tables after the same
// barrier.
func (s *Store) dropIndexesDeferred(table string, ids []int64) {
	if len(ids) == 0 {
		return
	}
	s.builds.mu.Lock()
	defer s.builds.mu.Unlock()
	if s.builds.closed {
		return
	}
	s.builds.wg.Go(func() {
		ctx := s.builds.ctx
		log := s.log.With("table", table, "index_ids", ids)
		limit, err := s.barrierWait(ctx, s.pool)
		if err == nil {
			var waited time.Duration
			waited, err = s.catalogBarrier(ctx, s.pool, limit)
			log.DebugContext(ctx, "index storage drop: barrier passed", "waited", waited)
		}
		if err != nil {
			log.WarnContext(ctx, "index storage drop deferred to the sweeper", "err", err)
			return
		}
		for _, id := range ids {
			rel := fmt.Sprintf("i_%d", id)
			if _, err := s.q.DropOrphanStorage(ctx, s.pool, gen.DropOrphanStorageParams{Rel: rel, LockTimeout: dropLockTimeout}); err != nil &&
				interpretError(err) != store.ErrTableNotFound {
				log.WarnContext(ctx, "index storage drop deferred to the sweeper", "rel", rel, "err", err)
			}
		}
	})
}
