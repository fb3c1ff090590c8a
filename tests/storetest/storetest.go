// Package storetest owns the storage contract's conformance suite: one
// Exercise entry point that every store.Store implementation (sqlitestore,
// pgstore) runs from its own tests, so that they behave identically. It
// knows nothing of any backend: everything goes through store.Store.
//
// One file per area: tables, items, concurrency, query, scan, indexes,
// streams, deleted tables, the background work of store/maintain, a table
// deleted under traffic, several stores on one database. The subtests are
// named like the contract methods they exercise.
package storetest

import (
	"context"
	"testing"

	"github.com/dynamopg/dynamopg/server/store"
)

// Backend is what Exercise needs of a driver.
type Backend struct {
	// New returns a fresh, empty store for the calling test with the
	// background work `dynamopg serve` runs (queue workers, sweeper, index
	// build recovery), closed in t.Cleanup.
	New func(t *testing.T) store.Store
	// Open opens another store on the database of s (which may be closed
	// already), as another server process or a restart would, closed in
	// t.Cleanup; with background false it runs no background work at all
	// (queued rows stay queued until a store with workers applies them).
	// Nil when a database cannot be opened twice (SQLite in memory): the
	// tests that need it are not run.
	Open func(t *testing.T, s store.Store, background bool) store.Store
	// Leftovers describes what remains in s's database of the storage of
	// deleted table tbl (its data, index and queue rows, its catalog row):
	// "" when nothing. Nil when the test cannot reach the database: the
	// check is not made.
	Leftovers func(t testing.TB, s store.Store, tbl *store.Table) string
	// ChecksVersions says every description the store hands out carries
	// its catalog version (Table.Version) and every write through an
	// out-of-date one is refused with ErrStaleTable, writing nothing; a
	// store without it may apply such writes, keeping the current indexes.
	ChecksVersions bool
}

// Exercise runs the whole contract suite. The subtests run in parallel,
// each with its own store.
func Exercise(ctx context.Context, t *testing.T, b Backend) {
	t.Helper()
	newStore := b.New
	t.Run("Tables", func(t *testing.T) { exerciseTables(ctx, t, newStore) })
	t.Run("Items", func(t *testing.T) { exerciseItems(ctx, t, newStore) })
	t.Run("Concurrency", func(t *testing.T) { exerciseConcurrency(ctx, t, newStore) })
	t.Run("Query", func(t *testing.T) { exerciseQuery(ctx, t, newStore) })
	t.Run("Scan", func(t *testing.T) { exerciseScan(ctx, t, newStore) })
	t.Run("Indexes", func(t *testing.T) { exerciseIndexes(ctx, t, newStore) })
	t.Run("MultiKey", func(t *testing.T) { exerciseMultiKey(ctx, t, newStore) })
	t.Run("Transact", func(t *testing.T) { exerciseTransact(ctx, t, newStore) })
	t.Run("TransactCancel", func(t *testing.T) { exerciseTransactCancel(ctx, t, newStore) })
	t.Run("GetMany", func(t *testing.T) { exerciseGetMany(ctx, t, newStore) })
	t.Run("Queue", func(t *testing.T) { exerciseQueue(ctx, t, newStore) })
	t.Run("Build", func(t *testing.T) { exerciseBuild(ctx, t, newStore) })
	t.Run("BuildKeySize", func(t *testing.T) { exerciseBuildKeySize(ctx, t, newStore) })
	t.Run("Streams", func(t *testing.T) { exerciseStreams(ctx, t, newStore) })
	t.Run("StreamUnchanged", func(t *testing.T) { exerciseStreamUnchanged(ctx, t, newStore) })
	t.Run("DeletedTables", func(t *testing.T) { exerciseDeletedTables(ctx, t, newStore) })
	t.Run("Put", func(t *testing.T) { exercisePut(ctx, t, newStore) })
	t.Run("PutMany", func(t *testing.T) { exercisePutMany(ctx, t, newStore) })
	t.Run("Maintain", func(t *testing.T) { exerciseMaintain(ctx, t, newStore) })
	t.Run("Admin", func(t *testing.T) { exerciseStatus(ctx, t, newStore) })
	t.Run("TableDelete", func(t *testing.T) { exerciseDeleteUnderTraffic(ctx, t, b) })
	if b.Open != nil {
		t.Run("Processes", func(t *testing.T) { exerciseProcesses(ctx, t, b) })
	}
}
