package store

import (
	"context"

	"github.com/dynamopg/dynamopg/server/attr"
)

// BlindWriter is implemented by stores that can write an item without
// reading it first in Go, in one round trip (pgstore: one autocommit
// statement each). Callers use it only where ItemWrite's fn would accept
// any old item. Both do the index maintenance, queue entries and stream
// record of ItemWrite and return the item they replaced or deleted (nil:
// none).
type BlindWriter interface {
	// ItemPut inserts or replaces item.
	ItemPut(ctx context.Context, t *Table, item attr.Item) (old attr.Item, err error)
	// ItemRemove deletes the item with key.
	ItemRemove(ctx context.Context, t *Table, key attr.Item) (old attr.Item, err error)
}

// BlindOp is one write of BlindBatchWriter: Put inserts or replaces an
// item; with Put nil it deletes the item with Key.
type BlindOp struct {
	Table *Table
	Key   attr.Item
	Put   attr.Item
}

// BlindBatchWriter is implemented by stores that can do several BlindWriter
// writes in one round trip (pgstore: one pipeline, one implicit
// transaction, in a canonical order so that concurrent batches cannot
// deadlock). It returns the item each op replaced or deleted, in ops'
// order. Either every op is written or none.
type BlindBatchWriter interface {
	ItemWriteBlindMany(ctx context.Context, ops []BlindOp) (olds []attr.Item, err error)
}
