package store

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
)

// OptionTTL is the Table.Options entry holding the table's TimeToLive
// specification (TTLSpec), as UpdateTimeToLive stores it.
const OptionTTL = "ttl"

// TTLSpec is the value of Table.Options[OptionTTL].
type TTLSpec struct {
	AttributeName string `json:"attributeName"`
	Enabled       bool   `json:"enabled"`
}

// TTLSpecOf decodes a table's TTL specification (zero when absent).
func TTLSpecOf(t *Table) TTLSpec {
	var s TTLSpec
	if raw, ok := t.Options[OptionTTL]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

// TTLBatch is how many expired items a sweeper pass lists (and deletes) at
// a time.
const TTLBatch = 100

// TTLWindow is the service's rule for TTL values far in the past: an item
// whose TTL attribute is more than five years before now is not deleted.
// It returns the range [lo, hi) of epoch seconds that count as expired.
func TTLWindow(now time.Time) (lo, hi int64) {
	return now.AddDate(-5, 0, 0).Unix(), now.Unix()
}

// TTLExpired reports whether the item's TTL attribute (name) is a Number of
// epoch seconds in the expired window of now.
func TTLExpired(it attr.Item, name string, now time.Time) bool {
	v, ok := it[name]
	if !ok || v.T != attr.TypeN {
		return false
	}
	f, err := strconv.ParseFloat(v.S, 64)
	if err != nil {
		return false
	}
	lo, hi := TTLWindow(now)
	return f >= float64(lo) && f < float64(hi)
}

var errTTLNotExpired = errors.New("store: item no longer expired")

// TTLDelete deletes the item at key through the ordinary write path (so
// indexes and streams are maintained) under WithTTLDelete, if it is still
// expired when read under the write's lock: the item may have been updated
// or deleted since it was listed. It reports whether it deleted.
func TTLDelete(ctx context.Context, s Store, t *Table, key attr.Item, name string, now time.Time) (bool, error) {
	_, err := s.ItemWrite(WithTTLDelete(ctx), t, key, func(old attr.Item) (attr.Item, error) {
		if old == nil || !TTLExpired(old, name, now) {
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

// TTLSweepTables deletes the expired items of every table with TTL
// enabled, in batches of TTLBatch: list(ctx, t, attribute, now) returns up
// to TTLBatch keys of items that look expired (the store's own query); each
// is deleted by TTLDelete. A table stops when a batch deletes nothing or
// lists fewer than TTLBatch keys. It returns how many items it deleted.
// Both stores' sweepers run it.
func TTLSweepTables(ctx context.Context, s Store, now time.Time,
	list func(ctx context.Context, t *Table, name string, now time.Time) ([]attr.Item, error)) (int, error) {
	total := 0
	after := ""
	for {
		names, err := s.TableList(ctx, after, 100)
		if err != nil {
			return total, err
		}
		for _, n := range names {
			t, err := s.TableGet(ctx, n)
			if errors.Is(err, ErrTableNotFound) {
				continue
			}
			if err != nil {
				return total, err
			}
			spec := TTLSpecOf(t)
			if !spec.Enabled || spec.AttributeName == "" || t.Status == StatusDeleting {
				continue
			}
			for {
				keys, err := list(ctx, t, spec.AttributeName, now)
				if errors.Is(err, ErrTableNotFound) {
					break
				}
				if err != nil {
					return total, err
				}
				deleted := 0
				for _, k := range keys {
					ok, err := TTLDelete(ctx, s, t, k, spec.AttributeName, now)
					if errors.Is(err, ErrTableNotFound) {
						break
					}
					if err != nil {
						return total, err
					}
					if ok {
						deleted++
					}
				}
				total += deleted
				if deleted == 0 || len(keys) < TTLBatch {
					break
				}
			}
		}
		if len(names) < 100 {
			return total, nil
		}
		after = names[len(names)-1]
	}
}
