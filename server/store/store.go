// Package store owns the storage contract: Store, the one interface the API
// layer and the background work need from a database, composed of the small
// interfaces below (tables, items, transactions, streams, the index queue,
// index builds, administration); the catalog types it stores; the sentinel
// errors every implementation maps its database errors to; and the
// semantics both implementations share (key hashing, scan segments, index
// projection, TTL expiry, stream specifications).
//
// The PostgreSQL implementation (pgstore) and the SQLite implementation
// (sqlitestore) implement every method and must behave identically;
// tests/storetest exercises both. Work that runs in the background over the
// contract (stream trim, TTL sweep, token purge) lives once, in
// store/maintain.
package store

import "context"

// Store is everything the API and the background work need from a
// database. Every method is safe for concurrent use; all of them take the
// caller's context.
type Store interface {
	Tables
	Items
	Transactions
	Streams
	Queue
	IndexBuilds
	Admin
}

// Tables is the catalog: table descriptions and their storage.
type Tables interface {
	// TableCreate stores a new table and creates its storage (and its indexes'
	// storage). It assigns t.ID. ErrTableExists when the name is taken.
	TableCreate(ctx context.Context, t *Table) error
	// TableGet reads one table's description. ErrTableNotFound when absent.
	TableGet(ctx context.Context, name string) (*Table, error)
	// TableGetCached is TableGet for an item operation: the description may
	// come from memory (a store that keeps a table cache: pgstore), in which
	// case cached is true, and it carries a Version, so that an item write
	// given it fails with ErrStaleTable, writing nothing, once the catalog
	// has changed. The caller must not modify it. A store without a cache
	// answers TableGet's description with cached false.
	TableGetCached(ctx context.Context, name string) (t *Table, cached bool, err error)
	// TableForget drops name's description from memory (nothing without a
	// cache).
	TableForget(name string)
	// TableList returns up to limit table names in byte order, strictly after
	// `after` ("" for the start).
	TableList(ctx context.Context, after string, limit int) ([]string, error)
	// TableUpdate reads the table under a lock, lets fn change it, and stores
	// the result; fn's error aborts with nothing changed and is returned as is.
	TableUpdate(ctx context.Context, name string, fn func(t *Table) error) (*Table, error)
	// TableDelete removes the table from the catalog and drops its storage;
	// it returns the description as it was. ErrTableNotFound when absent.
	// A table that has a stream label is recorded as a DeletedTable in the
	// same transaction (Streams.DeletedTableGet).
	TableDelete(ctx context.Context, name string) (*Table, error)
	// TableStats counts the table's items and their stored size in bytes.
	TableStats(ctx context.Context, t *Table) (items, bytes int64, err error)
}

// Admin is the database handle itself: liveness, schema, pool figures and
// the status report, for GET /ready, GET /metrics and `dynamopg status`.
type Admin interface {
	// Ping answers when the database answers.
	Ping(ctx context.Context) error
	// Close stops the store's own workers and releases the database handles.
	Close()
	// SchemaCurrent returns nil when the database schema is the one this
	// build expects.
	SchemaCurrent(ctx context.Context) error
	// PoolStats reports the database pool's numbers. Keys are short
	// snake_case names such as "acquired_conns", "max_conns", "wait_count",
	// "wait_seconds_total"; a key ending in "_total" is a counter, any other
	// a gauge. A store with several pools prefixes each key with the pool's
	// name and "_" (SQLite's "writer_" and "reader_").
	PoolStats() map[string]float64
	// Status reports the store's tables, index builds, queue and recovery
	// worker (`dynamopg status`, GET /metrics).
	Status(ctx context.Context, in StatusInput) (*Status, error)
}
