package pgstore

import (
	"context"
	"encoding/json"
	"math/big"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// Streams: every write of a table whose stream is enabled records its
// change in its own transaction (prepared.go, dynamopg.stream_record_sql);
// this file reads and trims the records, and lists the TTL sweeper's
// candidates (the loops are store/maintain's).

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

// ItemExpiredKeys lists up to limit keys of items of t that look expired.
func (s *Store) ItemExpiredKeys(ctx context.Context, t *store.Table, name string, now time.Time, limit int) ([]attr.Item, error) {
	lo, hi := store.TTLWindow(now)
	raws, err := s.q.TTLExpiredKeys(ctx, s.pool, gen.TTLExpiredKeysParams{
		TableID:  t.ID,
		AttrName: escapeString(name),
		Lo:       pgtype.Numeric{Int: big.NewInt(lo), Valid: true},
		Hi:       pgtype.Numeric{Int: big.NewInt(hi), Valid: true},
		MaxItems: int32(min(limit, 1<<30)),
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
