package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// ItemGet returns the item with the given primary key, or nil when absent.
func (s *Store) ItemGet(ctx context.Context, t *store.Table, key attr.Item) (attr.Item, error) {
	k, err := tableKey(t, key)
	if err != nil {
		return nil, fmt.Errorf("get item of %q: %w", t.Name, err)
	}
	var it attr.Item
	err = s.inRead(ctx, func(tx *sql.Tx) error {
		var err error
		it, err = s.getRow(ctx, tx, t.ID, k)
		if err != nil {
			return explain(ctx, tx, t, nil, "get item of", err)
		}
		return nil
	})
	return it, err
}

// decodeItem decodes an item's stored wire JSON.
func decodeItem(raw []byte) (attr.Item, error) {
	it, err := attr.DecodeItem(raw)
	if err != nil {
		return nil, fmt.Errorf("decode stored item: %w", err)
	}
	return it, nil
}

// readItems collects the item column of every row.
func readItems(rows *sql.Rows) ([]attr.Item, error) {
	defer rows.Close()
	var out []attr.Item
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		it, err := decodeItem(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, rows.Err()
}
