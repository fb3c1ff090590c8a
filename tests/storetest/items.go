package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

func exerciseItems(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run("ItemWrite", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("items", key("pk", attr.TypeS), rkey("sk", attr.TypeN)))
		k := attr.Item{"pk": attr.Str("p"), "sk": num(t, "1")}
		v1 := attr.Item{"pk": attr.Str("p"), "sk": num(t, "1"), "v": attr.Str("one")}
		v2 := attr.Item{"pk": attr.Str("p"), "sk": num(t, "1"), "v": attr.Str("two"), "w": attr.Bool(true)}

		// Put: fn sees nil, old is nil.
		var seen attr.Item
		old, err := s.ItemWrite(ctx, tbl, k, func(o attr.Item) (attr.Item, error) { seen = o; return v1.Clone(), nil })
		requireNoError(t, err, "ItemWrite put")
		requireTrue(t, old == nil && seen == nil, "ItemWrite put: old %v, fn saw %v", old, seen)
		got, err := s.ItemGet(ctx, tbl, k)
		requireNoError(t, err, "ItemGet")
		requireItem(t, got, v1, "ItemGet after put")

		// Replace: fn sees the stored item, old is it.
		old, err = s.ItemWrite(ctx, tbl, k, func(o attr.Item) (attr.Item, error) { seen = o; return v2.Clone(), nil })
		requireNoError(t, err, "ItemWrite replace")
		requireItem(t, seen, v1, "ItemWrite replace: fn's old")
		requireItem(t, old, v1, "ItemWrite replace: returned old")
		got, err = s.ItemGet(ctx, tbl, k)
		requireNoError(t, err, "ItemGet")
		requireItem(t, got, v2, "ItemGet after replace")

		// fn's error: returned unchanged, nothing written.
		errNo := errorf("condition failed")
		old, err = s.ItemWrite(ctx, tbl, k, func(attr.Item) (attr.Item, error) { return nil, errNo })
		requireTrue(t, err == errNo, "ItemWrite: fn error returned as %v, want it unchanged", err)
		requireTrue(t, old == nil, "ItemWrite with fn error returned old %v", old)
		got, err = s.ItemGet(ctx, tbl, k)
		requireNoError(t, err, "ItemGet")
		requireItem(t, got, v2, "ItemGet after failed delete")
		k2 := attr.Item{"pk": attr.Str("p"), "sk": num(t, "2")}
		_, err = s.ItemWrite(ctx, tbl, k2, func(attr.Item) (attr.Item, error) {
			return attr.Item{"pk": attr.Str("p"), "sk": num(t, "2")}, errNo
		})
		requireTrue(t, err == errNo, "ItemWrite: fn error returned as %v", err)
		got, err = s.ItemGet(ctx, tbl, k2)
		requireNoError(t, err, "ItemGet")
		requireTrue(t, got == nil, "ItemWrite with fn error created %v", got)

		// Delete: returns the old item.
		old, err = s.ItemWrite(ctx, tbl, k, func(attr.Item) (attr.Item, error) { return nil, nil })
		requireNoError(t, err, "ItemWrite delete")
		requireItem(t, old, v2, "ItemWrite delete: returned old")
		got, err = s.ItemGet(ctx, tbl, k)
		requireNoError(t, err, "ItemGet")
		requireTrue(t, got == nil, "ItemGet after delete = %v", got)

		// Delete of an absent item: a no-op.
		old, err = s.ItemWrite(ctx, tbl, k, func(o attr.Item) (attr.Item, error) { return nil, nil })
		requireNoError(t, err, "ItemWrite delete absent")
		requireTrue(t, old == nil, "ItemWrite delete absent: old %v", old)
		n, _, err := s.TableStats(ctx, tbl)
		requireNoError(t, err, "TableStats")
		requireEqual(t, n, int64(0), "items after deletes")
	})

	t.Run("ItemGet", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("get", key("pk", attr.TypeB), nil))
		a := attr.Item{"pk": attr.Bin([]byte{0, 1}), "v": num(t, "1")}
		b := attr.Item{"pk": attr.Bin([]byte{0}), "v": num(t, "2")}
		put(ctx, t, s, tbl, a)
		put(ctx, t, s, tbl, b)
		got, err := s.ItemGet(ctx, tbl, attr.Item{"pk": attr.Bin([]byte{0})})
		requireNoError(t, err, "ItemGet")
		requireItem(t, got, b, "ItemGet of a key that prefixes another")
		got, err = s.ItemGet(ctx, tbl, attr.Item{"pk": attr.Bin([]byte{0, 1, 2})})
		requireNoError(t, err, "ItemGet absent")
		requireTrue(t, got == nil, "ItemGet absent = %v", got)
		raw, err := s.ItemGetJSON(ctx, tbl, attr.Item{"pk": attr.Bin([]byte{0, 1, 2})})
		requireNoError(t, err, "ItemGetJSON absent")
		requireTrue(t, raw == nil, "ItemGetJSON absent = %q", raw)
		raw, err = s.ItemGetJSON(ctx, tbl, attr.Item{"pk": attr.Bin([]byte{0})})
		requireNoError(t, err, "ItemGetJSON")
		fromJSON, err := attr.DecodeItem(raw)
		requireNoError(t, err, "decoding ItemGetJSON's wire JSON")
		requireItem(t, fromJSON, b, "ItemGetJSON of a key that prefixes another")
	})

	t.Run("ItemRoundTrip", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("roundtrip", key("pk", attr.TypeS), rkey("sk", attr.TypeN)))
		deep := attr.Map(map[string]attr.Value{"leaf": attr.Str("x")})
		for range 14 { // 29 levels: under the service's limit of 32
			deep = attr.List([]attr.Value{attr.Map(map[string]attr.Value{"d": deep})})
		}
		items := []attr.Item{
			{
				"pk":      attr.Str("every type"),
				"sk":      num(t, "1"),
				"s":       attr.Str("text"),
				"empty":   attr.Str(""),
				"unicode": attr.Str("héllo wörld ✓ 日本語 😀 \u2028 \"quoted\" \\ \t\n"),
				"nul":     attr.Str("a\x00b"),
				"n":       num(t, "-123.456"),
				"big":     num(t, "12345678901234567890123456789012345678"),
				"bigfrac": num(t, "0.12345678901234567890123456789012345678"),
				"huge":    num(t, "9.9999999999999999999999999999999999999E+125"),
				"tiny":    num(t, "-1E-130"),
				"b":       attr.Bin([]byte{0, 1, 2, 0xfe, 0xff}),
				"emptyb":  attr.Bin([]byte{}),
				"t":       attr.Bool(true),
				"f":       attr.Bool(false),
				"null":    attr.Null(),
				"m": attr.Map(map[string]attr.Value{
					"a":     attr.Str("x"),
					"n":     num(t, "1"),
					"inner": attr.Map(map[string]attr.Value{"l": attr.List([]attr.Value{attr.Null(), attr.Bool(false)})}),
					"":      attr.Str("empty name"),
				}),
				"emptym": attr.Map(map[string]attr.Value{}),
				"l":      attr.List([]attr.Value{attr.Str("x"), num(t, "2"), attr.Bin([]byte("y")), attr.List(nil)}),
				"emptyl": attr.List([]attr.Value{}),
				"ss":     {T: attr.TypeSS, Strs: []string{"b", "a", "", "ü"}},
				"ns":     {T: attr.TypeNS, Strs: []string{num(t, "3").S, num(t, "-1.5").S, num(t, "1E+100").S}},
				"bs":     {T: attr.TypeBS, Bins: [][]byte{{1}, {0}, {}}},
				"deep":   deep,
				"名前":     attr.Str("unicode attribute name"),
			},
			{"pk": attr.Str("日本語 key"), "sk": num(t, "-0.000001")},
			{"pk": attr.Str("nul\x00key"), "sk": num(t, "99999999999999999999999999999999999999")},
			{"pk": attr.Str(strings.Repeat("k", 2048)), "sk": num(t, "0"), "big": attr.Str(strings.Repeat("v", 100000))},
		}
		// U+0000 and U+0001 (and texts that look like escapes of them) in
		// keys, values, attribute names, sets and nested map keys.
		for i, k := range []string{"\x00", "\x01", "a\x00b\x01c", "\x01\x01", "\x01\x02", `\u0000`, `\u0001\u0002`} {
			items = append(items, attr.Item{"pk": attr.Str(k), "sk": num(t, itoa(i)), "n\x00m": attr.Str("v\x00\x01\x02"),
				`q\u0001`: {T: attr.TypeSS, Strs: []string{"\x00", "\x01", "\x01\x01"}},
				"bs":      {T: attr.TypeBS, Bins: [][]byte{{0, 1}, {255}, {1, 1}}},
				"m":       attr.Map(map[string]attr.Value{"\x01": attr.Str("\x00"), "\x00": attr.List([]attr.Value{attr.Str("\x01\x00")})})})
		}
		for _, it := range items {
			put(ctx, t, s, tbl, it)
		}
		for _, it := range items {
			got, err := s.ItemGet(ctx, tbl, tbl.KeyOf(it))
			requireNoError(t, err, "ItemGet")
			requireItem(t, got, it, "ItemGet round trip")
			raw, err := s.ItemGetJSON(ctx, tbl, tbl.KeyOf(it))
			requireNoError(t, err, "ItemGetJSON")
			requireTrue(t, json.Valid(raw), "ItemGetJSON returned invalid JSON %.200q", raw)
			fromJSON, err := attr.DecodeItem(raw)
			requireNoError(t, err, "decoding ItemGetJSON's wire JSON")
			requireItem(t, fromJSON, it, "ItemGetJSON round trip")
			old := put(ctx, t, s, tbl, it)
			requireItem(t, old, it, "ItemWrite old round trip")
		}
		for _, it := range items {
			page, err := s.ItemQuery(ctx, tbl, store.QueryInput{Hash: it["pk"], Forward: true})
			requireNoError(t, err, "ItemQuery")
			requireItems(t, page, []attr.Item{it}, "ItemQuery round trip")
			raws, err := s.ItemQueryJSON(ctx, tbl, store.QueryInput{Hash: it["pk"], Forward: true})
			requireNoError(t, err, "ItemQueryJSON")
			requireTrue(t, len(raws) == 1, "ItemQueryJSON returned %d items, want 1", len(raws))
			requireWireItem(t, raws[0], it, "ItemQueryJSON round trip")
		}
		// Scan's wire JSON: every item, each sized from its text as the
		// item itself counts.
		raws, err := s.ItemScanJSON(ctx, tbl, store.ScanInput{})
		requireNoError(t, err, "ItemScanJSON")
		requireTrue(t, len(raws) == len(items), "ItemScanJSON returned %d items, want %d", len(raws), len(items))
		byKey := map[string]attr.Item{}
		for _, it := range items {
			byKey[string(tbl.KeyOf(it).AppendJSON(nil))] = it
		}
		for _, raw := range raws {
			got, err := attr.DecodeItem(raw)
			requireNoError(t, err, "decoding ItemScanJSON's wire JSON")
			want := byKey[string(tbl.KeyOf(got).AppendJSON(nil))]
			requireTrue(t, want != nil, "ItemScanJSON returned an item not written: %.200q", raw)
			requireWireItem(t, raw, want, "ItemScanJSON round trip")
		}
	})
}

// requireWireItem checks that raw is compact wire JSON of want, whose size
// attr.StoredSize reads from it as want.Size().
func requireWireItem(t *testing.T, raw []byte, want attr.Item, what string) {
	t.Helper()
	requireTrue(t, json.Valid(raw), "%s: invalid JSON %.200q", what, raw)
	var compact bytes.Buffer
	requireNoError(t, json.Compact(&compact, raw), what)
	requireTrue(t, bytes.Equal(compact.Bytes(), raw), "%s: not compact: %.200q", what, raw)
	got, err := attr.DecodeItem(raw)
	requireNoError(t, err, what+": decoding")
	requireItem(t, got, want, what)
	n, ok := attr.StoredSize(raw)
	requireTrue(t, ok && n == want.Size(), "%s: StoredSize = %d, %v; want %d", what, n, ok, want.Size())
}
