package storetest

import (
	"context"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// multiKeyTable creates a table with global indexes whose keys have several
// attributes (multi-attribute keys):
//
//	mk-2-2  a (S), b (N) + c (S), d (B), INCLUDE extra
//	mk-2-0  a (S), b (N), ALL
//	mk-1-3  b (N) + c (S), d (B), sk (N, the table's sort key), KEYS_ONLY
//
// and items missing each key attribute, or having it with the wrong type,
// in turn (sparse: none of those indexes holds them).
func multiKeyTable(ctx context.Context, t *testing.T, s store.Store) *model {
	tbl := createTable(ctx, t, s, newTable("multikey", key("pk", attr.TypeS), rkey("sk", attr.TypeN),
		store.Index{Name: "mk-2-2", Global: true, Hash: key("a", attr.TypeS), MoreHash: []store.KeyAttr{key("b", attr.TypeN)},
			Range: rkey("c", attr.TypeS), MoreRange: []store.KeyAttr{key("d", attr.TypeB)},
			Projection: store.Projection{Type: "INCLUDE", NonKeyAttributes: []string{"extra"}}},
		store.Index{Name: "mk-2-0", Global: true, Hash: key("a", attr.TypeS), MoreHash: []store.KeyAttr{key("b", attr.TypeN)},
			Projection: store.Projection{Type: "ALL"}},
		store.Index{Name: "mk-1-3", Global: true, Hash: key("b", attr.TypeN),
			Range: rkey("c", attr.TypeS), MoreRange: []store.KeyAttr{key("d", attr.TypeB), key("sk", attr.TypeN)},
			Projection: store.Projection{Type: "KEYS_ONLY"}},
	))
	m := newModel(tbl)
	for i := range 60 {
		it := attr.Item{
			"pk":    attr.Str([]string{"p0", "p1", "p2"}[i%3]),
			"sk":    num(t, itoa(i)),
			"a":     attr.Str([]string{"x", "y"}[i%2]),
			"b":     num(t, itoa(i%3-1)),
			"c":     attr.Str([]string{"b", "c", "ca", "cb", "d"}[i%5]),
			"d":     attr.Bin([]byte{byte(i % 4), 0xff}),
			"extra": num(t, itoa(i)),
			"other": attr.Str("not projected"),
		}
		switch i % 11 {
		case 3:
			delete(it, "a")
		case 4:
			it["b"] = attr.Str("wrong type")
		case 5:
			delete(it, "c")
		case 6:
			it["d"] = attr.Str("wrong type")
		}
		m.put(ctx, t, s, it)
	}
	return m
}

// multiKeyQueries are the Queries the test runs on an index: every
// partition (and one absent), with each prefix of equalities on the sort
// attributes, and each operator on the attribute after the prefix.
func multiKeyQueries(t testing.TB, ix *store.Index) []store.QueryInput {
	sortVals := map[string][]attr.Value{
		"c":  {attr.Str("c")},
		"d":  {attr.Bin([]byte{1, 0xff})},
		"sk": {num(t, "20")},
	}
	conds := map[attr.Type][]*store.RangeCond{
		attr.TypeS: {
			{Op: store.RangeLT, Values: []attr.Value{attr.Str("ca")}},
			{Op: store.RangeLE, Values: []attr.Value{attr.Str("ca")}},
			{Op: store.RangeGT, Values: []attr.Value{attr.Str("c")}},
			{Op: store.RangeGE, Values: []attr.Value{attr.Str("c")}},
			{Op: store.RangeEQ, Values: []attr.Value{attr.Str("cb")}},
			{Op: store.RangeBetween, Values: []attr.Value{attr.Str("c"), attr.Str("cb")}},
			{Op: store.RangeBeginsWith, Values: []attr.Value{attr.Str("c")}},
		},
		attr.TypeB: {
			{Op: store.RangeLT, Values: []attr.Value{attr.Bin([]byte{2})}},
			{Op: store.RangeGE, Values: []attr.Value{attr.Bin([]byte{1, 0xff})}},
			{Op: store.RangeBetween, Values: []attr.Value{attr.Bin([]byte{1}), attr.Bin([]byte{2, 0xff})}},
			{Op: store.RangeBeginsWith, Values: []attr.Value{attr.Bin([]byte{3})}},
		},
		attr.TypeN: {
			{Op: store.RangeGT, Values: []attr.Value{num(t, "20")}},
			{Op: store.RangeLE, Values: []attr.Value{num(t, "20")}},
			{Op: store.RangeBetween, Values: []attr.Value{num(t, "10"), num(t, "40")}},
		},
	}
	var parts [][]attr.Value
	if ix.Hash.Name == "a" {
		for _, a := range []string{"x", "y", "z"} {
			for _, b := range []string{"-1", "0", "1"} {
				parts = append(parts, []attr.Value{attr.Str(a), num(t, b)})
			}
		}
	} else {
		for _, b := range []string{"-1", "0", "1", "2"} {
			parts = append(parts, []attr.Value{num(t, b)})
		}
	}
	var out []store.QueryInput
	for _, p := range parts {
		eq := p[1:]
		for n := 0; ; n++ {
			in := store.QueryInput{Index: ix, Hash: p[0], Eq: eq, Forward: true}
			out = append(out, in)
			if n == len(ix.RangeAttrs()) {
				break
			}
			next := ix.RangeAttrs()[n]
			for _, rc := range conds[next.Type] {
				in.Range = rc
				out = append(out, in)
			}
			eq = append(append([]attr.Value{}, eq...), sortVals[next.Name]...)
		}
	}
	return out
}

func exerciseMultiKey(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	// Every prefix and operator, both directions, unpaged and paged, equals
	// the model; Scan's segments hold exactly the indexable items.
	t.Run("ItemQuery/MultiKey", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		m := multiKeyTable(ctx, t, s)
		for i := range m.tbl.Indexes {
			ix := &m.tbl.Indexes[i]
			nonEmpty := 0
			for _, in := range multiKeyQueries(t, ix) {
				for _, fwd := range []bool{true, false} {
					in.Forward = fwd
					want := m.query(in)
					if len(want) > 0 {
						nonEmpty++
					}
					what := "ItemQuery " + ix.Name + " " + show(attr.Item{"h": in.Hash}) + " eq " + itoa(len(in.Eq))
					if in.Range != nil {
						what += " " + string(in.Range.Op)
					}
					got, err := s.ItemQuery(ctx, m.tbl, in)
					requireNoError(t, err, what)
					requireItems(t, got, want, what)
					for _, size := range []int{1, 2, 5} {
						if size <= len(want) {
							requireItems(t, queryAll(ctx, t, s, m, in, size), want, "paged "+what+" by "+itoa(size))
						}
					}
				}
			}
			requireTrue(t, nonEmpty > 10, "%s: only %d queries return items", ix.Name, nonEmpty)
			requireSegments(ctx, t, s, m, ix)
		}
	})

	// Changing, removing and retyping key attributes moves the item in,
	// out of and within each index.
	t.Run("ItemWrite/MultiKey", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		m := multiKeyTable(ctx, t, s)
		for i := range 60 {
			k := attr.Item{"pk": attr.Str([]string{"p0", "p1", "p2"}[i%3]), "sk": num(t, itoa(i))}
			it, ok := m.items[show(k)]
			requireTrue(t, ok, "item %d in the model", i)
			it = it.Clone()
			switch i % 4 {
			case 0:
				it["b"] = num(t, itoa(i%2))
				it["a"] = attr.Str("y")
			case 1:
				delete(it, "d")
			case 2:
				it["c"] = attr.Str("cb")
				it["d"] = attr.Bin([]byte{0})
			case 3:
				m.del(ctx, t, s, k)
				continue
			}
			m.put(ctx, t, s, it)
		}
		for i := range m.tbl.Indexes {
			ix := &m.tbl.Indexes[i]
			for _, in := range multiKeyQueries(t, ix) {
				want := m.query(in)
				got, err := s.ItemQuery(ctx, m.tbl, in)
				requireNoError(t, err, "ItemQuery "+ix.Name+" after writes")
				requireItems(t, got, want, "ItemQuery "+ix.Name+" after writes")
			}
			requireIndexExact(ctx, t, s, m.tbl, ix, ix.Name+" after writes")
		}
	})

	// The key schema survives the catalog: TableGet returns every key
	// attribute in order.
	t.Run("TableGet/MultiKey", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		m := multiKeyTable(ctx, t, s)
		got, err := s.TableGet(ctx, m.tbl.Name)
		requireNoError(t, err, "TableGet")
		for i := range m.tbl.Indexes {
			want := m.tbl.Indexes[i].KeyAttrs()
			ix := got.Index(m.tbl.Indexes[i].Name)
			requireTrue(t, ix != nil, "index %s", m.tbl.Indexes[i].Name)
			requireEqual(t, show(keyAttrsItem(ix.KeyAttrs())), show(keyAttrsItem(want)), "key of "+ix.Name)
		}
	})
}

// keyAttrsItem renders key attributes in order, for comparison.
func keyAttrsItem(ks []store.KeyAttr) attr.Item {
	out := attr.Item{}
	for i, k := range ks {
		out[itoa(i)] = attr.Str(k.Name + ":" + k.Type.String())
	}
	return out
}
