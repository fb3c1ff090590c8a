package pgstore

import (
	"context"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

var _ store.BlindWriter = (*Store)(nil)

// ItemPut writes item whole in one statement (dynamopg.item_put): no BEGIN,
// lock, write and COMMIT round trips. Deadlocks and serialization failures
// are retried as ItemWrite retries them.
func (s *Store) ItemPut(ctx context.Context, t *store.Table, item attr.Item) (attr.Item, error) {
	size := item.Size()
	if size > math.MaxInt32 {
		return nil, fmt.Errorf("pgstore: item put: item of %d bytes", size)
	}
	p := gen.ItemPutParams{TableID: t.ID, Item: encodeItem(item), Size: int32(size), Version: version(t)}
	return s.blindWrite(ctx, "item put", t, func() ([]byte, error) { return s.q.ItemPut(ctx, s.pool, p) })
}

// ItemRemove deletes the item with key in one statement (dynamopg.item_remove).
func (s *Store) ItemRemove(ctx context.Context, t *store.Table, key attr.Item) (attr.Item, error) {
	p := gen.ItemRemoveParams{TableID: t.ID, Key: encodeItem(key), Version: version(t)}
	return s.blindWrite(ctx, "item remove", t, func() ([]byte, error) { return s.q.ItemRemove(ctx, s.pool, p) })
}

// version is the catalog version an item write checks t against
// (table_def's p_version): none for a description without one.
func version(t *store.Table) pgtype.Int8 {
	return pgtype.Int8{Int64: t.Version, Valid: t.Version != 0}
}

// blindWrite runs one statement returning the old item, retrying what
// ItemWrite retries.
func (s *Store) blindWrite(ctx context.Context, op string, t *store.Table, stmt func() ([]byte, error)) (attr.Item, error) {
	var old attr.Item
	err := s.retryTx(ctx, op, []any{"table", t.Name}, func() (bool, error) {
		raw, err := stmt()
		if err != nil {
			return retryable(err), wrap(op, err)
		}
		old, err = decodeItem(raw)
		return false, err
	})
	if err != nil {
		return nil, err
	}
	return old, nil
}
