// Package storetest owns the storage contract's conformance suite: one
// Exercise entry point that every store.Store implementation (sqlitestore,
// pgstore) runs from its own tests, so that they behave identically. It
// knows nothing of any backend: everything goes through store.Store.
//
// One file per area: tables, items, concurrency, query, scan, indexes,
// streams, deleted tables, the background work of store/maintain. The
// subtests are named like the contract methods they exercise.
package storetest

import (
	"context"
	"testing"

	"github.com/dynamopg/dynamopg/server/store"
)

// Exercise runs the whole contract suite. newStore must return a fresh,
// empty store for the calling test and close it in t.Cleanup; the subtests
// run in parallel, each with its own store.
func Exercise(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Helper()
	t.Run("Tables", func(t *testing.T) { exerciseTables(ctx, t, newStore) })
	t.Run("Items", func(t *testing.T) { exerciseItems(ctx, t, newStore) })
	t.Run("Concurrency", func(t *testing.T) { exerciseConcurrency(ctx, t, newStore) })
	t.Run("Query", func(t *testing.T) { exerciseQuery(ctx, t, newStore) })
	t.Run("Scan", func(t *testing.T) { exerciseScan(ctx, t, newStore) })
	t.Run("Indexes", func(t *testing.T) { exerciseIndexes(ctx, t, newStore) })
	t.Run("Transact", func(t *testing.T) { exerciseTransact(ctx, t, newStore) })
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
}
