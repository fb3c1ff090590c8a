package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// Status reports the tables with exact counts of their items and index
// rows (when asked: counting reads every row), the index builds this
// process ran (SQLite records no build progress in the file: only the
// process building knows it), the queue per table and the stream counter,
// from one read transaction.
func (s *Store) Status(ctx context.Context, in store.StatusInput) (*store.Status, error) {
	out := &store.Status{Engine: "sqlite", Tables: []store.TableStatus{}, Queue: []store.QueueStatus{}}
	builds := s.buildStats.list()
	if len(builds) > in.MaxBuilds {
		builds = builds[:max(in.MaxBuilds, 0)]
	}
	out.Builds = builds
	err := s.inRead(ctx, func(tx *sql.Tx) error {
		names, err := statusTables(ctx, tx, out, in.Tables)
		if err != nil {
			return err
		}
		if err := statusQueue(ctx, tx, out, names); err != nil {
			return err
		}
		// stream_records' seq is AUTOINCREMENT: sqlite_sequence keeps the
		// highest seq ever committed, which the trim does not lower.
		return tx.QueryRowContext(ctx,
			`SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'stream_records'), 0)`).Scan(&out.StreamRecords)
	})
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: status: %w", err)
	}
	return out, nil
}

// statusTables reads the catalog (table names by id, for the queue) and,
// with counts, fills out.Tables with each table's items and index rows.
func statusTables(ctx context.Context, tx *sql.Tx, out *store.Status, counts bool) (map[int64]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT def FROM tables ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("tables: %w", err)
	}
	var defs []*store.Table
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			rows.Close()
			return nil, err
		}
		t, err := decodeDef(raw)
		if err != nil {
			rows.Close()
			return nil, err
		}
		defs = append(defs, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	names := map[int64]string{}
	for _, t := range defs {
		names[t.ID] = t.Name
		if !counts {
			continue
		}
		ts := store.TableStatus{Name: t.Name, Status: t.Status, Items: countRows(ctx, tx, dataTable(t.ID))}
		for _, ix := range t.Indexes {
			kind := "LSI"
			if ix.Global {
				kind = "GSI"
			}
			p := ix.Propagation
			if p == "" {
				p = store.PropagationSync
			}
			ts.Indexes = append(ts.Indexes, store.IndexStatus{Name: ix.Name, Kind: kind, Status: ix.Status,
				Backfilling: ix.Backfilling, Propagation: p, Rows: countRows(ctx, tx, indexTable(ix.ID))})
		}
		out.Tables = append(out.Tables, ts)
	}
	return names, nil
}

// countRows counts a data or index table's rows; -1 when it cannot.
func countRows(ctx context.Context, tx *sql.Tx, table string) int64 {
	var n int64
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
		return -1
	}
	return n
}

// statusQueue fills out.Queue: the pending rows per table, the oldest's age.
func statusQueue(ctx context.Context, tx *sql.Tx, out *store.Status, names map[int64]string) error {
	rows, err := tx.QueryContext(ctx, `
SELECT table_id, count(*), min(enqueued_at) FROM index_queue GROUP BY table_id ORDER BY count(*) DESC`)
	if err != nil {
		return fmt.Errorf("queue: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, n int64
		var oldest sql.NullInt64 // enqueued_at is NULL in rows queued before it existed
		if err := rows.Scan(&id, &n, &oldest); err != nil {
			return err
		}
		name := names[id]
		if name == "" {
			name = fmt.Sprintf("#%d", id)
		}
		q := store.QueueStatus{Table: name, Depth: n}
		if oldest.Valid {
			q.OldestS = max(time.Since(time.Unix(0, oldest.Int64)).Seconds(), 0)
		}
		out.Queue = append(out.Queue, q)
	}
	return rows.Err()
}
