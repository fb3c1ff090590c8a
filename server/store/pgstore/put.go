package pgstore

import (
	"context"
	"fmt"
	"math"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

var _ store.Putter = (*Store)(nil)

// ItemPut writes item whole in one statement (dynamopg.item_put): no BEGIN,
// lock, write and COMMIT round trips. Deadlocks and serialization failures
// are retried as ItemWrite retries them.
func (s *Store) ItemPut(ctx context.Context, t *store.Table, item attr.Item) (attr.Item, error) {
	size := item.Size()
	if size > math.MaxInt32 {
		return nil, fmt.Errorf("pgstore: item put: item of %d bytes", size)
	}
	p := gen.ItemPutParams{TableID: t.ID, Item: encodeItem(item), Size: int32(size)}
	var old attr.Item
	err := s.retryTx(ctx, "item put", []any{"table", t.Name}, func() (bool, error) {
		raw, err := s.q.ItemPut(ctx, s.pool, p)
		if err != nil {
			return retryable(err), wrap("item put", err)
		}
		old, err = decodeItem(raw)
		return false, err
	})
	if err != nil {
		return nil, err
	}
	return old, nil
}
