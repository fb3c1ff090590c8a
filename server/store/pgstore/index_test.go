package pgstore_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

func TestIndexes(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	gsi := store.Index{Name: "gsi", Global: true, Hash: store.KeyAttr{Name: "g", Type: attr.TypeS},
		Range: &store.KeyAttr{Name: "gn", Type: attr.TypeN}, Projection: store.Projection{Type: "INCLUDE", NonKeyAttributes: []string{"x"}}}
	lsi := store.Index{Name: "lsi", Hash: store.KeyAttr{Name: "pk", Type: attr.TypeS},
		Range: &store.KeyAttr{Name: "l", Type: attr.TypeS}, Projection: store.Projection{Type: "KEYS_ONLY"}}
	tb := newTable(t, s, "ix", attr.TypeS, attr.TypeN, gsi, lsi)
	g, l := &tb.Indexes[0], &tb.Indexes[1]

	// model is what the table holds; check compares every index with it.
	model := map[string]attr.Item{}
	write := func(it attr.Item) {
		put(t, s, tb, it)
		model[it["pk"].S+"/"+it["sk"].S] = it
	}
	remove := func(pk, sk string) {
		del(t, s, tb, attr.Item{"pk": attr.Str(pk), "sk": attr.Num(sk)})
		delete(model, pk+"/"+sk)
	}
	check := func(step string) {
		t.Helper()
		for _, ix := range []*store.Index{g, l} {
			// Expected rows per index partition, in index key order then table key order.
			parts := map[string][]attr.Item{}
			for _, it := range model {
				if ix.Indexable(it) {
					p := ix.Project(tb, it)
					parts[it[ix.Hash.Name].S] = append(parts[it[ix.Hash.Name].S], p)
				}
			}
			total := 0
			for hash, want := range parts {
				sort.Slice(want, func(i, j int) bool {
					for _, n := range ix.KeyNames(tb) {
						if c, _ := attr.Compare(want[i][n], want[j][n]); c != 0 {
							return c < 0
						}
					}
					return false
				})
				got := queryAll(t, s, tb, store.QueryInput{Index: ix, Hash: attr.Str(hash), Forward: true}, 2)
				if len(got) != len(want) {
					t.Errorf("%s: %s[%s]: %d rows, want %d", step, ix.Name, hash, len(got), len(want))
					continue
				}
				for i := range got {
					if !equalItems(got[i], want[i]) {
						t.Errorf("%s: %s[%s] row %d: %v, want %v", step, ix.Name, hash, i, got[i], want[i])
					}
				}
				total += len(want)
			}
			// A scan of the index sees exactly the indexable items.
			rows, err := s.ItemScan(ctx, tb, store.ScanInput{Index: ix, TotalSegments: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != total {
				t.Errorf("%s: scan of %s: %d rows, want %d", step, ix.Name, len(rows), total)
			}
		}
	}

	for i := range 6 {
		it := attr.Item{"pk": attr.Str(fmt.Sprintf("p%d", i%2)), "sk": attr.Num(fmt.Sprint(i)), "x": attr.Str("x"), "y": attr.Str("y")}
		if i%3 != 0 {
			it["g"] = attr.Str(fmt.Sprintf("g%d", i%2))
			it["gn"] = attr.Num(fmt.Sprint(10 - i))
		}
		if i%2 == 0 {
			it["l"] = attr.Str(fmt.Sprintf("l%d", 9-i))
		}
		write(it)
	}
	write(attr.Item{"pk": attr.Str("p9"), "sk": attr.Num("1"), "g": attr.Num("5"), "gn": attr.Num("1")}) // g of the wrong type
	write(attr.Item{"pk": attr.Str("p9"), "sk": attr.Num("2"), "g": attr.Str("g0")})                     // no gn
	check("puts")

	// Change index keys, drop them, add them.
	write(attr.Item{"pk": attr.Str("p1"), "sk": attr.Num("1"), "g": attr.Str("g0"), "gn": attr.Num("-3"), "x": attr.Str("x2")})
	write(attr.Item{"pk": attr.Str("p0"), "sk": attr.Num("2"), "x": attr.Str("gone")})
	write(attr.Item{"pk": attr.Str("p0"), "sk": attr.Num("0"), "g": attr.Str("g1"), "gn": attr.Num("7"), "l": attr.Str("a")})
	check("updates")

	remove("p1", "1")
	remove("p0", "4")
	remove("p0", "404") // absent
	check("deletes")

	if len(model) == 0 {
		t.Fatal("empty model")
	}
}
