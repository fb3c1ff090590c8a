package pgstore_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// sortKeys are sort key values of one type, in DynamoDB order.
var sortKeys = map[attr.Type][]attr.Value{
	attr.TypeS: strs("", "\x00", "\x00\x00", "\x01", "\x01\x00", "\x02", "A", "Z", "a", "ab", "abc", "abd", "ab\x00", "ab\xff"[:2]+"c",
		"b", "é", "éa", "z\u007f", "\u0080", "\u07ff", "\u0800", "中", "中文", "\uffff", "😀", "😀😀", "\U0010ffff", "\U0010ffff\U0010ffff"),
	attr.TypeN: nums("-1e125", "-99999999999999999999999999999999999999", "-10", "-1.5", "-1", "-0.000001", "-1e-130", "0",
		"1e-130", "0.5", "1", "1."+strings.Repeat("0", 36)+"1", "1.5", "2", "10", "10.01", "12345678901234567890123456789012345678",
		"99999999999999999999999999999999999999", "1e125"),
	attr.TypeB: bins([]byte{0}, []byte{0, 0}, []byte{0, 1}, []byte{1}, []byte{1, 0xff}, []byte{0x7f}, []byte{0x80}, []byte{0xfe, 0xff},
		[]byte{0xff}, []byte{0xff, 0x00}, []byte{0xff, 0xff}, []byte{0xff, 0xff, 0xff}),
}

func strs(ss ...string) []attr.Value {
	out := []attr.Value{}
	for _, s := range ss {
		if s != "" { // DynamoDB key strings are non-empty
			out = append(out, attr.Str(s))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].S < out[j].S })
	return slices.CompactFunc(out, func(a, b attr.Value) bool { return a.S == b.S })
}

func nums(ns ...string) []attr.Value {
	out := []attr.Value{}
	for _, n := range ns {
		c, err := attr.ParseNumber(n)
		if err != nil {
			panic(err)
		}
		out = append(out, attr.Num(c))
	}
	return out
}

func bins(bs ...[]byte) []attr.Value {
	out := []attr.Value{}
	for _, b := range bs {
		out = append(out, attr.Bin(b))
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].B, out[j].B) < 0 })
	return out
}

// sortKeyOf reads the sort key of an item of the test tables.
func sortKeyOf(it attr.Item) attr.Value { return it["sk"] }

// expect filters vals by op and orders them for the direction.
func expect(vals []attr.Value, op store.RangeOp, args []attr.Value, forward bool) []attr.Value {
	var out []attr.Value
	for _, v := range vals {
		c := func(i int) int { r, _ := attr.Compare(v, args[i]); return r }
		var ok bool
		switch op {
		case "":
			ok = true
		case store.RangeEQ:
			ok = c(0) == 0
		case store.RangeLT:
			ok = c(0) < 0
		case store.RangeLE:
			ok = c(0) <= 0
		case store.RangeGT:
			ok = c(0) > 0
		case store.RangeGE:
			ok = c(0) >= 0
		case store.RangeBetween:
			ok = c(0) >= 0 && c(1) <= 0
		case store.RangeBeginsWith:
			if v.T == attr.TypeS {
				ok = strings.HasPrefix(v.S, args[0].S)
			} else {
				ok = bytes.HasPrefix(v.B, args[0].B)
			}
		}
		if ok {
			out = append(out, v)
		}
	}
	if !forward {
		slices.Reverse(out)
	}
	return out
}

// queryAll pages through a query limit items at a time.
func queryAll(t *testing.T, s store.Store, tb *store.Table, in store.QueryInput, limit int) []attr.Item {
	t.Helper()
	var all []attr.Item
	in.Limit = limit
	for range 1000 {
		page, err := s.ItemQuery(context.Background(), tb, in)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if len(page) < limit {
			return all
		}
		last := page[len(page)-1]
		in.After = tb.KeyOf(last)
		if in.Index != nil {
			for _, n := range in.Index.KeyNames(tb) {
				in.After[n] = last[n]
			}
		}
	}
	t.Fatal("query does not end")
	return nil
}

func TestQueryOrderAndOps(t *testing.T) {
	s := newStore(t)
	for _, typ := range []attr.Type{attr.TypeS, attr.TypeN, attr.TypeB} {
		t.Run(typ.String(), func(t *testing.T) {
			tb := newTable(t, s, "order-"+typ.String(), attr.TypeS, typ)
			vals := sortKeys[typ]
			for i, v := range vals {
				put(t, s, tb, attr.Item{"pk": attr.Str("p"), "sk": v, "i": attr.Num(fmt.Sprint(i))})
				put(t, s, tb, attr.Item{"pk": attr.Str("other"), "sk": v})
			}
			mid, hi := vals[len(vals)/3], vals[2*len(vals)/3]
			cases := []struct {
				op   store.RangeOp
				args []attr.Value
			}{
				{"", nil},
				{store.RangeEQ, []attr.Value{mid}},
				{store.RangeLT, []attr.Value{mid}},
				{store.RangeLE, []attr.Value{mid}},
				{store.RangeGT, []attr.Value{mid}},
				{store.RangeGE, []attr.Value{mid}},
				{store.RangeBetween, []attr.Value{mid, hi}},
			}
			switch typ {
			case attr.TypeS:
				for _, p := range []string{"a", "ab", "\x00", "\x01", "中", "\U0010ffff", "\uffff", "zz"} {
					cases = append(cases, struct {
						op   store.RangeOp
						args []attr.Value
					}{store.RangeBeginsWith, []attr.Value{attr.Str(p)}})
				}
			case attr.TypeB:
				for _, p := range [][]byte{{0}, {0xff}, {0xff, 0xff}, {1}} {
					cases = append(cases, struct {
						op   store.RangeOp
						args []attr.Value
					}{store.RangeBeginsWith, []attr.Value{attr.Bin(p)}})
				}
			}
			for _, c := range cases {
				for _, forward := range []bool{true, false} {
					for _, limit := range []int{1000, 3} {
						in := store.QueryInput{Hash: attr.Str("p"), Forward: forward}
						if c.op != "" {
							in.Range = &store.RangeCond{Op: c.op, Values: c.args}
						}
						got := queryAll(t, s, tb, in, limit)
						want := expect(vals, c.op, c.args, forward)
						if len(got) != len(want) {
							t.Errorf("%s %v forward=%v limit=%d: %d items, want %d", c.op, c.args, forward, limit, len(got), len(want))
							continue
						}
						for i := range got {
							if !attr.Equal(sortKeyOf(got[i]), want[i]) {
								t.Errorf("%s %v forward=%v limit=%d: item %d is %v, want %v", c.op, c.args, forward, limit, i, sortKeyOf(got[i]), want[i])
								break
							}
						}
					}
				}
			}
		})
	}
}

func TestScanSegments(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	tb := newTable(t, s, "scan", attr.TypeS, attr.TypeN)
	want := map[string]bool{}
	for p := range 40 {
		for k := range 5 {
			it := attr.Item{"pk": attr.Str(fmt.Sprintf("p%d\x00", p)), "sk": attr.Num(fmt.Sprint(k))}
			put(t, s, tb, it)
			want[fmt.Sprintf("%s/%s", it["pk"].S, it["sk"].S)] = true
		}
	}
	for _, total := range []int{1, 4} {
		seen := map[string]int{}
		for seg := range total {
			lo, hi := store.SegmentBounds(seg, total)
			in := store.ScanInput{Segment: seg, TotalSegments: total, Limit: 7}
			var prev uint32
			for {
				page, err := s.ItemScan(ctx, tb, in)
				if err != nil {
					t.Fatal(err)
				}
				for _, it := range page {
					h := store.KeyHash(it["pk"])
					if uint64(h) < lo || uint64(h) >= hi || h < prev {
						t.Errorf("segment %d/%d: hash %d out of place (range [%d,%d), previous %d)", seg, total, h, lo, hi, prev)
					}
					prev = h
					seen[fmt.Sprintf("%s/%s", it["pk"].S, it["sk"].S)]++
				}
				if len(page) < in.Limit {
					break
				}
				in.After = tb.KeyOf(page[len(page)-1])
			}
		}
		if len(seen) != len(want) {
			t.Errorf("%d segments: %d distinct items, want %d", total, len(seen), len(want))
		}
		for k, n := range seen {
			if n != 1 || !want[k] {
				t.Errorf("%d segments: %q seen %d times", total, k, n)
			}
		}
	}
}

func TestKeyHash(t *testing.T) {
	s := newStore(t)
	vals := []attr.Value{attr.Str("a"), attr.Str("\x00"), attr.Str("\x01\x00x"), attr.Str("中文😀"), attr.Num("-1.5"), attr.Num("0"),
		attr.Bin(nil), attr.Bin([]byte{0, 1, 0xff})}
	for _, v := range vals {
		var h int64
		err := s.Pool().QueryRow(context.Background(), "SELECT dynamopg.key_hash($1::jsonb)", pgValue(v)).Scan(&h)
		if err != nil {
			t.Fatal(err)
		}
		if uint32(h) != store.KeyHash(v) || h < 0 || h > 1<<32-1 {
			t.Errorf("%v: key_hash %d, store.KeyHash %d", v, h, store.KeyHash(v))
		}
	}
}

// pgValue is a value as pgstore sends it (NUL-escaped wire JSON).
func pgValue(v attr.Value) string {
	b := string(v.AppendJSON(nil))
	b = strings.ReplaceAll(b, `\u0001`, `\u0001\u0002`)
	return strings.ReplaceAll(b, `\u0000`, `\u0001\u0001`)
}
