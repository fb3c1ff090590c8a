package sqlitestore

import (
	"context"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

var _ store.Putter = (*Store)(nil)

// ItemPut is ItemWrite with a fn that keeps item whatever was there: the
// single writer makes it one transaction either way.
func (s *Store) ItemPut(ctx context.Context, t *store.Table, item attr.Item) (attr.Item, error) {
	return s.ItemWrite(ctx, t, t.KeyOf(item), func(attr.Item) (attr.Item, error) { return item.Clone(), nil })
}
