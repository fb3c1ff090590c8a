package store

import "context"

// IndexBuilds builds global secondary indexes added to a live table.
//
// The API adds the index through TableUpdate with Status CREATING (the
// store creates its empty storage in that same transaction). From that
// commit on every write maintains the index exactly as an ACTIVE one. The
// API then calls IndexBuildStart; the store backfills the index from the
// table in the background (setting Backfilling while it does), and flips
// it to ACTIVE. A build interrupted by a transient failure or a crash is
// finished later by the store's recovery; a build that meets an item it
// cannot index removes the index while it is still CREATING.
// maintain.IndexBuildWait waits for a build to end.
type IndexBuilds interface {
	// IndexBuildStart starts the build of a CREATING index and returns at once.
	IndexBuildStart(ctx context.Context, t *Table, indexName string) error
}
