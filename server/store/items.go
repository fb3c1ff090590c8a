package store

import (
	"context"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
)

// Items reads and writes the items of a table. Every write keeps the
// table's indexes, its index queue and its stream in step with the item,
// in the write's transaction, and returns the item as it was before.
type Items interface {
	// ItemGet returns the item with the given primary key, or nil when absent.
	// key holds exactly the table's key attributes, already validated.
	ItemGet(ctx context.Context, t *Table, key attr.Item) (attr.Item, error)
	// ItemGetJSON is ItemGet's item as compact JSON in the wire form (the
	// object of attribute values a response carries), nil when absent:
	// GetItem answers with it as it is, without decoding and encoding the
	// item.
	ItemGetJSON(ctx context.Context, t *Table, key attr.Item) ([]byte, error)
	// ItemWrite changes one item atomically: it reads the current item (nil
	// when absent) under the item's write lock, calls fn, and stores what fn
	// returns: an item to put (its key equals key), or nil to delete. If fn
	// returns an error nothing is written and the error is returned unchanged.
	// fn may be called more than once (after a lost race); it must not have
	// side effects. It returns the item as it was before the write.
	ItemWrite(ctx context.Context, t *Table, key attr.Item, fn WriteFunc) (old attr.Item, err error)
	// ItemPut inserts or replaces item whatever the item was: ItemWrite
	// with a fn that accepts any old item, which a store may do without
	// reading the item first in Go (pgstore: one round trip). When ctx is
	// marked WithOldUnneeded, old may be nil whatever the item was (pgstore
	// then does not read it).
	ItemPut(ctx context.Context, t *Table, item attr.Item) (old attr.Item, err error)
	// ItemRemove deletes the item with key whatever it was (ItemPut's
	// delete).
	ItemRemove(ctx context.Context, t *Table, key attr.Item) (old attr.Item, err error)
	// ItemWriteMany does several ItemPut and ItemRemove writes at once,
	// either all or none (pgstore: one pipeline, one implicit transaction,
	// in a canonical order so that concurrent calls cannot deadlock). It
	// returns the item each op replaced or deleted, in ops' order. Ops
	// name distinct items; a *CollectionFullError names ops by position.
	ItemWriteMany(ctx context.Context, ops []WriteOp) (olds []attr.Item, err error)

	// ItemCollectionSize returns the size of t's item collection whose
	// partition key value is hash (ReturnItemCollectionMetrics): the sum of
	// CollectionEntrySize over its items, as the writes committed so far
	// left it; 0 when t has no local secondary index. Every write above
	// keeps it, and refuses with a *CollectionFullError (ErrCollectionFull),
	// writing nothing, a write that would take it past the store's limit
	// (collections.go).
	ItemCollectionSize(ctx context.Context, t *Table, hash attr.Value) (int64, error)

	// ItemQuery reads items of one partition of the table or of an index, in
	// key order (reversed when !Forward), strictly after in.After, at most
	// in.Limit items.
	ItemQuery(ctx context.Context, t *Table, in QueryInput) ([]attr.Item, error)
	// ItemScan reads the items of a table or index in the store's scan order,
	// restricted to one segment, strictly after in.After, at most in.Limit.
	ItemScan(ctx context.Context, t *Table, in ScanInput) ([]attr.Item, error)
	// ItemQueryJSON and ItemScanJSON are ItemQuery's and ItemScan's items
	// as compact wire JSON, as ItemGetJSON's: Query and Scan answer with
	// them as they are, decoding only what they must read (a filter, a
	// projection, the last key). ItemQuery and ItemScan are their decode.
	ItemQueryJSON(ctx context.Context, t *Table, in QueryInput) ([][]byte, error)
	ItemScanJSON(ctx context.Context, t *Table, in ScanInput) ([][]byte, error)
	// ItemExpiredKeys lists the keys of up to limit items of t whose
	// attribute name is a Number of epoch seconds in TTLWindow(now): the TTL
	// sweeper's candidates, which it checks again under the write lock
	// (maintain.TTLDelete).
	ItemExpiredKeys(ctx context.Context, t *Table, name string, now time.Time, limit int) ([]attr.Item, error)
}

// WriteFunc computes an item's new state from its current state (nil when
// the item does not exist). Returning nil deletes the item. It must not
// modify old, which the write returns to its caller as the old item (a
// result may share old's values, or be old itself).
type WriteFunc func(old attr.Item) (attr.Item, error)

// WriteOp is one write of ItemWriteMany: Put inserts or replaces an item;
// with Put nil it deletes the item with Key.
type WriteOp struct {
	Table *Table
	Key   attr.Item
	Put   attr.Item
}

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

// BytesPrefixEnd returns the smallest byte string greater than every string
// that starts with p (BEGINS_WITH's exclusive upper bound in byte order),
// or nil when there is none (p empty or all 0xff).
func BytesPrefixEnd(p []byte) []byte {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] < 0xff {
			end := append([]byte(nil), p[:i+1]...)
			end[i]++
			return end
		}
	}
	return nil
}

// QueryInput selects one partition of a table (Index == nil) or of an index.
type QueryInput struct {
	Index *Index
	Hash  attr.Value
	// Eq is for an index with a multi-attribute key: the values of its
	// further partition attributes (MoreHash, all of them), then of a
	// left-to-right prefix of its sort attributes, in KeySchema order.
	// Range then restricts the sort attribute after that prefix.
	Eq      []attr.Value
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

type oldUnneededKey struct{}

// WithOldUnneeded marks the context of an ItemPut whose caller has no use
// for the item it replaces (PutItem without ReturnValues ALL_OLD or
// consumed capacity): the store may skip reading it.
func WithOldUnneeded(ctx context.Context) context.Context {
	return context.WithValue(ctx, oldUnneededKey{}, true)
}

// OldUnneeded reports whether ctx was marked by WithOldUnneeded.
func OldUnneeded(ctx context.Context) bool {
	v, _ := ctx.Value(oldUnneededKey{}).(bool)
	return v
}
