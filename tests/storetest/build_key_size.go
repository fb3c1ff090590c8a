package storetest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// exerciseBuildKeySize: an online build skips the items whose index key is
// over the service's limits (2,048 bytes for an index partition key, 1,024
// for its sort key), written before the index existed, and indexes those at
// the limit, counting the bytes of the value as the service does: UTF-8 for
// a string (NUL and U+0001 are one byte each, however a store escapes them),
// decoded bytes for a binary.
func exerciseBuildKeySize(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run("IndexBuild/SkipsOversizedKeys", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("build_key_size", key("pk", attr.TypeS), nil))
		nuls := func(n int) string { // n bytes, most of them NUL or U+0001
			b := strings.Repeat("\x00\x01", n/2) + strings.Repeat("z", n%2)
			return b
		}
		items := []attr.Item{
			{"pk": attr.Str("g-2048"), "g": attr.Str(strings.Repeat("x", 2048))},
			{"pk": attr.Str("g-2049"), "g": attr.Str(strings.Repeat("x", 2049))},
			{"pk": attr.Str("g-nul-2048"), "g": attr.Str(nuls(2048))},
			{"pk": attr.Str("g-nul-2049"), "g": attr.Str(nuls(2049))},
			{"pk": attr.Str("g-euro-2046"), "g": attr.Str(strings.Repeat("€", 682))},
			{"pk": attr.Str("g-euro-2049"), "g": attr.Str(strings.Repeat("€", 683))},
			{"pk": attr.Str("r-1024"), "h": attr.Str("h"), "r": attr.Str(strings.Repeat("y", 1024))},
			{"pk": attr.Str("r-1025"), "h": attr.Str("h"), "r": attr.Str(strings.Repeat("y", 1025))},
			{"pk": attr.Str("r-nul-1024"), "h": attr.Str("h"), "r": attr.Str(nuls(1024))},
			{"pk": attr.Str("r-big-hash"), "h": attr.Str(strings.Repeat("h", 2049)), "r": attr.Str("r")},
			{"pk": attr.Str("b-2048"), "b": {T: attr.TypeB, B: make([]byte, 2048)}},
			{"pk": attr.Str("b-2049"), "b": {T: attr.TypeB, B: make([]byte, 2049)}},
			// A multi-attribute key: each attribute has the limit of its kind.
			{"pk": attr.Str("m-ok"), "m1": attr.Str("a"), "m2": attr.Str(strings.Repeat("x", 2048)),
				"m3": attr.Str(strings.Repeat("s", 1024)), "m4": attr.Str(strings.Repeat("y", 1024))},
			{"pk": attr.Str("m-hash2-2049"), "m1": attr.Str("a"), "m2": attr.Str(strings.Repeat("x", 2049)),
				"m3": attr.Str("s"), "m4": attr.Str("y")},
			{"pk": attr.Str("m-range1-1025"), "m1": attr.Str("a"), "m2": attr.Str("x"),
				"m3": attr.Str(strings.Repeat("s", 1025)), "m4": attr.Str("y")},
			{"pk": attr.Str("m-range2-1025"), "m1": attr.Str("a"), "m2": attr.Str("x"),
				"m3": attr.Str("s"), "m4": attr.Str(strings.Repeat("y", 1025))},
		}
		for _, it := range items {
			put(ctx, t, s, tbl, it)
		}
		cases := []struct {
			ix   store.Index
			want []string
		}{
			{store.Index{Name: "by-g", Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "KEYS_ONLY"}},
				[]string{"g-2048", "g-euro-2046", "g-nul-2048"}},
			{store.Index{Name: "by-h-r", Hash: key("h", attr.TypeS), Range: rkey("r", attr.TypeS), Projection: store.Projection{Type: "ALL"}},
				[]string{"r-1024", "r-nul-1024"}},
			{store.Index{Name: "by-b", Hash: key("b", attr.TypeB), Projection: store.Projection{Type: "KEYS_ONLY"}},
				[]string{"b-2048"}},
			{store.Index{Name: "by-m", Hash: key("m1", attr.TypeS), MoreHash: []store.KeyAttr{key("m2", attr.TypeS)},
				Range: rkey("m3", attr.TypeS), MoreRange: []store.KeyAttr{key("m4", attr.TypeS)}, Projection: store.Projection{Type: "KEYS_ONLY"}},
				[]string{"m-ok"}},
		}
		for _, c := range cases {
			c.ix.Propagation = store.PropagationSync
			out := addIndex(ctx, t, s, tbl.Name, c.ix)
			requireNoError(t, s.IndexBuildStart(ctx, out, c.ix.Name), "IndexBuildStart "+c.ix.Name)
			buildWait(ctx, t, s, out, c.ix.Name)
			final := requireActive(ctx, t, s, tbl.Name, c.ix.Name)
			rows, err := s.ItemScan(ctx, final, store.ScanInput{Index: final.Index(c.ix.Name), TotalSegments: 1})
			requireNoError(t, err, "ItemScan "+c.ix.Name)
			var got []string
			for _, it := range rows {
				got = append(got, it["pk"].S)
			}
			slices.Sort(got)
			requireEqual(t, strings.Join(got, " "), strings.Join(c.want, " "), "items in "+c.ix.Name+" after its build")
			requireIndexExact(ctx, t, s, final, final.Index(c.ix.Name), "index "+c.ix.Name)
		}
	})
}
