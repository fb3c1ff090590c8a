package store

import (
	"context"

	"github.com/dynamopg/dynamopg/server/attr"
)

// Putter is implemented by stores that can write a whole item without a
// condition in one round trip (pgstore: one autocommit statement). ItemPut
// inserts or replaces item, with the index maintenance, queue entries and
// stream record of ItemWrite, and returns the item it replaced (nil: none).
// Callers use it only where ItemWrite's fn would accept any old item.
type Putter interface {
	ItemPut(ctx context.Context, t *Table, item attr.Item) (old attr.Item, err error)
}
