package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// exerciseGetMany checks ItemGetMany beyond the transactions' tests: the
// items come back in the targets' order whatever their tables, nil where
// absent, and as compact wire JSON from ItemGetManyJSON; a target whose table is gone fails the call with ErrTableNotFound, and the
// failure leaves nothing behind (later calls, on every connection a store
// may have, read normally).
func exerciseGetMany(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run("ItemGetMany/Order", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		h := createTable(ctx, t, s, newTable("getmany_hash", key("pk", attr.TypeS), nil))
		r := createTable(ctx, t, s, newTable("getmany_range", key("pk", attr.TypeB), rkey("sk", attr.TypeN)))
		var targets []store.TxTarget
		var want []attr.Item
		for i := range 60 {
			var tbl *store.Table
			var it attr.Item
			if i%7 == 0 { // 9 keys of r, 51 of h: both ways a store may read them
				tbl, it = r, attr.Item{"pk": attr.Bin([]byte{0, byte(i % 2)}), "sk": attr.Num(fmt.Sprintf("%d.5", i)), "v": attr.Num(fmt.Sprint(i))}
			} else {
				tbl, it = h, attr.Item{"pk": attr.Str(fmt.Sprintf("k\x00%02d", i)), "v": attr.Num(fmt.Sprint(i))}
			}
			present := i%4 != 1
			if present {
				put(ctx, t, s, tbl, it)
				want = append(want, it)
			} else {
				want = append(want, nil)
			}
			targets = append(targets, store.TxTarget{Table: tbl, Key: tbl.KeyOf(it)})
		}
		got, err := s.ItemGetMany(ctx, targets)
		requireNoError(t, err, "ItemGetMany of 60 keys over two tables")
		requireItems(t, got, want, "ItemGetMany of 60 keys over two tables, in the targets' order")
		raws, err := s.ItemGetManyJSON(ctx, targets)
		requireNoError(t, err, "ItemGetManyJSON of 60 keys over two tables")
		requireTrue(t, len(raws) == len(want), "ItemGetManyJSON returned %d items for %d keys", len(raws), len(want))
		for i, raw := range raws {
			if want[i] == nil {
				requireTrue(t, raw == nil, "ItemGetManyJSON of absent key %d = %q", i, raw)
				continue
			}
			requireWireItem(t, raw, want[i], fmt.Sprintf("ItemGetManyJSON key %d", i))
		}
		got, err = s.ItemGetMany(ctx, targets[1:2])
		requireNoError(t, err, "ItemGetMany of an absent key")
		requireItems(t, got, []attr.Item{nil}, "ItemGetMany of an absent key")
	})
	t.Run("ItemGetMany/TableGone", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		live := createTable(ctx, t, s, newTable("getmany_live", key("pk", attr.TypeS), nil))
		gone := createTable(ctx, t, s, newTable("getmany_gone", key("pk", attr.TypeS), nil))
		a := attr.Item{"pk": attr.Str("a"), "v": attr.Str("live")}
		put(ctx, t, s, live, a)
		put(ctx, t, s, gone, attr.Item{"pk": attr.Str("a")})
		_, err := s.TableDelete(ctx, gone.Name)
		requireNoError(t, err, "TableDelete")
		k := attr.Item{"pk": attr.Str("a")}
		for i := range 20 {
			_, err := s.ItemGetMany(ctx, []store.TxTarget{{Table: live, Key: k}, {Table: gone, Key: k}})
			requireErrorIs(t, err, store.ErrTableNotFound, fmt.Sprintf("ItemGetMany %d with a deleted table", i))
		}
		// Twelve keys of the deleted table: a store may read them together.
		many := []store.TxTarget{{Table: live, Key: k}}
		for j := range 12 {
			many = append(many, store.TxTarget{Table: gone, Key: attr.Item{"pk": attr.Str(fmt.Sprint(j))}})
		}
		for i := range 5 {
			_, err := s.ItemGetMany(ctx, many)
			requireErrorIs(t, err, store.ErrTableNotFound, fmt.Sprintf("ItemGetMany %d of 12 keys of a deleted table", i))
		}
		for i := range 20 {
			got, err := s.ItemGetMany(ctx, []store.TxTarget{{Table: live, Key: k}, {Table: live, Key: attr.Item{"pk": attr.Str("b")}}})
			requireNoError(t, err, fmt.Sprintf("ItemGetMany %d after the failures", i))
			requireItems(t, got, []attr.Item{a, nil}, "ItemGetMany after the failures")
		}
	})
}
