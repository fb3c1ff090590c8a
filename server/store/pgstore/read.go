package pgstore

import (
	"context"
	"math"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// ItemQuery reads one partition of the table or of an index in key order.
func (s *Store) ItemQuery(ctx context.Context, t *store.Table, in store.QueryInput) ([]attr.Item, error) {
	p := gen.ItemQueryParams{
		TableID:  t.ID,
		Hash:     encodeValue(in.Hash),
		After:    encodeItem(in.After),
		Forward:  in.Forward,
		MaxItems: limit32(in.Limit),
	}
	if in.Index != nil {
		p.IndexID = in.Index.ID
	}
	if len(in.Eq) > 0 {
		// A multi-attribute key: the array of every equality
		// (dynamopg.item_query).
		p.Hash = encodeValues(append([]attr.Value{in.Hash}, in.Eq...))
	}
	if r := in.Range; r != nil {
		p.Op = string(r.Op)
		if len(r.Values) > 0 {
			p.V1 = encodeValue(r.Values[0])
		}
		if len(r.Values) > 1 {
			p.V2 = encodeValue(r.Values[1])
		}
	}
	rows, err := s.q.ItemQuery(ctx, s.pool, p)
	if err != nil {
		return nil, wrap("item query", err)
	}
	return decodeItems(rows)
}

// ItemScan reads one segment of the table or of an index in (KeyHash, key)
// order.
func (s *Store) ItemScan(ctx context.Context, t *store.Table, in store.ScanInput) ([]attr.Item, error) {
	total := max(in.TotalSegments, 1)
	lo, hi := store.SegmentBounds(in.Segment, total)
	p := gen.ItemScanParams{
		TableID:  t.ID,
		Lo:       int64(lo),
		Hi:       int64(hi),
		After:    encodeItem(in.After),
		MaxItems: limit32(in.Limit),
	}
	if in.Index != nil {
		p.IndexID = in.Index.ID
	}
	rows, err := s.q.ItemScan(ctx, s.pool, p)
	if err != nil {
		return nil, wrap("item scan", err)
	}
	return decodeItems(rows)
}

// limit32 is a limit as the functions take it: 0 for none.
func limit32(n int) int32 {
	if n <= 0 || n > math.MaxInt32 {
		return 0
	}
	return int32(n)
}
