package sqlitestore

import (
	"context"
	"database/sql"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// ItemPut is ItemWrite with a fn that keeps item whatever was there: the
// single writer makes it one transaction either way.
func (s *Store) ItemPut(ctx context.Context, t *store.Table, item attr.Item) (attr.Item, error) {
	return s.ItemWrite(ctx, t, t.KeyOf(item), func(attr.Item) (attr.Item, error) { return item.Clone(), nil })
}

// ItemRemove is ItemWrite with a fn that deletes whatever was there.
func (s *Store) ItemRemove(ctx context.Context, t *store.Table, key attr.Item) (attr.Item, error) {
	return s.ItemWrite(ctx, t, key, func(attr.Item) (attr.Item, error) { return nil, nil })
}

// ItemWriteMany writes every op in one write transaction (shared with
// the other item writes waiting, see group.go): all of them or none.
func (s *Store) ItemWriteMany(ctx context.Context, ops []store.WriteOp) ([]attr.Item, error) {
	olds := make([]attr.Item, len(ops))
	err := s.inWriteGrouped(ctx, func(tx *sql.Tx) error {
		tally := store.NewCollectionTally(s.collLimit)
		for i, o := range ops {
			r, err := s.lockTarget(ctx, tx, o.Table, o.Key, i, tally)
			if err != nil {
				return err
			}
			olds[i] = r.old
			if err := r.apply(ctx, tx, o.Put.Clone()); err != nil {
				return err
			}
		}
		return finishCollections(ctx, tx, tally)
	})
	if err != nil {
		return nil, err
	}
	return olds, nil
}
