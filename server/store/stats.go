package store

import "context"

// PoolStatser is implemented by stores that expose their database pool's
// numbers (for GET /metrics). Keys are short snake_case names such as
// "acquired_conns", "max_conns", "wait_count", "wait_seconds_total"; a key
// ending in "_total" is a counter, any other a gauge.
type PoolStatser interface {
	PoolStats() map[string]float64
}

// SchemaChecker is implemented by stores that can tell whether the database
// schema is the one this build expects (for GET /ready). It returns nil when
// the schema is current.
type SchemaChecker interface {
	SchemaCurrent(ctx context.Context) error
}

// OpsStatser is implemented by stores that report their background work
// (for GET /metrics): the numbers `dynamopg status` shows.
type OpsStatser interface {
	OpsStats(ctx context.Context) (*OpsStats, error)
}

// OpsStats is one sample of a store's background work.
type OpsStats struct {
	// Builds are the online index builds the store knows of: running, and
	// finished ones still recorded. Builds of dropped tables are left out.
	Builds []BuildStat
	Queue  QueueStat
	// StreamRecords counts the stream records written to the database since
	// it was created (not lowered by the trim); -1 when unknown.
	StreamRecords int64
}

// BuildStat is the progress of one online index build.
type BuildStat struct {
	Table, Index string
	// Phase is allocating, barrier, backfill, sweep, active or failed (the
	// phases of dynamopg.index_builds; SQLite has backfill, active and
	// failed).
	Phase     string
	RowsDone  int64
	TableRows int64 // estimated rows of the table; -1 when unknown
}

// QueueStat is the state of the asynchronous index propagation queue, all
// tables together.
type QueueStat struct {
	Depth      int64   // pending rows
	PassedOver int64   // rows set aside now (an item that could not be locked)
	OldestAge  float64 // seconds since the oldest pending row was queued; 0 when empty
}
