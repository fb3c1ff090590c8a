package maintain

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// TTLBatch is how many expired items a sweeper pass lists (and deletes) at
// a time.
const TTLBatch = 100

// ttlDeleted counts the items TTLDelete deleted in this process.
var ttlDeleted atomic.Int64

// TTLDeletions returns how many expired items this process's TTL sweeper
// deleted (for GET /metrics; not stored, so a restart starts from zero).
func TTLDeletions() int64 { return ttlDeleted.Load() }

var errTTLNotExpired = errors.New("maintain: item no longer expired")

// TTLDelete deletes the item at key through the ordinary write path (so
// indexes and streams are maintained) under store.WithTTLDelete, if it is
// still expired when read under the write's lock: the item may have been
// updated or deleted since it was listed. It reports whether it deleted.
func TTLDelete(ctx context.Context, s store.Store, t *store.Table, key attr.Item, name string, now time.Time) (bool, error) {
	_, err := s.ItemWrite(store.WithTTLDelete(ctx), t, key, func(old attr.Item) (attr.Item, error) {
		if old == nil || !store.TTLExpired(old, name, now) {
			return nil, errTTLNotExpired
		}
		return nil, nil
	})
	if errors.Is(err, errTTLNotExpired) {
		return false, nil
	}
	if err == nil {
		ttlDeleted.Add(1)
	}
	return err == nil, err
}

// SweepTTL makes one pass of the TTL sweeper as of now: for every table
// with TTL enabled it deletes, TTLBatch at a time, the items whose TTL
// attribute is a Number of epoch seconds before now (and not more than five
// years before: store.TTLWindow), each by TTLDelete, so indexes are
// maintained and the stream records a service deletion. A table stops when
// a batch deletes nothing or lists fewer than TTLBatch keys; a table whose
// description changed under the pass (store.ErrStaleTable) or that was
// dropped is left for the next pass. It returns how many items it deleted.
func SweepTTL(ctx context.Context, s store.Store, now time.Time) (int, error) {
	total := 0
	after := ""
	for {
		names, err := s.TableList(ctx, after, 100)
		if err != nil {
			return total, err
		}
		for _, n := range names {
			deleted, err := sweepTable(ctx, s, n, now)
			total += deleted
			if err != nil {
				return total, err
			}
		}
		if len(names) < 100 {
			return total, nil
		}
		after = names[len(names)-1]
	}
}

// sweepTable deletes the expired items of the table named name.
func sweepTable(ctx context.Context, s store.Store, name string, now time.Time) (int, error) {
	t, err := s.TableGet(ctx, name)
	if errors.Is(err, store.ErrTableNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	spec := store.TTLSpecOf(t)
	if !spec.Enabled || spec.AttributeName == "" || t.Status == store.StatusDeleting {
		return 0, nil
	}
	total := 0
	for {
		keys, err := s.ItemExpiredKeys(ctx, t, spec.AttributeName, now, TTLBatch)
		if gone(err) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
		deleted := 0
		for _, k := range keys {
			ok, err := TTLDelete(ctx, s, t, k, spec.AttributeName, now)
			if gone(err) {
				return total + deleted, nil
			}
			if err != nil {
				return total + deleted, err
			}
			if ok {
				deleted++
			}
		}
		total += deleted
		if deleted == 0 || len(keys) < TTLBatch {
			return total, nil
		}
	}
}

// gone reports an error that ends a table's sweep until the next pass: the
// table was dropped, or its description changed since it was read.
func gone(err error) bool {
	return errors.Is(err, store.ErrTableNotFound) || errors.Is(err, store.ErrStaleTable)
}
