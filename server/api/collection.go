package api

import (
	"context"
	"math"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// An item collection is every item of a table sharing a partition key, plus
// their entries in the table's local secondary indexes. The service limits
// it to 10 GB on tables with LSIs and reports its size on request.
const (
	defaultCollectionLimit = 10 << 30
	// lsiEntryOverhead is the per-entry overhead the service counts for an
	// index entry.
	lsiEntryOverhead = 100
)

// ItemCollectionSizeLimitExceededError is the service's refusal of a write
// that would grow an item collection past its limit.
func ItemCollectionSizeLimitExceededError() *Error {
	return newErr(nsDynamo, "ItemCollectionSizeLimitExceededException", 400, "Collection size exceeded.")
}

func hasLSI(t *store.Table) bool {
	for _, ix := range t.Indexes {
		if !ix.Global {
			return true
		}
	}
	return false
}

// collectionEntrySize is what one item adds to its collection: itself and
// its entries in the local indexes.
func collectionEntrySize(t *store.Table, it attr.Item) int64 {
	if it == nil {
		return 0
	}
	n := int64(it.Size())
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if !ix.Global && ix.Indexable(it) {
			n += int64(ix.Project(t, it).Size()) + lsiEntryOverhead
		}
	}
	return n
}

// collection measures the partition of key (without key's own item) so a
// write can check and report the collection it produces. It is nil for
// tables without local indexes, where collections are not limited.
type collection struct {
	table  *store.Table
	key    attr.Item
	others int64
	limit  int64
}

func (a *API) collectionOf(ctx context.Context, t *store.Table, key attr.Item) (*collection, error) {
	if !hasLSI(t) {
		return nil, nil
	}
	c := &collection{table: t, key: key, limit: a.opts.ItemCollectionLimit}
	if c.limit <= 0 {
		c.limit = defaultCollectionLimit
	}
	own := keyString(t, key)
	var after attr.Item
	const page = 500
	for {
		items, err := a.store.ItemQuery(ctx, t, store.QueryInput{Hash: key[t.Hash.Name], Forward: true, After: after, Limit: page})
		if err != nil {
			return nil, storeErr(err, "item collection size")
		}
		for _, it := range items {
			if keyString(t, t.KeyOf(it)) != own {
				c.others += collectionEntrySize(t, it)
			}
		}
		if len(items) < page {
			return c, nil
		}
		after = t.KeyOf(items[len(items)-1])
	}
}

// check refuses a new state of the item that would overflow the collection.
func (c *collection) check(next attr.Item) error {
	if c == nil || next == nil {
		return nil
	}
	if c.others+collectionEntrySize(c.table, next) > c.limit {
		return ItemCollectionSizeLimitExceededError()
	}
	return nil
}

// metrics renders ItemCollectionMetrics for the collection after a write
// that left the item in state cur, when the client asked for SIZE.
func (c *collection) metrics(mode *string, cur attr.Item) map[string]any {
	if c == nil || !is(mode, "SIZE") {
		return nil
	}
	gb := float64(c.others+collectionEntrySize(c.table, cur)) / (1 << 30)
	lower := math.Floor(gb)
	return map[string]any{
		"ItemCollectionKey":   attr.Item{c.table.Hash.Name: c.key[c.table.Hash.Name]},
		"SizeEstimateRangeGB": []float64{lower, lower + 1},
	}
}
