package pgstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
)

// TestRemoveRacingPut races a put of a new item with a remove of the same
// key, on a table with a sync GSI, single and batched: the item the put
// leaves (when it commits after the remove) must keep its index row. A
// blind remove of the absent item waits for nothing, and its index deletes,
// run on a newer snapshot, deleted the put's index row once it committed
// (about 1 race in 200 on the 2-core machine).
func TestRemoveRacingPut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openStore(t, freshURL(t), pgstore.Options{})
	ix := asyncGSI("g", "KEYS_ONLY")
	ix.Propagation = store.PropagationSync
	tb := newTable(t, s, "rmrace", attr.TypeS, attr.TypeNone, ix)
	removes := map[string]func(k string) error{
		"ItemRemove": func(k string) error { _, err := s.ItemRemove(ctx, tb, attr.Item{"pk": attr.Str(k)}); return err },
		"ItemWriteMany": func(k string) error {
			_, err := s.ItemWriteMany(ctx, []store.WriteOp{{Table: tb, Key: attr.Item{"pk": attr.Str(k)}}})
			return err
		},
	}
	for name, remove := range removes {
		bad := 0
		for i := range 1500 {
			k := fmt.Sprintf("%s-%d", name, i)
			var wg sync.WaitGroup
			wg.Go(func() {
				if _, err := s.ItemPut(ctx, tb, attr.Item{"pk": attr.Str(k), "g": attr.Str("x"), "gn": attr.Num("1")}); err != nil {
					t.Error(err)
				}
			})
			wg.Go(func() {
				if err := remove(k); err != nil {
					t.Error(err)
				}
			})
			wg.Wait()
			var items, rows int
			if err := s.Pool().QueryRow(ctx, fmt.Sprintf(`SELECT (SELECT count(*) FROM dynamopg_data.t_%d WHERE pk = $1),
			       (SELECT count(*) FROM dynamopg_data.i_%d WHERE pk = $1)`, tb.ID, tb.Indexes[0].ID), k).Scan(&items, &rows); err != nil {
				t.Fatal(err)
			}
			if items != rows {
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of 1500 races of a put and a remove left an item without its index row, or a row without its item", name, bad)
		}
	}
}
