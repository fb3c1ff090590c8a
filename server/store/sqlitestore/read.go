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
	raw, err := s.ItemGetJSON(ctx, t, key)
	if err != nil || raw == nil {
		return nil, err
	}
	return decodeItem(raw)
}

// ItemGetJSON returns the item with the given primary key as it is stored,
// its wire JSON, or nil when absent.
func (s *Store) ItemGetJSON(ctx context.Context, t *store.Table, key attr.Item) ([]byte, error) {
	k, err := tableKey(t, key)
	if err != nil {
		return nil, fmt.Errorf("get item of %q: %w", t.Name, err)
	}
	// One statement is its own snapshot: no transaction. When it fails, the
	// catalog read after it still explains a dropped table (ids are never
	// reused, and a table's storage and catalog row go in one transaction).
	raw, err := s.getRowJSON(ctx, s.reader, t.ID, k)
	if err != nil {
		return nil, interpretError(explain(ctx, s.reader, t, nil, "get item of", err))
	}
	return raw, nil
}

// decodeItem decodes an item's stored wire JSON.
func decodeItem(raw []byte) (attr.Item, error) {
	it, err := attr.DecodeItem(raw)
	if err != nil {
		return nil, fmt.Errorf("decode stored item: %w", err)
	}
	return it, nil
}

// readStored collects the item column of every row: the items' stored wire
// JSON.
func readStored(rows *sql.Rows) ([][]byte, error) {
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	return out, rows.Err()
}

// decodeItems decodes the items a read returned as stored.
func decodeItems(raw [][]byte, err error) ([]attr.Item, error) {
	if err != nil {
		return nil, err
	}
	out := make([]attr.Item, len(raw))
	for i, r := range raw {
		if out[i], err = decodeItem(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}
