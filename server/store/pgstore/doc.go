// Package pgstore is the PostgreSQL implementation of store.Store. It owns
// the connection pool, schema migration (tern migrations and the PL/pgSQL
// code package embedded by the root package dynamopg), the translation of
// PostgreSQL errors to store's sentinel errors, and the Go side of the value
// encoding (jsonb wire form with the NUL escape of sql/README.md). All SQL
// lives in queries/ (called through the sqlc-generated package gen) and in
// sql/functions/; this package only maps types and drives transactions.
//
// Async secondary indexes are propagated by a queue in PostgreSQL (see
// sql/README.md): writes enqueue in their own transaction, and the workers
// Open starts (worker.go) apply the queue; Store implements store.Queue.
package pgstore
