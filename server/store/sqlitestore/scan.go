package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// ItemScan reads one segment of a table or index in scan order: the
// partition key's hash (store.KeyHash), then the key. A segment is a hash
// range (store.SegmentBounds), so each segment is a range of the scan index.
func (s *Store) ItemScan(ctx context.Context, t *store.Table, in store.ScanInput) ([]attr.Item, error) {
	return decodeItems(s.ItemScanJSON(ctx, t, in))
}

// ItemScanJSON is ItemScan's items as they are stored, their wire JSON.
func (s *Store) ItemScanJSON(ctx context.Context, t *store.Table, in store.ScanInput) ([][]byte, error) {
	q, args, err := s.buildScan(t, in)
	if err != nil {
		return nil, fmt.Errorf("scan %q: %w", t.Name, err)
	}
	var out [][]byte
	err = s.inRead(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, q, args...)
		if err == nil {
			out, err = readStored(rows)
		}
		if err != nil {
			return explain(ctx, tx, t, in.Index, "scan", err)
		}
		return nil
	})
	return out, err
}

// buildScan picks the variant of item_scan (a table) or index_scan of
// sql/storage.sql and binds its arguments: the segment's hash range, the
// exclusive start key's position, the limit.
func (s *Store) buildScan(t *store.Table, in store.ScanInput) (string, []any, error) {
	total := in.TotalSegments
	if total < 1 {
		total = 1
	}
	if in.Segment < 0 || in.Segment >= total {
		return "", nil, fmt.Errorf("segment %d not in [0, %d)", in.Segment, total)
	}
	lo, hi := store.SegmentBounds(in.Segment, total)
	name, v := "item_scan", stmtVars{ID: t.ID, After: in.After != nil}
	if in.Index != nil {
		name, v = "index_scan", indexVars(in.Index)
		v.After = in.After != nil
	}
	args := []any{int64(lo), int64(hi)}
	if in.After != nil {
		if ix := in.Index; ix != nil {
			k, err := indexKeyOf(t, ix, in.After)
			if err != nil {
				return "", nil, fmt.Errorf("exclusive start key: %w", err)
			}
			args = append(append(append(args, k.hk), k.keyArgs()...), k.base.pk, k.base.sk)
		} else {
			k, err := tableKey(t, in.After)
			if err != nil {
				return "", nil, fmt.Errorf("exclusive start key: %w", err)
			}
			args = append(args, k.hk, k.pk, k.sk)
		}
	}
	args = append(args, sqlLimit(in.Limit))
	return s.stmts.get(name, v), args, nil
}
