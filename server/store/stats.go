package store

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
