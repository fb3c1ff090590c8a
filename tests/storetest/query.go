package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// sortKeys returns the sort key values of the ordering tests, in no
// particular order; the expected order comes from attr.Compare.
func sortKeys(t testing.TB, s store.Store, typ attr.Type) []attr.Value {
	switch typ {
	case attr.TypeS:
		strs := []string{
			"a", "B", "b", "Z", "0", " ", "~", "\x7f", "\x01",
			"ab", "abc", "abd", "ab\x7f", "a b", "aa",
			"é", "e", "f", "ü", "€", "日本", "日", "😀", "\uffff", "\ufffd", "\u00ff",
			"a\x00", "a\x00b", "\x00",
			// NUL and U+0001 next to the texts a store may escape them to;
			// the UTF-8 boundaries (DynamoDB orders by UTF-8 bytes, not
			// UTF-16 units).
			"\x00\x00", "\x01\x00", "\x01\x01", "\x01\x02", "\x02", "ab\x00", "ab\x01",
			"\u0080", "\u07ff", "\u0800", "中", "中文", "😀😀", "\U0010ffff", "\U0010ffff\U0010ffff", "z\u007f",
		}
		out := make([]attr.Value, len(strs))
		for i, s := range strs {
			out[i] = attr.Str(s)
		}
		return out
	case attr.TypeN:
		nums := []string{
			"0", "1", "-1", "1.5", "-1.5", "2", "10", "100", "-100", "0.001", "-0.001", "0.5", "0.05",
			"1E-130", "-1E-130", "9.9999999999999999999999999999999999999E+125",
			"-9.9999999999999999999999999999999999999E+125",
			"12345678901234567890123456789012345678", "12345678901234567890123456789012345679",
			"-12345678901234567890123456789012345678", "1.0000000000000000000000000000000000001",
			"1.000000000000000000000000000000000001", "99", "990", "9.9", "123.456", "-123.45",
			"-99999999999999999999999999999999999999", "99999999999999999999999999999999999999",
			"-1E+125", "1E+125", "-0.000001", "10.01", "1.5E-129",
		}
		out := make([]attr.Value, len(nums))
		for i, n := range nums {
			out[i] = num(t, n)
		}
		return out
	default:
		bins := [][]byte{
			{0x00}, {0x00, 0x00}, {0x00, 0x01}, {0x01}, {0x7f}, {0x80}, {0xfe}, {0xff}, {0xff, 0x00},
			{0xff, 0xff}, {0xff, 0xff, 0xff}, {0x61}, {0x61, 0x00}, {0x61, 0x62}, {0x61, 0xff}, {0x62},
			{0x01, 0xff}, {0x01, 0x00}, {0xfe, 0xff},
		}
		out := make([]attr.Value, len(bins))
		for i, b := range bins {
			out[i] = attr.Bin(b)
		}
		return out
	}
}

// operands returns the comparison operands of a key type: some present in
// the data, some not.
func operands(t testing.TB, s store.Store, typ attr.Type) []attr.Value {
	out := sortKeys(t, s, typ)
	switch typ {
	case attr.TypeS:
		out = append(out, attr.Str("aaa"), attr.Str("c"), attr.Str("\U0010ffff"))
	case attr.TypeN:
		out = append(out, num(t, "0.75"), num(t, "-5"), num(t, "1E+10"))
	default:
		out = append(out, attr.Bin([]byte{0x60}), attr.Bin([]byte{0x00, 0x00, 0x00}))
	}
	return out
}

// prefixes returns begins_with operands of a key type.
func prefixes(typ attr.Type) []attr.Value {
	if typ == attr.TypeS {
		return []attr.Value{attr.Str("a"), attr.Str("ab"), attr.Str("abc"), attr.Str("日"), attr.Str("\uffff"),
			attr.Str("z"), attr.Str("a\x00"), attr.Str("\x00"), attr.Str("\x01"), attr.Str("\x01\x01"), attr.Str("中"),
			attr.Str("\U0010ffff"), attr.Str("zz")}
	}
	return []attr.Value{attr.Bin([]byte{0x00}), attr.Bin([]byte{0x61}), attr.Bin([]byte{0xff}),
		attr.Bin([]byte{0xff, 0xff}), attr.Bin([]byte{0x7f}), attr.Bin([]byte{0x10}), attr.Bin([]byte{0x01})}
}

// orderedTable creates a table whose partition "p" holds one item per sort
// key of the type (and neighbours "o" and "q" holding some too).
func orderedTable(ctx context.Context, t *testing.T, s store.Store, typ attr.Type) *model {
	tbl := createTable(ctx, t, s, newTable("order-"+typ.String(), key("pk", attr.TypeS), rkey("sk", typ)))
	m := newModel(tbl)
	for i, v := range sortKeys(t, s, typ) {
		m.put(ctx, t, s, attr.Item{"pk": attr.Str("p"), "sk": v, "i": num(t, itoa(i))})
		if i%3 == 0 {
			m.put(ctx, t, s, attr.Item{"pk": attr.Str("o"), "sk": v})
			m.put(ctx, t, s, attr.Item{"pk": attr.Str("q"), "sk": v})
		}
	}
	return m
}

func exerciseQuery(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	for _, typ := range []attr.Type{attr.TypeS, attr.TypeN, attr.TypeB} {
		t.Run("ItemQuery/Order"+typ.String(), func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			m := orderedTable(ctx, t, s, typ)
			want := sortKeys(t, s, typ)
			slices.SortFunc(want, func(a, b attr.Value) int { c, _ := attr.Compare(a, b); return c })
			for _, fwd := range []bool{true, false} {
				got, err := s.ItemQuery(ctx, m.tbl, store.QueryInput{Hash: attr.Str("p"), Forward: fwd})
				requireNoError(t, err, "ItemQuery")
				requireEqual(t, len(got), len(want), "items in the partition")
				for i := range got {
					w := want[i]
					if !fwd {
						w = want[len(want)-1-i]
					}
					requireTrue(t, attr.Equal(got[i]["sk"], w), "forward=%v item %d: sk %s, want %s",
						fwd, i, got[i]["sk"].AppendJSON(nil), w.AppendJSON(nil))
				}
				requireItems(t, got, m.query(store.QueryInput{Hash: attr.Str("p"), Forward: fwd}), "ItemQuery")
			}
		})

		t.Run("ItemQuery/Range"+typ.String(), func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			m := orderedTable(ctx, t, s, typ)
			ops := []store.RangeOp{store.RangeEQ, store.RangeLT, store.RangeLE, store.RangeGT, store.RangeGE}
			vals := operands(t, s, typ)
			check := func(rc *store.RangeCond) {
				t.Helper()
				for _, fwd := range []bool{true, false} {
					in := store.QueryInput{Hash: attr.Str("p"), Range: rc, Forward: fwd}
					got, err := s.ItemQuery(ctx, m.tbl, in)
					requireNoError(t, err, "ItemQuery "+string(rc.Op))
					requireItems(t, got, m.query(in), "ItemQuery "+string(rc.Op)+" "+string(rc.Values[0].AppendJSON(nil)))
				}
			}
			for _, op := range ops {
				for _, v := range vals {
					check(&store.RangeCond{Op: op, Values: []attr.Value{v}})
				}
			}
			for i, lo := range vals {
				for _, hi := range vals[i%4:] {
					if c, _ := attr.Compare(lo, hi); c <= 0 {
						check(&store.RangeCond{Op: store.RangeBetween, Values: []attr.Value{lo, hi}})
					}
				}
			}
			if typ != attr.TypeN {
				for _, p := range prefixes(typ) {
					check(&store.RangeCond{Op: store.RangeBeginsWith, Values: []attr.Value{p}})
				}
			}
			// An absent partition.
			got, err := s.ItemQuery(ctx, m.tbl, store.QueryInput{Hash: attr.Str("absent"), Forward: true})
			requireNoError(t, err, "ItemQuery absent partition")
			requireEqual(t, len(got), 0, "items of an absent partition")
		})

		t.Run("ItemQuery/Paging"+typ.String(), func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			m := orderedTable(ctx, t, s, typ)
			conds := []*store.RangeCond{nil}
			keys := sortKeys(t, s, typ)
			slices.SortFunc(keys, func(a, b attr.Value) int { c, _ := attr.Compare(a, b); return c })
			conds = append(conds, &store.RangeCond{Op: store.RangeBetween, Values: []attr.Value{keys[2], keys[len(keys)-3]}})
			for _, rc := range conds {
				for _, fwd := range []bool{true, false} {
					in := store.QueryInput{Hash: attr.Str("p"), Range: rc, Forward: fwd}
					want := m.query(in)
					for size := 1; size <= len(want)+1; size++ {
						requireItems(t, queryAll(ctx, t, s, m, in, size), want, "paged ItemQuery, page size "+itoa(size))
					}
				}
			}
		})
	}

	t.Run("ItemQuery/HashOnly", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("hashonly", key("pk", attr.TypeN), nil))
		m := newModel(tbl)
		for _, n := range []string{"1", "2", "-3"} {
			m.put(ctx, t, s, attr.Item{"pk": num(t, n), "v": attr.Str(n)})
		}
		in := store.QueryInput{Hash: num(t, "2"), Forward: true}
		got, err := s.ItemQuery(ctx, tbl, in)
		requireNoError(t, err, "ItemQuery")
		requireItems(t, got, m.query(in), "ItemQuery of a hash-only table")
		in.After = attr.Item{"pk": num(t, "2")}
		got, err = s.ItemQuery(ctx, tbl, in)
		requireNoError(t, err, "ItemQuery after the only item")
		requireEqual(t, len(got), 0, "items after the only item")
	})
}
