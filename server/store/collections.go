package store

import (
	"errors"
	"fmt"
	"slices"

	"github.com/dynamopg/dynamopg/server/attr"
)

// Item collections. On a table with a local secondary index, every item
// with one partition key value, together with its entries in the local
// indexes, is an item collection, which the service limits (10 GB by
// default) and sizes for ReturnItemCollectionMetrics. Each store keeps the
// size of every collection in a counter of its own (a row per collection),
// changed by every item write in the write's transaction under the
// counter's lock: the lock serializes the writers of one collection, so
// the limit holds exactly. A collection written for the first time since
// its table had no counter (a database from before the counters) is sized
// once, from its partition, before the write.

// DefaultCollectionLimit is the service's item collection size limit, in
// bytes: 10 GB.
const DefaultCollectionLimit = 10 << 30

// LSIEntryOverhead is what the service counts for each local index entry
// beside its projected attributes.
const LSIEntryOverhead = 100

// HasLocalIndex reports whether t has a local secondary index: whether its
// item collections are sized and limited.
func (t *Table) HasLocalIndex() bool {
	for i := range t.Indexes {
		if !t.Indexes[i].Global {
			return true
		}
	}
	return false
}

// CollectionEntrySize is what item it (nil: none) adds to its collection:
// its own size and, for each local index it is indexable in, its projected
// size plus LSIEntryOverhead. Local indexes are created with the table and
// never change, so the figure of an item never changes either.
func CollectionEntrySize(t *Table, it attr.Item) int64 {
	if it == nil {
		return 0
	}
	n := int64(it.Size())
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if !ix.Global && ix.Indexable(it) {
			n += int64(ix.Project(t, it).Size()) + LSIEntryOverhead
		}
	}
	return n
}

// ErrCollectionFull: a write would have grown an item collection past the
// store's limit (Options.ItemCollectionLimit of each driver); nothing was
// written. The error is a *CollectionFullError, which names the writes.
var ErrCollectionFull = errors.New("store: item collection size limit exceeded")

// CollectionFullError is ErrCollectionFull naming the writes refused:
// their positions in the call's targets (ItemTransact) or ops
// (ItemWriteMany); 0 for a single-item write.
type CollectionFullError struct {
	Writes []int
}

func (e *CollectionFullError) Error() string {
	return fmt.Sprintf("%v (writes %v)", ErrCollectionFull, e.Writes)
}

func (e *CollectionFullError) Unwrap() error { return ErrCollectionFull }

// CollectionKey names one item collection: a table and a partition key
// value, in an encoding of the store's that is one-to-one with the value
// (pgstore: the wire JSON; sqlitestore: the key column's bytes).
type CollectionKey struct {
	TableID int64
	Hash    string
}

// CollectionTally is what one write call (an item write, ItemWriteMany, a
// transaction) does to the item collections it writes: each collection's
// size before the call, read under its counter's lock, and the sum of the
// call's changes to it. Check refuses the call when it grows a collection
// past the limit, whatever the order of its writes; both stores apply it
// the same way.
type CollectionTally struct {
	limit int64
	sizes map[CollectionKey]*CollectionChange
	order []CollectionKey
}

// CollectionChange is one collection of a tally.
type CollectionChange struct {
	Before, Delta int64
	grew          []int // the writes that grew it
}

// After is the collection's size once the call's writes are applied.
func (c *CollectionChange) After() int64 { return c.Before + c.Delta }

// NewCollectionTally returns an empty tally for a store whose limit is
// limit bytes (0 or less: DefaultCollectionLimit).
func NewCollectionTally(limit int64) *CollectionTally {
	if limit <= 0 {
		limit = DefaultCollectionLimit
	}
	return &CollectionTally{limit: limit}
}

// Known reports whether the tally holds collection k already.
func (c *CollectionTally) Known(k CollectionKey) bool {
	_, ok := c.sizes[k]
	return ok
}

// Start records collection k's size before the call.
func (c *CollectionTally) Start(k CollectionKey, before int64) {
	if c.sizes == nil {
		c.sizes = map[CollectionKey]*CollectionChange{}
	}
	if _, ok := c.sizes[k]; !ok {
		c.order = append(c.order, k)
	}
	c.sizes[k] = &CollectionChange{Before: before}
}

// Add records write number pos of the call, which changes an item of
// collection k (Start'ed) of t from old to nu (nil: absent).
func (c *CollectionTally) Add(k CollectionKey, pos int, t *Table, old, nu attr.Item) {
	ch := c.sizes[k]
	d := CollectionEntrySize(t, nu) - CollectionEntrySize(t, old)
	ch.Delta += d
	if d > 0 {
		ch.grew = append(ch.grew, pos)
	}
}

// Check is a *CollectionFullError when the call grows a collection past
// the limit (the writes that grew it named), nil otherwise. A call that
// shrinks a collection, or leaves it as it was, always passes, even over
// the limit.
func (c *CollectionTally) Check() error {
	var full []int
	for _, k := range c.order {
		ch := c.sizes[k]
		if ch.Delta > 0 && ch.After() > c.limit {
			full = append(full, ch.grew...)
		}
	}
	if full == nil {
		return nil
	}
	slices.Sort(full)
	return &CollectionFullError{Writes: full}
}

// Changed calls fn for each collection whose size the call changes, in
// the order they were started.
func (c *CollectionTally) Changed(fn func(k CollectionKey, ch *CollectionChange) error) error {
	for _, k := range c.order {
		if ch := c.sizes[k]; ch.Delta != 0 {
			if err := fn(k, ch); err != nil {
				return err
			}
		}
	}
	return nil
}
