package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// The optimistic ItemWrite (guarded.go) on two stores of one database, so
// that each one's beliefs about the items go stale under the other's
// writes: every increment and every conditional create must still be
// exact.

var errExists = errors.New("item exists")

// twoStores opens two stores on one fresh database.
func twoStores(t *testing.T) []store.Store {
	t.Helper()
	url := pgtest.URL(t)
	var stores []store.Store
	for range 2 {
		s, err := pgstore.Open(context.Background(), url, pgstore.Options{Migrate: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		stores = append(stores, s)
	}
	return stores
}

func TestGuardedWriteTwoStores(t *testing.T) {
	ctx := context.Background()
	stores := twoStores(t)
	s1, s2 := stores[0], stores[1]
	tb := newTable(t, s1, "guarded", attr.TypeS, attr.TypeNone)
	key := attr.Item{"pk": attr.Str("counter")}

	t.Run("increments", func(t *testing.T) {
		const writers, each = 8, 40
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(s store.Store) {
				defer wg.Done()
				for i := 0; i < each; i++ {
					_, err := s.ItemWrite(ctx, tb, key, func(old attr.Item) (attr.Item, error) {
						n := 0
						if old != nil {
							n, _ = strconv.Atoi(old["n"].S)
						}
						return attr.Item{"pk": key["pk"], "n": attr.Num(strconv.Itoa(n + 1))}, nil
					})
					if err != nil {
						errs <- err
						return
					}
				}
			}(stores[w%2])
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for _, s := range stores {
			got, err := s.ItemGet(ctx, tb, key)
			if err != nil {
				t.Fatal(err)
			}
			if got["n"].S != strconv.Itoa(writers*each) {
				t.Fatalf("counter %v after %d increments", got["n"], writers*each)
			}
		}
	})

	t.Run("conditional-create", func(t *testing.T) {
		for round := 0; round < 20; round++ {
			k := attr.Item{"pk": attr.Str(fmt.Sprintf("c%d", round))}
			if round%2 == 1 {
				// A belief of "present" in s1 that is stale: the item is
				// deleted behind its back.
				if _, err := s1.ItemPut(ctx, tb, attr.Item{"pk": k["pk"], "w": attr.Num("-1")}); err != nil {
					t.Fatal(err)
				}
				if _, err := s1.ItemGet(ctx, tb, k); err != nil {
					t.Fatal(err)
				}
				if _, err := s2.ItemRemove(ctx, tb, k); err != nil {
					t.Fatal(err)
				}
			}
			const writers = 6
			var wins atomic.Int32
			winner := make(chan int, writers)
			var wg sync.WaitGroup
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func(w int, s store.Store) {
					defer wg.Done()
					_, err := s.ItemWrite(ctx, tb, k, func(old attr.Item) (attr.Item, error) {
						if old != nil {
							return nil, errExists
						}
						return attr.Item{"pk": k["pk"], "w": attr.Num(strconv.Itoa(w))}, nil
					})
					switch {
					case err == nil:
						wins.Add(1)
						winner <- w
					case !errors.Is(err, errExists):
						t.Error(err)
					}
				}(w, stores[w%2])
			}
			wg.Wait()
			if n := wins.Load(); n != 1 {
				t.Fatalf("round %d: %d conditional creates succeeded, want 1", round, n)
			}
			w := <-winner
			got, err := s2.ItemGet(ctx, tb, k)
			if err != nil {
				t.Fatal(err)
			}
			if got["w"].S != strconv.Itoa(w) {
				t.Fatalf("round %d: item %v, winner %d", round, got, w)
			}
		}
	})

	t.Run("stale-belief", func(t *testing.T) {
		k := attr.Item{"pk": attr.Str("stale")}
		if _, err := s1.ItemPut(ctx, tb, attr.Item{"pk": k["pk"], "v": attr.Str("a")}); err != nil {
			t.Fatal(err)
		}
		if _, err := s1.ItemGet(ctx, tb, k); err != nil { // s1 believes "a"
			t.Fatal(err)
		}
		if _, err := s2.ItemPut(ctx, tb, attr.Item{"pk": k["pk"], "v": attr.Str("b")}); err != nil {
			t.Fatal(err)
		}
		var seen []string
		old, err := s1.ItemWrite(ctx, tb, k, func(old attr.Item) (attr.Item, error) {
			seen = append(seen, old["v"].S)
			if old["v"].S != "b" {
				return nil, errExists // refused on the stale belief: must not stand
			}
			return attr.Item{"pk": k["pk"], "v": attr.Str("c")}, nil
		})
		if err != nil {
			t.Fatalf("write over a stale belief: %v (fn saw %v)", err, seen)
		}
		if old["v"].S != "b" {
			t.Fatalf("old item %v, want v=b", old)
		}
		got, err := s2.ItemGet(ctx, tb, k)
		if err != nil {
			t.Fatal(err)
		}
		if got["v"].S != "c" {
			t.Fatalf("item %v, want v=c", got)
		}
	})
}

// Successive writes of one item by one store take update_version_sql,
// which sends only the attributes that change (itemPatch): after each, a
// second store, which has no image of the item, reads exactly the item
// written, whatever the change (attributes added, changed, nested,
// removed, names that the stored form spells escaped).
func TestGuardedWritePatches(t *testing.T) {
	ctx := context.Background()
	stores := twoStores(t)
	writer, reader := stores[0], stores[1]
	tb := newTable(t, writer, "patched", attr.TypeS, attr.TypeNone)
	key := attr.Item{"pk": attr.Str("p")}
	with := func(kv ...any) attr.Item {
		it := attr.Item{"pk": key["pk"]}
		for i := 0; i < len(kv); i += 2 {
			it[kv[i].(string)] = kv[i+1].(attr.Value)
		}
		return it
	}
	big := attr.Str(string(make([]byte, 0)) + fmt.Sprintf("%01000d", 7))
	nested := attr.Map(map[string]attr.Value{"a": attr.Num("1"), "l": attr.List([]attr.Value{attr.Str("x"), attr.Bool(true)})})
	nested2 := attr.Map(map[string]attr.Value{"a": attr.Num("2"), "l": attr.List([]attr.Value{attr.Str("x"), attr.Bool(true)})})
	steps := []struct {
		name string
		item attr.Item
	}{
		{"create", with("data", big, "n", attr.Num("1"))},
		{"set one", with("data", big, "n", attr.Num("2"))},
		{"add", with("data", big, "n", attr.Num("2"), "m", nested, "s", attr.Value{T: attr.TypeSS, Strs: []string{"a", "b"}})},
		{"nested change", with("data", big, "n", attr.Num("2"), "m", nested2, "s", attr.Value{T: attr.TypeSS, Strs: []string{"a", "b"}})},
		{"remove", with("data", big, "m", nested2)},
		{"nothing changes", with("data", big, "m", nested2)},
		{"remove and add", with("data", attr.Str("small"), "x\x01y", attr.Null(), "nul\x00", attr.Bin([]byte{0, 1}))},
		{"remove escaped names", with("data", attr.Str("small"))},
		{"only the key", with()},
	}
	for _, st := range steps {
		if _, err := writer.ItemWrite(ctx, tb, key, func(attr.Item) (attr.Item, error) { return st.item, nil }); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, err := reader.ItemGet(ctx, tb, key)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if !attr.EqualItems(got, st.item) || len(got) != len(st.item) {
			t.Fatalf("%s: stored %v, want %v", st.name, got, st.item)
		}
	}
}
