package api

import (
	"context"
	"errors"
	"math"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// An item collection is every item of a table sharing a partition key, plus
// their entries in the table's local secondary indexes. The service limits
// it (10 GB) on tables with LSIs and reports its size on request. The store
// keeps each collection's size and enforces the limit inside every write's
// transaction (store/collections.go); this file maps its refusal to the
// service's error and renders the metrics.

// ItemCollectionSizeLimitExceededError is the service's refusal of a write
// that would grow an item collection past its limit.
func ItemCollectionSizeLimitExceededError() *Error {
	return newErr(nsDynamo, "ItemCollectionSizeLimitExceededException", 400, "Collection size exceeded.")
}

// collectionFullReasons is the CancellationReasons of a transaction the
// store refused with err (store.ErrCollectionFull): the service's reason on
// each member that grew a full collection (every member when the store
// names none), None on the others.
func collectionFullReasons(err error, members int) []map[string]any {
	full := &store.CollectionFullError{}
	if !errors.As(err, &full) {
		for i := range members {
			full.Writes = append(full.Writes, i)
		}
	}
	reasons := make([]map[string]any, members)
	for i := range reasons {
		reasons[i] = map[string]any{"Code": "None"}
	}
	for _, i := range full.Writes {
		if i >= 0 && i < members {
			reasons[i] = map[string]any{"Code": "ItemCollectionSizeLimitExceeded", "Message": "Collection size exceeded."}
		}
	}
	return reasons
}

// collectionMetrics is the ItemCollectionMetrics of a write to the item at
// key of t when the client asked for SIZE (mode) and t has a local index:
// the collection's size as the store counts it, read after the write. The
// service gives the figure as an estimate (a range in GB), so a read after
// the write is enough: it costs a round trip only to the requests that ask,
// and leaves the store's write methods as they are.
func (a *API) collectionMetrics(ctx context.Context, t *store.Table, key attr.Item, mode *string) (map[string]any, error) {
	if !is(mode, "SIZE") || !t.HasLocalIndex() {
		return nil, nil
	}
	size, err := a.store.ItemCollectionSize(ctx, t, key[t.Hash.Name])
	if err != nil {
		return nil, storeErr(err, "item collection size")
	}
	lower := math.Floor(float64(size) / (1 << 30))
	return map[string]any{
		"ItemCollectionKey":   attr.Item{t.Hash.Name: key[t.Hash.Name]},
		"SizeEstimateRangeGB": []float64{lower, lower + 1},
	}, nil
}

// writtenCollectionMetrics is collectionMetrics after a write that
// succeeded: a failure to read the size is logged and leaves the metrics
// out, since the write itself is done and must not be reported as failed.
func (a *API) writtenCollectionMetrics(ctx context.Context, t *store.Table, key attr.Item, mode *string) map[string]any {
	m, err := a.collectionMetrics(ctx, t, key, mode)
	if err != nil {
		a.log.WarnContext(ctx, "item collection metrics", "table", t.Name, "err", err)
	}
	return m
}
