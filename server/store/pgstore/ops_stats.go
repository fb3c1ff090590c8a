package pgstore

import (
	"context"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/store"
)

// opsMaxBuilds bounds the builds OpsStats reports (running first, then the
// latest finished), as `dynamopg status --builds` does.
const opsMaxBuilds = 100

// OpsStats reads the index builds, the queue and the stream counter with
// the queries of `dynamopg status` (queries/status.sql), so /metrics and
// status show the same numbers. They are database-wide: every process
// sharing the database reports the same values.
func (s *Store) OpsStats(ctx context.Context) (*store.OpsStats, error) {
	out := &store.OpsStats{}
	builds, err := s.q.StatusBuilds(ctx, s.pool, gen.StatusBuildsParams{MaxRows: opsMaxBuilds})
	if err != nil {
		return nil, wrap("ops stats: builds", err)
	}
	for _, b := range builds {
		if b.TableName == "" {
			continue // the table was dropped
		}
		out.Builds = append(out.Builds, store.BuildStat{Table: b.TableName, Index: b.IndexName, Phase: b.Phase,
			RowsDone: b.RowsDone, TableRows: b.EstTableRows})
	}
	queue, err := s.q.StatusQueue(ctx, s.pool)
	if err != nil {
		return nil, wrap("ops stats: queue", err)
	}
	for _, q := range queue {
		out.Queue.Depth += q.Depth
		out.Queue.PassedOver += q.PassedOver
		out.Queue.OldestAge = max(out.Queue.OldestAge, q.OldestS)
	}
	if out.StreamRecords, err = s.q.StreamRecordsWritten(ctx, s.pool); err != nil {
		return nil, wrap("ops stats: stream records", err)
	}
	return out, nil
}
