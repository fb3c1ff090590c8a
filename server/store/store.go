// Package store owns the storage contract: the one interface the API layer
// needs from a database, the catalog types it stores, and the sentinel errors
// that every implementation maps its database errors to. The PostgreSQL
// implementation (pgstore) and the SQLite implementation (sqlitestore) must
// behave identically; tests/storetest exercises both.
package store

import (
	"context"
	"errors"

	"github.com/dynamopg/dynamopg/server/attr"
)

// Sentinel errors. Implementations translate database errors to these by
// SQLSTATE or result code, never by message text.
var (
	// ErrTableNotFound: no such table, or its storage was dropped under the call.
	ErrTableNotFound = errors.New("store: table not found")
	// ErrTableExists: CreateTable of a name already in the catalog.
	ErrTableExists = errors.New("store: table already exists")
	// ErrConflict: the operation lost a race it cannot retry by itself
	// (a deadlock or serialization failure that persisted through retries).
	ErrConflict = errors.New("store: conflict")
	// ErrStaleTable: an item write was handed a description (Table.Version)
	// that the catalog has since changed; nothing was written. The caller
	// validates the request again on a fresh description (TableCache).
	ErrStaleTable = errors.New("store: table description out of date")
)

// TableCache is implemented by a store that keeps table descriptions in
// memory for item operations (pgstore).
type TableCache interface {
	// TableGetCached is TableGet for an item operation: the description may
	// come from memory, and it carries a Version, so that an item write
	// given it fails with ErrStaleTable, writing nothing, once the catalog
	// has changed. cached reports that it came from memory. The caller must
	// not modify it.
	TableGetCached(ctx context.Context, name string) (t *Table, cached bool, err error)
	// TableForget drops name's description from memory.
	TableForget(name string)
}

// Store is everything the API needs from a database. Every method is safe for
// concurrent use; all of them take the caller's context.
type Store interface {
	// Ping answers when the database answers.
	Ping(ctx context.Context) error
	// Close releases the database handles.
	Close()

	// TableCreate stores a new table and creates its storage (and its indexes'
	// storage). It assigns t.ID. ErrTableExists when the name is taken.
	TableCreate(ctx context.Context, t *Table) error
	// TableGet reads one table's description. ErrTableNotFound when absent.
	TableGet(ctx context.Context, name string) (*Table, error)
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

	// ItemGet returns the item with the given primary key, or nil when absent.
	// key holds exactly the table's key attributes, already validated.
	ItemGet(ctx context.Context, t *Table, key attr.Item) (attr.Item, error)
	// ItemWrite changes one item atomically: it reads the current item (nil
	// when absent) under the item's write lock, calls fn, and stores what fn
	// returns: an item to put (its key equals key), or nil to delete. If fn
	// returns an error nothing is written and the error is returned unchanged.
	// fn may be called more than once (after a lost race); it must not have
	// side effects. It returns the item as it was before the write.
	ItemWrite(ctx context.Context, t *Table, key attr.Item, fn WriteFunc) (old attr.Item, err error)

	// ItemQuery reads items of one partition of the table or of an index, in
	// key order (reversed when !Forward), strictly after in.After, at most
	// in.Limit items.
	ItemQuery(ctx context.Context, t *Table, in QueryInput) ([]attr.Item, error)
	// ItemScan reads the items of a table or index in the store's scan order,
	// restricted to one segment, strictly after in.After, at most in.Limit.
	ItemScan(ctx context.Context, t *Table, in ScanInput) ([]attr.Item, error)
}

// WriteFunc computes an item's new state from its current state (nil when
// the item does not exist). Returning nil deletes the item.
type WriteFunc func(old attr.Item) (attr.Item, error)

// RangeOp is a sort key condition operator of a Query.
type RangeOp string

// The sort key operators of KeyConditionExpression.
const (
	RangeEQ         RangeOp = "EQ"
	RangeLT         RangeOp = "LT"
	RangeLE         RangeOp = "LE"
	RangeGT         RangeOp = "GT"
	RangeGE         RangeOp = "GE"
	RangeBetween    RangeOp = "BETWEEN"
	RangeBeginsWith RangeOp = "BEGINS_WITH"
)

// RangeCond restricts the sort key of a Query: Values has one value, or two
// for BETWEEN; they have the sort key's type.
type RangeCond struct {
	Op     RangeOp
	Values []attr.Value
}

// QueryInput selects one partition of a table (Index == nil) or of an index.
type QueryInput struct {
	Index   *Index
	Hash    attr.Value
	Range   *RangeCond
	Forward bool
	// After is an exclusive start key: the table's key attributes, plus the
	// index's key attributes when querying an index. nil starts at the first.
	After attr.Item
	Limit int
}

// ScanInput selects a segment of a table (Index == nil) or of an index.
// TotalSegments is at least 1; Segment is in [0, TotalSegments).
type ScanInput struct {
	Index         *Index
	Segment       int
	TotalSegments int
	After         attr.Item
	Limit         int
}
