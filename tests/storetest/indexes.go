package storetest

import (
	"context"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// indexedTable creates a table with an LSI and GSIs of every shape:
//
//	lsi       pk (S) + lsk (S), ALL
//	gsi-keys  g (S), KEYS_ONLY
//	gsi-incl  g (S) + gr (N), INCLUDE extra
//	gsi-bin   gb (B) + sk (N, the table's sort key), ALL
func indexedTable(ctx context.Context, t *testing.T, s store.Store) *model {
	tbl := createTable(ctx, t, s, newTable("indexed", key("pk", attr.TypeS), rkey("sk", attr.TypeN),
		store.Index{Name: "lsi", Hash: key("pk", attr.TypeS), Range: rkey("lsk", attr.TypeS),
			Projection: store.Projection{Type: "ALL"}},
		store.Index{Name: "gsi-keys", Global: true, Hash: key("g", attr.TypeS),
			Projection: store.Projection{Type: "KEYS_ONLY"}},
		store.Index{Name: "gsi-incl", Global: true, Hash: key("g", attr.TypeS), Range: rkey("gr", attr.TypeN),
			Projection: store.Projection{Type: "INCLUDE", NonKeyAttributes: []string{"extra", "missing"}}},
		store.Index{Name: "gsi-bin", Global: true, Hash: key("gb", attr.TypeB), Range: rkey("sk", attr.TypeN),
			Projection: store.Projection{Type: "ALL"}},
	))
	m := newModel(tbl)
	for i := range 36 {
		it := attr.Item{
			"pk":    attr.Str([]string{"p0", "p1", "p2"}[i%3]),
			"sk":    num(t, itoa(i/3-5)),
			"other": attr.Str("not projected"),
			"extra": num(t, itoa(i)),
		}
		switch i % 6 {
		case 0: // no g at all
		case 1: // g of the wrong type
			it["g"] = num(t, "1")
		default:
			it["g"] = attr.Str([]string{"x", "y"}[i%2])
			it["gr"] = num(t, itoa(i%4)) // ties on (g, gr)
		}
		if i%5 != 0 {
			it["lsk"] = attr.Str([]string{"a", "b", "c"}[(i/2)%3]) // ties on (pk, lsk)
		}
		if i%4 != 3 {
			it["gb"] = attr.Bin([]byte{byte(i % 2), 0xff})
		} else {
			it["gb"] = attr.Str("wrong type")
		}
		m.put(ctx, t, s, it)
	}
	return m
}

// indexPartitions are the index partition key values the tests query.
func indexPartitions(ix *store.Index) []attr.Value {
	switch ix.Hash.Name {
	case "pk":
		return []attr.Value{attr.Str("p0"), attr.Str("p1"), attr.Str("p2"), attr.Str("absent")}
	case "g":
		return []attr.Value{attr.Str("x"), attr.Str("y"), attr.Str("z")}
	default:
		return []attr.Value{attr.Bin([]byte{0, 0xff}), attr.Bin([]byte{1, 0xff}), attr.Bin([]byte{2})}
	}
}

// requireIndexes checks every index of the model's table: each partition
// forward and backward against the model, and paging at every page size.
func requireIndexes(ctx context.Context, t *testing.T, s store.Store, m *model, paging bool) {
	t.Helper()
	for i := range m.tbl.Indexes {
		ix := &m.tbl.Indexes[i]
		total := 0
		for _, h := range indexPartitions(ix) {
			for _, fwd := range []bool{true, false} {
				in := store.QueryInput{Index: ix, Hash: h, Forward: fwd}
				want := m.query(in)
				total += len(want)
				got, err := s.ItemQuery(ctx, m.tbl, in)
				requireNoError(t, err, "ItemQuery "+ix.Name)
				requireItems(t, got, want, "ItemQuery "+ix.Name+" "+string(h.AppendJSON(nil)))
				if paging {
					for size := 1; size <= len(want)+1; size++ {
						requireItems(t, queryAll(ctx, t, s, m, in, size), want,
							"paged ItemQuery "+ix.Name+" page size "+itoa(size))
					}
				}
			}
		}
		requireEqual(t, total, 2*len(m.rows(ix)), "rows of "+ix.Name+" over the queried partitions")
	}
}

func exerciseIndexes(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run("ItemQuery/Index", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		m := indexedTable(ctx, t, s)
		requireIndexes(ctx, t, s, m, true)

		// Projections: exactly the keys (and included attributes).
		got, err := s.ItemQuery(ctx, m.tbl, store.QueryInput{Index: m.tbl.Index("gsi-keys"), Hash: attr.Str("x"), Forward: true, Limit: 1})
		requireNoError(t, err, "ItemQuery gsi-keys")
		requireEqual(t, len(got), 1, "gsi-keys rows")
		requireEqual(t, len(got[0]), 3, "KEYS_ONLY attributes of "+show(got[0]))
		got, err = s.ItemQuery(ctx, m.tbl, store.QueryInput{Index: m.tbl.Index("gsi-incl"), Hash: attr.Str("x"), Forward: true, Limit: 1})
		requireNoError(t, err, "ItemQuery gsi-incl")
		requireEqual(t, len(got), 1, "gsi-incl rows")
		_, hasExtra := got[0]["extra"]
		_, hasOther := got[0]["other"]
		requireTrue(t, hasExtra && !hasOther && len(got[0]) == 5, "INCLUDE attributes of %s", show(got[0]))
	})

	t.Run("ItemQuery/IndexRange", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		m := indexedTable(ctx, t, s)
		ix := m.tbl.Index("gsi-incl")
		for _, rc := range []*store.RangeCond{
			{Op: store.RangeEQ, Values: []attr.Value{num(t, "2")}},
			{Op: store.RangeLT, Values: []attr.Value{num(t, "2")}},
			{Op: store.RangeGE, Values: []attr.Value{num(t, "1")}},
			{Op: store.RangeBetween, Values: []attr.Value{num(t, "1"), num(t, "2")}},
		} {
			for _, fwd := range []bool{true, false} {
				in := store.QueryInput{Index: ix, Hash: attr.Str("y"), Range: rc, Forward: fwd}
				want := m.query(in)
				got, err := s.ItemQuery(ctx, m.tbl, in)
				requireNoError(t, err, "ItemQuery gsi-incl "+string(rc.Op))
				requireItems(t, got, want, "ItemQuery gsi-incl "+string(rc.Op))
				for size := 1; size <= len(want)+1; size++ {
					requireItems(t, queryAll(ctx, t, s, m, in, size), want, "paged ItemQuery gsi-incl "+string(rc.Op))
				}
			}
		}
		lsi := m.tbl.Index("lsi")
		in := store.QueryInput{Index: lsi, Hash: attr.Str("p1"), Forward: true,
			Range: &store.RangeCond{Op: store.RangeBeginsWith, Values: []attr.Value{attr.Str("b")}}}
		got, err := s.ItemQuery(ctx, m.tbl, in)
		requireNoError(t, err, "ItemQuery lsi begins_with")
		requireItems(t, got, m.query(in), "ItemQuery lsi begins_with")
	})

	t.Run("ItemWrite/IndexMaintenance", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		m := indexedTable(ctx, t, s)
		// Updates move items between index partitions, out of and into indexes.
		for key, it := range m.items {
			it = it.Clone()
			switch n := len(key) % 4; {
			case n == 0 && it["g"].T == attr.TypeS:
				if it["g"].S == "x" {
					it["g"] = attr.Str("y")
				} else {
					it["g"] = attr.Str("z")
				}
			case n == 1:
				delete(it, "g")
				delete(it, "lsk")
			case n == 2:
				it["g"] = attr.Str("x")
				it["gr"] = num(t, "7")
				it["lsk"] = attr.Str("d")
				it["gb"] = attr.Bin([]byte{2})
			default:
				it["extra"] = attr.Str("changed")
				it["gr"] = attr.Str("wrong type")
			}
			m.put(ctx, t, s, it)
		}
		requireIndexes(ctx, t, s, m, false)
		// Deletes remove their rows.
		i := 0
		for _, it := range m.items {
			if i%2 == 0 {
				m.del(ctx, t, s, m.tbl.KeyOf(it))
			}
			i++
		}
		requireIndexes(ctx, t, s, m, true)
		// Everything deleted: every index is empty.
		for _, it := range m.items {
			m.del(ctx, t, s, m.tbl.KeyOf(it))
		}
		for i := range m.tbl.Indexes {
			got, err := s.ItemScan(ctx, m.tbl, store.ScanInput{Index: &m.tbl.Indexes[i], TotalSegments: 1})
			requireNoError(t, err, "ItemScan "+m.tbl.Indexes[i].Name)
			requireEqual(t, len(got), 0, "rows of "+m.tbl.Indexes[i].Name+" after deleting every item")
		}
	})

	t.Run("ItemScan/Index", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		m := indexedTable(ctx, t, s)
		for i := range m.tbl.Indexes {
			requireSegments(ctx, t, s, m, &m.tbl.Indexes[i])
		}
	})
}
