package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// exercisePutMany checks ItemWriteMany: the old items come back in the caller's order, puts and deletes
// mixed, the indexes follow; batches writing the same keys in opposite
// orders at once all succeed. And, racing with them, item writes whose fn
// fails write nothing and get their own error (SQLite runs concurrent item
// writes in one transaction).
func exercisePutMany(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	s := newStore(t)
	m := s
	tbl := createTable(ctx, t, s, newTable("putmany", key("pk", attr.TypeS), nil,
		store.Index{Name: "by-g", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"}}))
	item := func(k string, v int) attr.Item {
		return attr.Item{"pk": attr.Str(k), "g": attr.Str("g"), "v": attr.Num(fmt.Sprint(v))}
	}
	k := func(s string) attr.Item { return attr.Item{"pk": attr.Str(s)} }
	put(ctx, t, s, tbl, item("b", 1))
	put(ctx, t, s, tbl, item("d", 1))
	olds, err := m.ItemWriteMany(ctx, []store.WriteOp{
		{Table: tbl, Key: k("d"), Put: item("d", 2)},
		{Table: tbl, Key: k("a"), Put: item("a", 2)},
		{Table: tbl, Key: k("b")},
		{Table: tbl, Key: k("c")},
	})
	requireNoError(t, err, "ItemWriteMany")
	want := []attr.Item{item("d", 1), nil, item("b", 1), nil}
	for i := range want {
		requireTrue(t, itemsEqual(olds[i], want[i]), "old of op %d = %s, want %s", i, show(olds[i]), show(want[i]))
	}
	for key, w := range map[string]attr.Item{"a": item("a", 2), "b": nil, "c": nil, "d": item("d", 2)} {
		got, err := s.ItemGet(ctx, tbl, k(key))
		requireNoError(t, err, "ItemGet")
		requireTrue(t, itemsEqual(got, w), "item %s = %s, want %s", key, show(got), show(w))
	}
	requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[0], "index after ItemWriteMany")

	var keys []string
	for i := range 12 {
		keys = append(keys, fmt.Sprintf("k%02d", i))
	}
	refused := errors.New("refused by fn")
	var wg sync.WaitGroup
	errs := make(chan error, 8*30*2)
	for w := range 8 {
		order := slices.Clone(keys)
		if w%2 == 1 {
			slices.Reverse(order)
		}
		wg.Go(func() {
			for n := range 30 {
				var batch []store.WriteOp
				for _, key := range order {
					batch = append(batch, store.WriteOp{Table: tbl, Key: k(key), Put: item(key, w*1000+n)})
				}
				if _, err := m.ItemWriteMany(ctx, batch); err != nil {
					errs <- err
				}
				// A write that fails after reading: it must leave no trace.
				_, err := s.ItemWrite(ctx, tbl, k("never"), func(attr.Item) (attr.Item, error) { return nil, refused })
				if !errors.Is(err, refused) {
					errs <- fmt.Errorf("failing write: err = %v, want its own error", err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent batch: %v", err)
	}
	got, err := s.ItemGet(ctx, tbl, k("never"))
	requireNoError(t, err, "ItemGet")
	requireTrue(t, got == nil, "a write whose fn failed left %s", show(got))
	requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[0], "index after concurrent batches")
}
