package storetest

import (
	"context"
	"sync"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// exercisePut checks store.Putter (every store implements it): ItemPut
// is ItemWrite with a fn that returns the item whatever the old one is —
// the same old item returned, the same index rows, the same stream records —
// also when many ItemPut calls race on one key.
func exercisePut(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	s := newStore(t)
	p, ok := s.(store.Putter)
	requireTrue(t, ok, "%T does not implement store.Putter", s)
	tbl := createTable(ctx, t, s, newTable("put", key("pk", attr.TypeS), nil,
		store.Index{Name: "by-g", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"}},
		asyncIndex("by-g-async", key("g", attr.TypeS), nil, store.Projection{Type: "KEYS_ONLY"})))

	item := func(g, v string) attr.Item {
		it := attr.Item{"pk": attr.Str("k"), "v": attr.Str(v)}
		if g != "" {
			it["g"] = attr.Str(g)
		}
		return it
	}
	steps := []struct {
		put, wantOld attr.Item
	}{
		{item("a", "1"), nil},
		{item("b", "2"), item("a", "1")},
		{item("", "3"), item("b", "2")}, // leaves both indexes
		{item("c", "4"), item("", "3")},
	}
	for i, st := range steps {
		old, err := p.ItemPut(ctx, tbl, st.put)
		requireNoError(t, err, "ItemPut")
		requireTrue(t, itemsEqual(old, st.wantOld), "step %d: ItemPut returned %s, want %s", i, show(old), show(st.wantOld))
		got, err := s.ItemGet(ctx, tbl, tbl.KeyOf(st.put))
		requireNoError(t, err, "ItemGet")
		requireTrue(t, itemsEqual(got, st.put), "step %d: ItemGet %s, want %s", i, show(got), show(st.put))
		requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[0], "sync index after ItemPut")
	}

	// Racing puts of new and existing keys: every key ends with one of the
	// values written to it, and the indexes match the table.
	const writers, keys = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range 40 {
				k := attr.Str("race" + itoa((w+i)%keys))
				it := attr.Item{"pk": k, "g": attr.Str([]string{"x", "y", "z"}[(w*i)%3]), "w": attr.Str(itoa(w))}
				if _, err := p.ItemPut(ctx, tbl, it); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		requireNoError(t, err, "racing ItemPut")
	}
	requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[0], "sync index after racing ItemPut")
	if q, ok := s.(store.Queue); ok {
		queueWait(ctx, t, q, tbl)
		requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[1], "async index after racing ItemPut")
	}
}
