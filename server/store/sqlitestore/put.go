package sqlitestore

import (
	"context"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

var _ store.BlindWriter = (*Store)(nil)

// ItemPut is ItemWrite with a fn that keeps item whatever was there: the
// single writer makes it one transaction either way.
func (s *Store) ItemPut(ctx context.Context, t *store.Table, item attr.Item) (attr.Item, error) {
	return s.ItemWrite(ctx, t, t.KeyOf(item), func(attr.Item) (attr.Item, error) { return item.Clone(), nil })
}

// ItemRemove is ItemWrite with a fn that deletes whatever was there.
func (s *Store) ItemRemove(ctx context.Context, t *store.Table, key attr.Item) (attr.Item, error) {
	return s.ItemWrite(ctx, t, key, func(attr.Item) (attr.Item, error) { return nil, nil })
}
