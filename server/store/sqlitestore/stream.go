package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// Streams: apply (write.go) writes one stream_records row per change of an
// item of a table whose stream is enabled, in the change's transaction;
// this file reads and trims them and lists the TTL sweeper's candidates
// (the loops are store/maintain's).

// streamRecord records the change of the target to neu when its table's
// stream is enabled (the definition read in this transaction decides):
// INSERT when there was no item, REMOVE when neu is nil, MODIFY otherwise.
// The single writer commits records in seq order.
func (r *target) streamRecord(ctx context.Context, tx *sql.Tx, neu attr.Item) error {
	spec := store.StreamSpecOf(r.def)
	if !spec.Enabled || (r.old == nil && neu == nil) {
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
	ttl := neu == nil && store.IsTTLDelete(ctx)
	_, err := tx.ExecContext(ctx, `
INSERT INTO stream_records (table_id, label, event_name, keys, old_image, new_image, created_at, ttl)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		r.def.ID, spec.Label, event, r.def.KeyOf(img).AppendJSON(nil), oldJSON, newJSON,
		time.Now().UnixNano(), ttl)
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
		rows, err := tx.QueryContext(ctx, `
SELECT seq, label, event_name, keys, old_image, new_image, created_at, ttl
  FROM stream_records
 WHERE table_id = ? AND label = ? AND seq > ?
 ORDER BY seq LIMIT ?`, tableID, label, after, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var rec store.StreamRecord
			var keys, oldImg, newImg []byte
			var created int64
			if err := rows.Scan(&rec.Seq, &rec.Label, &rec.EventName, &keys, &oldImg, &newImg, &created, &rec.TTL); err != nil {
				return err
			}
			rec.CreatedAt = time.Unix(0, created).UTC()
			if rec.Keys, err = decodeItem(keys); err != nil {
				return err
			}
			if oldImg != nil {
				if rec.OldImage, err = decodeItem(oldImg); err != nil {
					return err
				}
			}
			if newImg != nil {
				if rec.NewImage, err = decodeItem(newImg); err != nil {
					return err
				}
			}
			out = append(out, rec)
		}
		return rows.Err()
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
		return tx.QueryRowContext(ctx, `
SELECT coalesce(min(seq), 0), coalesce(max(seq), 0) FROM stream_records
 WHERE table_id = ? AND label = ?`, tableID, label).Scan(&first, &last)
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
		if _, err := tx.ExecContext(ctx, `DELETE FROM stream_records WHERE created_at < ?`, before.UnixNano()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM deleted_tables WHERE deleted_at < ?`, before.UnixNano())
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlitestore: stream trim: %w", err)
	}
	return nil
}

// ItemExpiredKeys lists up to limit keys of items of t that look expired.
// json_each walks the item's top-level attributes, so the attribute name is
// compared, never spliced into a JSON path.
func (s *Store) ItemExpiredKeys(ctx context.Context, t *store.Table, name string, now time.Time, limit int) ([]attr.Item, error) {
	lo, hi := store.TTLWindow(now)
	var out []attr.Item
	err := s.inRead(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, fmt.Sprintf(`
SELECT d.item FROM %s d, json_each(CAST(d.item AS TEXT)) a
 WHERE a.key = ? AND json_type(a.value, '$.N') = 'text'
   AND CAST(json_extract(a.value, '$.N') AS REAL) >= ?
   AND CAST(json_extract(a.value, '$.N') AS REAL) < ?
 LIMIT ?`, dataTable(t.ID)), name, lo, hi, limit)
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
