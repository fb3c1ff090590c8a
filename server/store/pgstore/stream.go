package pgstore

import (
	"context"
	"encoding/json"
	"math/big"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// Streams: item_insert, item_replace and item_delete (sql/functions/items.sql)
// write the records through dynamopg.stream_write (stream.sql) in the
// writer's transaction; this file reads and trims them, and runs the two
// background loops of streams and TTL: the trim (StreamRetention, every
// streamTrimInterval and once at Open) and the TTL sweeper.

var _ store.Streams = (*Store)(nil)

const (
	// StreamRetention is how long stream records are kept.
	StreamRetention = 24 * time.Hour
	// streamTrimInterval is the interval of the trim loop.
	streamTrimInterval = time.Hour
	// DefaultTTLInterval is the TTL sweeper's interval unless
	// Options.TTLInterval sets one.
	DefaultTTLInterval = 30 * time.Second
)

// StreamRead returns up to limit records of the table's stream label with
// Seq > after, in Seq order. Seqs of one table become visible in increasing
// order (stream.sql), so paging by Seq misses nothing.
func (s *Store) StreamRead(ctx context.Context, tableID int64, label string, after int64, limit int) ([]store.StreamRecord, error) {
	if limit <= 0 {
		return []store.StreamRecord{}, nil
	}
	rows, err := s.q.StreamRead(ctx, s.pool, gen.StreamReadParams{
		TableID: tableID, Label: label, After: after, MaxRecords: int32(min(limit, 1<<30)),
	})
	if err != nil {
		return nil, wrap("stream read", err)
	}
	out := make([]store.StreamRecord, 0, len(rows))
	for _, r := range rows {
		rec := store.StreamRecord{
			Seq: r.Seq, Label: r.Label, EventName: r.EventName,
			CreatedAt: r.CreatedAt.Time, TTL: r.Ttl,
		}
		if rec.Keys, err = decodeItem(r.Keys); err != nil {
			return nil, err
		}
		if rec.OldImage, err = decodeItem(r.OldImage); err != nil {
			return nil, err
		}
		if rec.NewImage, err = decodeItem(r.NewImage); err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// StreamBounds returns the lowest and highest Seq of the label (0, 0 when
// it has no records).
func (s *Store) StreamBounds(ctx context.Context, tableID int64, label string) (first, last int64, err error) {
	r, err := s.q.StreamBounds(ctx, s.pool, gen.StreamBoundsParams{TableID: tableID, Label: label})
	if err != nil {
		return 0, 0, wrap("stream bounds", err)
	}
	return r.FirstSeq, r.LastSeq, nil
}

// StreamTrim deletes the records created before the cutoff.
func (s *Store) StreamTrim(ctx context.Context, before time.Time) error {
	if _, err := s.q.StreamTrim(ctx, s.pool, gen.StreamTrimParams{
		Before: pgtype.Timestamptz{Time: before, Valid: true},
	}); err != nil {
		return wrap("stream trim", err)
	}
	return nil
}

// TTLSweep makes one pass of the TTL sweeper as of now: for every table
// with TTL enabled it deletes, TTLBatch at a time, the items whose TTL
// attribute is a Number of epoch seconds before now (and not more than five
// years before: store.TTLWindow), each through ItemWrite under
// store.WithTTLDelete after re-checking it under the row lock, so indexes
// are maintained and the stream records a service deletion. It returns how
// many items it deleted.
func (s *Store) TTLSweep(ctx context.Context, now time.Time) (int, error) {
	return store.TTLSweepTables(ctx, s, now, s.ttlCandidates)
}

// ttlCandidates lists up to TTLBatch keys of items of t that look expired.
func (s *Store) ttlCandidates(ctx context.Context, t *store.Table, name string, now time.Time) ([]attr.Item, error) {
	lo, hi := store.TTLWindow(now)
	raws, err := s.q.TTLExpiredKeys(ctx, s.pool, gen.TTLExpiredKeysParams{
		TableID:  t.ID,
		AttrName: escapeString(name),
		Lo:       pgtype.Numeric{Int: big.NewInt(lo), Valid: true},
		Hi:       pgtype.Numeric{Int: big.NewInt(hi), Valid: true},
		MaxItems: store.TTLBatch,
	})
	if err != nil {
		return nil, wrap("ttl sweep", err)
	}
	return decodeItems(raws)
}

// escapeString is an attribute name as the stored items spell it (the NUL
// escape of sql/README.md).
func escapeString(name string) string {
	b, _ := json.Marshal(name)
	var out string
	if err := json.Unmarshal(escapeJSON(b), &out); err != nil {
		return name
	}
	return out
}

// streamLoops are the trim loop and the TTL sweeper Open starts.
type streamLoops struct {
	stop context.CancelFunc
	wg   sync.WaitGroup
}

// startStreamLoops starts the trim loop (a pass now, then every
// streamTrimInterval) and, unless ttlInterval is negative, the TTL sweeper
// (every ttlInterval, DefaultTTLInterval when 0).
func (s *Store) startStreamLoops(ttlInterval time.Duration) {
	ctx, cancel := context.WithCancel(context.Background())
	s.streamLoops.stop = cancel
	s.streamLoops.wg.Go(func() {
		s.every(ctx, 0, streamTrimInterval, func() {
			if err := s.StreamTrim(ctx, time.Now().Add(-StreamRetention)); err != nil && ctx.Err() == nil {
				s.log.WarnContext(ctx, "stream trim failed", "err", err)
			}
		})
	})
	if ttlInterval < 0 {
		return
	}
	if ttlInterval == 0 {
		ttlInterval = DefaultTTLInterval
	}
	s.streamLoops.wg.Go(func() {
		s.every(ctx, ttlInterval, ttlInterval, func() {
			n, err := s.TTLSweep(ctx, time.Now())
			if err != nil && ctx.Err() == nil {
				s.log.WarnContext(ctx, "ttl sweep: pass incomplete", "err", err, "deleted", n)
			} else if n > 0 {
				s.log.DebugContext(ctx, "ttl sweep", "deleted", n)
			}
		})
	})
}

// stopStreamLoops stops the loops and waits for them.
func (s *Store) stopStreamLoops() {
	if s.streamLoops.stop != nil {
		s.streamLoops.stop()
		s.streamLoops.wg.Wait()
	}
}

// every runs fn after first, then every interval, until ctx ends.
func (s *Store) every(ctx context.Context, first, interval time.Duration, fn func()) {
	t := time.NewTimer(first)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fn()
		t.Reset(interval)
	}
}
