package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore/internal/sqlitedb"
)

// Streams: apply (write.go) writes one stream_records row per change of an
// item of a table whose stream is enabled, in the change's transaction;
// this file reads and trims them and lists the TTL sweeper's candidates
// (the loops are store/maintain's).

// streamRecord records the change of the target to neu when its table's
// stream is enabled (the definition read in this transaction decides) and
// the write changes the item (store.StreamChanged): INSERT when there was
// no item, REMOVE when neu is nil, MODIFY otherwise. The single writer
// commits records in seq order.
func (r *target) streamRecord(ctx context.Context, tx *sql.Tx, neu attr.Item) error {
	spec := store.StreamSpecOf(r.def)
	if !spec.Enabled || !store.StreamChanged(r.old, neu) {
		return nil
	}
	event := "MODIFY"
	switch {
	case r.old == nil:
		event = "INSERT"
	case neu == nil:
		event = "REMOVE"
	}
	img := neu
	if img == nil {
		img = r.old
	}
	var oldJSON, newJSON []byte
	if r.old != nil {
		oldJSON = r.old.AppendJSON(nil)
	}
	if neu != nil {
		newJSON = neu.AppendJSON(nil)
	}
	var ttl int64
	if neu == nil && store.IsTTLDelete(ctx) {
		ttl = 1
	}
	err := queries.StreamRecordInsert(ctx, tx, sqlitedb.StreamRecordInsertParams{
		TableID: r.def.ID, Label: spec.Label, EventName: event, Keys: r.def.KeyOf(img).AppendJSON(nil),
		OldImage: oldJSON, NewImage: newJSON, CreatedAt: time.Now().UnixNano(), Ttl: ttl,
	})
	if err != nil {
		return fmt.Errorf("stream record: %w", err)
	}
	return nil
}

// StreamRead returns up to limit records of the table's stream label with
// Seq > after, in Seq order.
func (s *Store) StreamRead(ctx context.Context, tableID int64, label string, after int64, limit int) ([]store.StreamRecord, error) {
	out := []store.StreamRecord{}
	if limit <= 0 {
		return out, nil
	}
	err := s.inRead(ctx, func(tx *sql.Tx) error {
		rows, err := queries.StreamRead(ctx, tx, sqlitedb.StreamReadParams{
			TableID: tableID, Label: label, After: after, MaxRecords: int64(limit),
		})
		if err != nil {
			return err
		}
		for _, r := range rows {
			rec := store.StreamRecord{
				Seq: r.Seq, Label: r.Label, EventName: r.EventName,
				CreatedAt: time.Unix(0, r.CreatedAt).UTC(), TTL: r.Ttl != 0,
			}
			if rec.Keys, err = decodeItem(r.Keys); err != nil {
				return err
			}
			if r.OldImage != nil {
				if rec.OldImage, err = decodeItem(r.OldImage); err != nil {
					return err
				}
			}
			if r.NewImage != nil {
				if rec.NewImage, err = decodeItem(r.NewImage); err != nil {
					return err
				}
			}
			out = append(out, rec)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: stream read: %w", err)
	}
	return out, nil
}

// StreamBounds returns the lowest and highest Seq of the label (0, 0 when
// it has no records).
func (s *Store) StreamBounds(ctx context.Context, tableID int64, label string) (first, last int64, err error) {
	err = s.inRead(ctx, func(tx *sql.Tx) error {
		b, err := queries.StreamBounds(ctx, tx, sqlitedb.StreamBoundsParams{TableID: tableID, Label: label})
		first, last = b.FirstSeq, b.LastSeq
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("sqlitestore: stream bounds: %w", err)
	}
	return first, last, nil
}

// StreamTrim deletes the records created before the cutoff and the
// deleted tables deleted before it.
func (s *Store) StreamTrim(ctx context.Context, before time.Time) error {
	err := s.inWrite(ctx, func(tx *sql.Tx) error {
		if err := queries.StreamTrim(ctx, tx, sqlitedb.StreamTrimParams{Before: before.UnixNano()}); err != nil {
			return err
		}
		return queries.DeletedTableTrim(ctx, tx, sqlitedb.DeletedTableTrimParams{Before: before.UnixNano()})
	})
	if err != nil {
		return fmt.Errorf("sqlitestore: stream trim: %w", err)
	}
	return nil
}

// ItemExpiredKeys lists up to limit keys of items of t that look expired
// (ttl_candidates).
func (s *Store) ItemExpiredKeys(ctx context.Context, t *store.Table, name string, now time.Time, limit int) ([]attr.Item, error) {
	lo, hi := store.TTLWindow(now)
	var out []attr.Item
	err := s.inRead(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, s.stmts.on("ttl_candidates", t.ID), name, lo, hi, limit)
		if err != nil {
			return explain(ctx, tx, t, nil, "ttl sweep of", err)
		}
		defer rows.Close()
		for rows.Next() {
			var raw []byte
			if err := rows.Scan(&raw); err != nil {
				return err
			}
			it, err := decodeItem(raw)
			if err != nil {
				return err
			}
			out = append(out, t.KeyOf(it))
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: %w", err)
	}
	return out, nil
}
