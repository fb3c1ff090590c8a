package store

import "time"

// StatusInput chooses what Admin.Status reads.
type StatusInput struct {
	// Tables asks for every table with its items and indexes (`dynamopg
	// status`; not GET /metrics: a SQLite store counts them).
	Tables bool
	// MaxBuilds bounds the index builds listed: running first, then the
	// latest finished.
	MaxBuilds int
}

// Status is one sample of a store's state: what `dynamopg status` prints
// (as text, or as JSON with these field names) and GET /metrics exposes in
// part (builds, queue, stream records). Figures are database-wide except
// where a field says otherwise.
type Status struct {
	Engine string        `json:"engine"` // postgresql or sqlite
	Tables []TableStatus `json:"tables"`
	// Builds are the online index builds the store knows of: running, and
	// finished ones still recorded. SQLite records no build progress in the
	// file, so it reports the builds of this process only.
	Builds []BuildStatus `json:"builds,omitempty"`
	// Queue is the asynchronous index queue, per table with pending rows.
	Queue []QueueStatus `json:"queue"`
	// Recovery is the index build recovery worker's state; nil where the
	// store has none (SQLite resumes builds when it opens the file).
	Recovery *RecoveryStatus `json:"recovery,omitempty"`
	// StreamRecords counts the stream records written to the database since
	// it was created (not lowered by the trim); -1 when unknown.
	StreamRecords int64 `json:"stream_records"`
}

// TableStatus is one table of Status.
type TableStatus struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	// Items is an estimate on PostgreSQL (pg_class.reltuples; Estimated
	// is true), exact on SQLite; -1 when unknown.
	Items     int64         `json:"items"`
	Estimated bool          `json:"items_estimated"`
	Bytes     int64         `json:"bytes,omitempty"` // the data table's size where known
	Indexes   []IndexStatus `json:"indexes,omitempty"`
}

// IndexStatus is one secondary index of a TableStatus.
type IndexStatus struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"` // GSI or LSI
	Status      string `json:"status"`
	Backfilling bool   `json:"backfilling,omitempty"`
	Propagation string `json:"propagation"` // PropagationSync or PropagationAsync
	Rows        int64  `json:"rows"`        // as TableStatus.Items; -1 unknown
}

// BuildStatus is the progress of one online index build.
type BuildStatus struct {
	Table   string `json:"table"`
	Index   string `json:"index"`
	IndexID int64  `json:"index_id"`
	// Phase is allocating, barrier, backfill, sweep, active or failed (the
	// phases of dynamopg.index_builds; SQLite has backfill, active and
	// failed).
	Phase     string `json:"phase"`
	RowsDone  int64  `json:"rows_done"`
	TableRows int64  `json:"table_rows_estimate"` // -1: unknown
	// The rest is PostgreSQL's (dynamopg.index_build_status); zero on
	// SQLite.
	Pages      int64      `json:"pages"`
	Retries    int64      `json:"retries"`
	Attempts   int32      `json:"attempts"`
	Owner      string     `json:"owner,omitempty"`
	LastError  string     `json:"last_error,omitempty"`
	ElapsedS   float64    `json:"elapsed_seconds"`       // this attempt's
	HeartbeatS float64    `json:"heartbeat_age_seconds"` // -1: none
	NextInS    float64    `json:"next_attempt_in_seconds"`
	StartedAt  *time.Time `json:"started_at,omitempty"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
}

// Finished reports whether the build ended (active or failed).
func (b BuildStatus) Finished() bool { return b.Phase == "active" || b.Phase == "failed" }

// QueueStatus is the asynchronous index queue of one table.
type QueueStatus struct {
	Table      string  `json:"table"`
	Depth      int64   `json:"depth"`          // pending rows
	PassedOver int64   `json:"passed_over"`    // rows set aside now (an item that could not be locked)
	OldestS    float64 `json:"oldest_seconds"` // since the oldest pending row was queued; 0 when empty
}

// RecoveryStatus is the state of PostgreSQL's index build recovery worker,
// as the database shows it.
type RecoveryStatus struct {
	IntervalMs   int32      `json:"interval_ms"`
	Creating     int64      `json:"creating_indexes"`
	Due          int64      `json:"due_unowned"`
	Running      int64      `json:"running"`
	Retrying     int64      `json:"retrying"`
	LastStarted  *time.Time `json:"last_started,omitempty"`
	LastFinished *time.Time `json:"last_finished,omitempty"`
}
