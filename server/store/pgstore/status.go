package pgstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/store"
)

// Status reads the numbers of `dynamopg status` and GET /metrics with the
// queries of queries/status.sql: estimated rows (never a count(*)), the
// builds of dynamopg.index_build_status, the queue, the recovery worker's
// state and the stream counter. They are database-wide: every process
// sharing the database reports the same values.
func (s *Store) Status(ctx context.Context, in store.StatusInput) (*store.Status, error) {
	out := &store.Status{Engine: "postgresql", Tables: []store.TableStatus{}, Queue: []store.QueueStatus{}}
	if in.Tables {
		if err := s.statusTables(ctx, out); err != nil {
			return nil, err
		}
	}
	builds, err := s.q.StatusBuilds(ctx, s.pool, gen.StatusBuildsParams{MaxRows: int32(min(max(in.MaxBuilds, 0), 1<<30))})
	if err != nil {
		return nil, wrap("status: builds", err)
	}
	for _, b := range builds {
		if b.TableName == "" {
			continue // the table was dropped
		}
		out.Builds = append(out.Builds, store.BuildStatus{Table: b.TableName, Index: b.IndexName, IndexID: b.IndexID,
			Phase: b.Phase, RowsDone: b.RowsDone, TableRows: b.EstTableRows, Pages: b.Pages, Retries: b.Retries,
			Attempts: b.Attempts, Owner: b.Owner, LastError: b.LastError, ElapsedS: b.ElapsedS,
			HeartbeatS: b.HeartbeatAgeS, NextInS: b.NextAttemptInS,
			StartedAt: timePtr(b.StartedAt), FinishedAt: timePtr(b.FinishedAt)})
	}
	queue, err := s.q.StatusQueue(ctx, s.pool)
	if err != nil {
		return nil, wrap("status: queue", err)
	}
	for _, q := range queue {
		out.Queue = append(out.Queue, store.QueueStatus{Table: q.TableName, Depth: q.Depth, PassedOver: q.PassedOver, OldestS: q.OldestS})
	}
	rec, err := s.q.StatusRecovery(ctx, s.pool)
	if err != nil {
		return nil, wrap("status: recovery", err)
	}
	out.Recovery = &store.RecoveryStatus{IntervalMs: rec.IntervalMs, Creating: rec.Creating, Due: rec.Due,
		Running: rec.Running, Retrying: rec.Retrying, LastStarted: timePtr(rec.LastStarted), LastFinished: timePtr(rec.LastFinished)}
	if out.StreamRecords, err = s.q.StreamRecordsWritten(ctx, s.pool); err != nil {
		return nil, wrap("status: stream records", err)
	}
	return out, nil
}

// statusTables fills out's tables and their indexes.
func (s *Store) statusTables(ctx context.Context, out *store.Status) error {
	tables, err := s.q.StatusTables(ctx, s.pool)
	if err != nil {
		return wrap("status: tables", err)
	}
	byName := map[string]int{}
	for _, t := range tables {
		byName[t.Name] = len(out.Tables)
		out.Tables = append(out.Tables, store.TableStatus{Name: t.Name, Status: t.Status, Items: t.EstItems, Estimated: true, Bytes: t.Bytes})
	}
	indexes, err := s.q.StatusIndexes(ctx, s.pool)
	if err != nil {
		return wrap("status: indexes", err)
	}
	for _, ix := range indexes {
		i, ok := byName[ix.TableName]
		if !ok {
			continue
		}
		kind := "LSI"
		if ix.Global {
			kind = "GSI"
		}
		out.Tables[i].Indexes = append(out.Tables[i].Indexes, store.IndexStatus{Name: ix.IndexName, Kind: kind,
			Status: ix.Status, Backfilling: ix.Backfilling, Propagation: ix.Propagation, Rows: ix.EstRows})
	}
	return nil
}

// timePtr is a nullable timestamp as a pointer (nil: NULL).
func timePtr(t pgtype.Timestamptz) *time.Time {
	if !t.Valid {
		return nil
	}
	v := t.Time
	return &v
}
