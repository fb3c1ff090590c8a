package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// exerciseGetMany checks ItemGetMany beyond the transactions' tests: a
// target whose table is gone fails the call with ErrTableNotFound, and the
// failure leaves nothing behind (later calls, on every connection a store
// may have, read normally).
func exerciseGetMany(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
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
		for i := range 20 {
			got, err := s.ItemGetMany(ctx, []store.TxTarget{{Table: live, Key: k}, {Table: live, Key: attr.Item{"pk": attr.Str("b")}}})
			requireNoError(t, err, fmt.Sprintf("ItemGetMany %d after the failures", i))
			requireItems(t, got, []attr.Item{a, nil}, "ItemGetMany after the failures")
		}
	})
}
