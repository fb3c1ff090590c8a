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
		names, err := s.statusTables(ctx, tx, out, in.Tables)
		if err != nil {
			return err
		}
		if err := statusQueue(ctx, tx, out, names); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, s.stmts.get("stream_seq_last", stmtVars{})).Scan(&out.StreamRecords)
	})
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: status: %w", err)
	}
	return out, nil
}

// statusTables reads the catalog (table names by id, for the queue) and,
// with counts, fills out.Tables with each table's items and index rows.
func (s *Store) statusTables(ctx context.Context, tx *sql.Tx, out *store.Status, counts bool) (map[int64]string, error) {
	raws, err := queries.TableDefs(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("tables: %w", err)
	}
	names := map[int64]string{}
	for _, raw := range raws {
		t, err := decodeDef(raw, 0)
		if err != nil {
			return nil, err
		}
		names[t.ID] = t.Name
		if !counts {
			continue
		}
		ts := store.TableStatus{Name: t.Name, Status: t.Status, Items: countRows(ctx, tx, s.stmts.on("item_count", t.ID))}
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
				Backfilling: ix.Backfilling, Propagation: p, Rows: countRows(ctx, tx, s.stmts.on("index_count", ix.ID))})
		}
		out.Tables = append(out.Tables, ts)
	}
	return names, nil
}

// countRows runs a count (item_count, index_count); -1 when it cannot.
func countRows(ctx context.Context, tx *sql.Tx, count string) int64 {
	var n int64
	if err := tx.QueryRowContext(ctx, count).Scan(&n); err != nil {
		return -1
	}
	return n
}

// statusQueue fills out.Queue: the pending rows per table, the oldest's age.
func statusQueue(ctx context.Context, tx *sql.Tx, out *store.Status, names map[int64]string) error {
	rows, err := queries.QueueByTable(ctx, tx)
	if err != nil {
		return fmt.Errorf("queue: %w", err)
	}
	for _, r := range rows {
		name := names[r.TableID]
		if name == "" {
			name = fmt.Sprintf("#%d", r.TableID)
		}
		q := store.QueueStatus{Table: name, Depth: r.Depth}
		if r.Oldest > 0 { // 0: only rows queued before enqueued_at existed
			q.OldestS = max(time.Since(time.Unix(0, r.Oldest)).Seconds(), 0)
		}
		out.Queue = append(out.Queue, q)
	}
	return nil
}
