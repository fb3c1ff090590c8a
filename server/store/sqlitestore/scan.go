package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// ItemScan reads one segment of a table or index in scan order: the
// partition key's hash (store.KeyHash), then the key. A segment is a hash
// range (store.SegmentBounds), so each segment is a range of the scan index.
func (s *Store) ItemScan(ctx context.Context, t *store.Table, in store.ScanInput) ([]attr.Item, error) {
	q, args, err := buildScan(t, in)
	if err != nil {
		return nil, fmt.Errorf("scan %q: %w", t.Name, err)
	}
	var out []attr.Item
	err = s.inRead(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, q, args...)
		if err == nil {
			out, err = readItems(rows)
		}
		if err != nil {
			return explain(ctx, tx, t, in.Index, "scan", err)
		}
		return nil
	})
	return out, err
}

// buildScan renders the SELECT of a Scan segment:
//
//	SELECT item FROM <storage>
//	WHERE hk >= ? AND hk < ?
//	  AND (<order columns>) > (?, ...)    -- when in.After is set
//	ORDER BY <order columns>
//	LIMIT ?
func buildScan(t *store.Table, in store.ScanInput) (string, []any, error) {
	total := in.TotalSegments
	if total < 1 {
		total = 1
	}
	if in.Segment < 0 || in.Segment >= total {
		return "", nil, fmt.Errorf("segment %d not in [0, %d)", in.Segment, total)
	}
	lo, hi := store.SegmentBounds(in.Segment, total)
	from, order := dataTable(t.ID), []string{"hk", "pk", "sk"}
	if in.Index != nil {
		from, order = indexTable(in.Index.ID), []string{"hk", "ipk", "isk", "pk", "sk"}
	}
	q := fmt.Sprintf("SELECT item FROM %s\nWHERE hk >= ? AND hk < ?", from)
	args := []any{int64(lo), int64(hi)}
	if in.After != nil {
		var after []any
		if ix := in.Index; ix != nil {
			k, err := indexKeyOf(t, ix, in.After)
			if err != nil {
				return "", nil, fmt.Errorf("exclusive start key: %w", err)
			}
			after = []any{k.hk, k.ipk, k.isk, k.base.pk, k.base.sk}
		} else {
			k, err := tableKey(t, in.After)
			if err != nil {
				return "", nil, fmt.Errorf("exclusive start key: %w", err)
			}
			after = []any{k.hk, k.pk, k.sk}
		}
		q += fmt.Sprintf("\n  AND %s > %s", rowValue(order), placeholders(len(after)))
		args = append(args, after...)
	}
	q += fmt.Sprintf("\nORDER BY %s\nLIMIT ?", strings.Join(order, ", "))
	args = append(args, sqlLimit(in.Limit))
	return q, args, nil
}
