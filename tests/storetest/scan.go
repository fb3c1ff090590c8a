package storetest

import (
	"context"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// scanAll pages through one scan segment with the given page size (0: one
// unlimited call).
func scanAll(ctx context.Context, t testing.TB, s store.Store, m *model, in store.ScanInput, size int) []attr.Item {
	t.Helper()
	in.Limit, in.After = size, nil
	var all []attr.Item
	for range 10000 {
		page, err := s.ItemScan(ctx, m.tbl, in)
		requireNoError(t, err, "ItemScan page")
		if size > 0 {
			requireTrue(t, len(page) <= size, "ItemScan: page of %d items with limit %d", len(page), size)
		}
		all = append(all, page...)
		if size <= 0 || len(page) < size {
			return all
		}
		in.After = m.pageKey(in.Index, page[len(page)-1])
	}
	t.Fatalf("ItemScan paging does not end")
	return nil
}

// requireSegments scans a table or index in 1, 3 and 8 segments, unpaged and
// paged, and checks that the segments together return every row exactly
// once, that each row is in the segment of its partition key's KeyHash, and
// that paging returns the same sequence as one call.
func requireSegments(ctx context.Context, t *testing.T, s store.Store, m *model, ix *store.Index) {
	t.Helper()
	want := map[string]attr.Item{}
	hashName := m.tbl.Hash.Name
	if ix != nil {
		hashName = ix.Hash.Name
	}
	for _, it := range m.rows(ix) {
		want[show(m.pageKey(ix, it))] = it
	}
	for _, total := range []int{1, 3, 8} {
		seen := map[string]bool{}
		for seg := range total {
			in := store.ScanInput{Index: ix, Segment: seg, TotalSegments: total}
			one := scanAll(ctx, t, s, m, in, 0)
			for _, size := range []int{1, 2, 7, len(one) + 1} {
				requireItems(t, scanAll(ctx, t, s, m, in, size), one,
					"ItemScan segment "+itoa(seg)+"/"+itoa(total)+" paged by "+itoa(size))
			}
			lo, hi := store.SegmentBounds(seg, total)
			for _, it := range one {
				k := show(m.pageKey(ix, it))
				requireTrue(t, !seen[k], "ItemScan %d segments: %s returned twice", total, k)
				seen[k] = true
				w, ok := want[k]
				requireTrue(t, ok, "ItemScan returned an unknown row %s", show(it))
				requireItem(t, it, w, "ItemScan row")
				h := uint64(store.KeyHash(it[hashName]))
				requireTrue(t, h >= lo && h < hi, "ItemScan: %s (hash %d) in segment %d/%d [%d, %d)", k, h, seg, total, lo, hi)
			}
		}
		requireEqual(t, len(seen), len(want), "ItemScan rows over "+itoa(total)+" segments")
	}
}

func exerciseScan(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run("ItemScan", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("scan", key("pk", attr.TypeS), rkey("sk", attr.TypeN)))
		m := newModel(tbl)
		for p := range 40 {
			for i := range 1 + p%4 {
				pk := "part-" + itoa(p)
				if p%5 == 0 {
					pk += "\x00" // a key a store may escape
				}
				m.put(ctx, t, s, attr.Item{"pk": attr.Str(pk), "sk": num(t, itoa(i-1)),
					"v": attr.Str("x")})
			}
		}
		requireSegments(ctx, t, s, m, nil)
	})

	t.Run("ItemScan/HashOnly", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("scan-hash", key("pk", attr.TypeB), nil))
		m := newModel(tbl)
		for p := range 50 {
			m.put(ctx, t, s, attr.Item{"pk": attr.Bin([]byte{byte(p), 0, byte(255 - p)})})
		}
		requireSegments(ctx, t, s, m, nil)
	})

	t.Run("ItemScan/Empty", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("scan-empty", key("pk", attr.TypeS), nil))
		got, err := s.ItemScan(ctx, tbl, store.ScanInput{TotalSegments: 1, Limit: 10})
		requireNoError(t, err, "ItemScan")
		requireEqual(t, len(got), 0, "items of an empty table")
	})
}
