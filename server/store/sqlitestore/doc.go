// Package sqlitestore owns the SQLite implementation of store.Store: opening
// the database file (or an in-memory database), its embedded catalog schema,
// the per-table and per-index storage it creates from table ids, the key
// encodings that make SQLite's byte order equal DynamoDB's key order, and the
// translation of SQLite result codes to the store's sentinel errors.
//
// Layout of the database:
//
//   - tables: the catalog, one row per DynamoDB table holding the whole
//     store.Table as JSON.
//   - t_<id>: one data table per DynamoDB table (id from the catalog, never
//     the user's name), keyed by (pk, sk).
//   - i_<id>: one table per secondary index, keyed by (ipk, isk, pk, sk);
//     a multi-attribute key has one column per attribute (ipk, ipk2...,
//     isk, isk2...: keycols.go).
//   - index_queue: the items whose async indexes are behind; stream_records,
//     deleted_tables, tx_tokens: streams, and TransactWriteItems' tokens.
//
// Its SQL is in sql/, never in Go strings: the numbered migrations that
// create the fixed tables (sql/migrations, applied at Open, migrate.go),
// the statements on them (sql/queries, wrapped by sqlc into
// internal/sqlitedb: make generate), and the templates of the statements
// on t_<id> and i_<id>, whose names sqlc cannot bind (sql/storage.sql,
// rendered by template.go). SQLite's errors become the store's sentinels
// in interpretError (errors.go).
//
// Sync indexes are maintained inside the write's transaction. A write to a
// table with async indexes enqueues its item in that transaction instead;
// queue workers (worker.go, started by Open) apply the queue under the
// single writer in small batches, writing each item's current state to
// those indexes, and QueueWait/QueueDepth (queue.go) observe it.
//
// A global index added to a live table (TableUpdate, Status CREATING) is
// built online (build.go): writes maintain it from the catalog commit on,
// and a store-owned goroutine backfills it one short write transaction per
// page, then flips it to ACTIVE. Open resumes builds a crash left behind.
//
// Every key column holds a BLOB (see keys.go), so one storage class per
// column and memcmp ordering throughout. Tables without a sort key (and
// indexes without one) store an empty BLOB in the sort key column.
//
// Writes are serialized through one dedicated write connection that begins
// its transactions with BEGIN IMMEDIATE; reads use a separate pool, which WAL
// lets run beside the writer. An in-memory database uses a single connection
// for both.
package sqlitestore
