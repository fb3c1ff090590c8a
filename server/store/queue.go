package store

import "context"

// Queue is the asynchronous index propagation of a store. A write to a
// table with async indexes enqueues a row naming the item in the write's
// own transaction; the store's workers later write the item's *current*
// state to those indexes, so rows applied late, twice or out of order
// converge.
type Queue interface {
	// QueueWait returns once no queued change of the table is pending, or
	// when ctx ends. Tests and the benchmark use it; the API never waits.
	QueueWait(ctx context.Context, t *Table) error
	// QueueDepth counts the pending rows of all tables.
	QueueDepth(ctx context.Context) (int64, error)
}
