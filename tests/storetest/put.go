package storetest

import (
	"context"
	"sync"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// exercisePut checks ItemPut and ItemRemove are ItemWrite with a fn that returns the item (or
// nil) whatever the old one is — the same old item returned, the same index
// rows — also when many calls race on a few keys, or create one key.
func exercisePut(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	s := newStore(t)
	p := s
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

	// A caller that does not want the old item (store.WithOldUnneeded):
	// the same writes, the same index rows; old is the item replaced or nil.
	unneeded := store.WithOldUnneeded(ctx)
	prev := steps[len(steps)-1].put
	for i, st := range steps {
		old, err := p.ItemPut(unneeded, tbl, st.put)
		requireNoError(t, err, "ItemPut (old unneeded)")
		requireTrue(t, old == nil || itemsEqual(old, prev), "step %d: ItemPut (old unneeded) returned %s, want %s or nil", i, show(old), show(prev))
		got, err := s.ItemGet(ctx, tbl, tbl.KeyOf(st.put))
		requireNoError(t, err, "ItemGet")
		requireTrue(t, itemsEqual(got, st.put), "step %d (old unneeded): ItemGet %s, want %s", i, show(got), show(st.put))
		requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[0], "sync index after ItemPut (old unneeded)")
		prev = st.put
	}

	old, err := p.ItemRemove(ctx, tbl, attr.Item{"pk": attr.Str("k")})
	requireNoError(t, err, "ItemRemove")
	requireTrue(t, itemsEqual(old, item("c", "4")), "ItemRemove returned %s, want %s", show(old), show(item("c", "4")))
	old, err = p.ItemRemove(ctx, tbl, attr.Item{"pk": attr.Str("k")})
	requireNoError(t, err, "ItemRemove of a missing item")
	requireTrue(t, old == nil, "ItemRemove of a missing item returned %s", show(old))
	requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[0], "sync index after ItemRemove")

	// Racing puts and removes of new and existing keys: the indexes match
	// the table.
	const writers, keys = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range 40 {
				k := attr.Str("race" + itoa((w+i)%keys))
				it := attr.Item{"pk": k, "g": attr.Str([]string{"x", "y", "z"}[(w*i)%3]), "w": attr.Str(itoa(w))}
				var err error
				switch (w + i) % 4 {
				case 3:
					_, err = p.ItemRemove(ctx, tbl, attr.Item{"pk": k})
				case 2:
					_, err = p.ItemPut(store.WithOldUnneeded(ctx), tbl, it)
				default:
					_, err = p.ItemPut(ctx, tbl, it)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		requireNoError(t, err, "racing ItemPut/ItemRemove")
	}
	requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[0], "sync index after racing writes")
	queueWait(ctx, t, s, tbl)
	requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[1], "async index after racing writes")

	// Racing creators of one new key: each put replaced exactly what the
	// put before it wrote, so exactly one saw no old item, and the old
	// items chain the puts into one order.
	const creators = 16
	olds := make([]attr.Item, creators)
	putErrs := make([]error, creators)
	for w := range creators {
		wg.Go(func() {
			olds[w], putErrs[w] = p.ItemPut(ctx, tbl, attr.Item{"pk": attr.Str("fresh"), "g": attr.Str("x"), "w": attr.Str(itoa(w))})
		})
	}
	wg.Wait()
	for _, err := range putErrs {
		requireNoError(t, err, "racing ItemPut of a new key")
	}
	fresh, replaced := 0, map[string]int{}
	for _, old := range olds {
		if old == nil {
			fresh++
			continue
		}
		replaced[old["w"].S]++
	}
	requireEqual(t, fresh, 1, "racing puts of a new key that saw no old item")
	for w, n := range replaced {
		requireEqual(t, n, 1, "puts that replaced writer "+w+"'s item")
	}
	requireEqual(t, len(replaced), creators-1, "items replaced by the racing puts")
	requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[0], "sync index after racing creators")
}
