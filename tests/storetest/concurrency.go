package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

var errExists = errors.New("storetest: item exists")

func exerciseConcurrency(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	// attribute_not_exists(pk) from 32 writers at once: exactly one wins.
	t.Run("ItemWrite/CreateRace", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("race", key("pk", attr.TypeS), rkey("sk", attr.TypeS),
			store.Index{Name: "gsi", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"}}))
		k := attr.Item{"pk": attr.Str("p"), "sk": attr.Str("s")}
		const writers = 32
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for w := range writers {
			wg.Go(func() {
				_, errs[w] = s.ItemWrite(ctx, tbl, k, func(old attr.Item) (attr.Item, error) {
					if old != nil {
						return nil, errExists
					}
					return attr.Item{"pk": attr.Str("p"), "sk": attr.Str("s"), "g": attr.Str("x"),
						"winner": attr.Num(strconv.Itoa(w))}, nil
				})
			})
		}
		wg.Wait()
		winner := -1
		for w, err := range errs {
			switch {
			case err == nil:
				requireTrue(t, winner < 0, "writers %d and %d both created the item", winner, w)
				winner = w
			case errors.Is(err, errExists):
			default:
				t.Fatalf("writer %d: unexpected error %v", w, err)
			}
		}
		requireTrue(t, winner >= 0, "no writer created the item")
		got, err := s.ItemGet(ctx, tbl, k)
		requireNoError(t, err, "ItemGet")
		requireEqual(t, got["winner"].S, strconv.Itoa(winner), "the stored item is the winner's")
		page, err := s.ItemQuery(ctx, tbl, store.QueryInput{Index: &tbl.Indexes[0], Hash: attr.Str("x"), Forward: true})
		requireNoError(t, err, "ItemQuery index")
		requireEqual(t, len(page), 1, "index rows after the race")
	})

	// 16 writers × 25 read-modify-write increments: none lost.
	t.Run("ItemWrite/Increments", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("counter", key("pk", attr.TypeS), nil,
			store.Index{Name: "by-n", Global: true, Hash: key("g", attr.TypeS), Range: rkey("n", attr.TypeN),
				Projection: store.Projection{Type: "ALL"}}))
		k := attr.Item{"pk": attr.Str("c")}
		const writers, each = 16, 25
		var wg sync.WaitGroup
		errs := make(chan error, writers*each)
		for range writers {
			wg.Go(func() {
				for range each {
					_, err := s.ItemWrite(ctx, tbl, k, func(old attr.Item) (attr.Item, error) {
						n := "0"
						if old != nil {
							n = old["n"].S
						}
						sum, aerr := attr.AddNumbers(n, "1", false)
						if aerr != nil {
							return nil, aerr
						}
						return attr.Item{"pk": attr.Str("c"), "g": attr.Str("x"), "n": attr.Num(sum)}, nil
					})
					if err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("increment: %v", err)
		}
		got, err := s.ItemGet(ctx, tbl, k)
		requireNoError(t, err, "ItemGet")
		requireEqual(t, got["n"].S, strconv.Itoa(writers*each), "counter")
		// The index holds the last state only.
		page, err := s.ItemQuery(ctx, tbl, store.QueryInput{Index: &tbl.Indexes[0], Hash: attr.Str("x"), Forward: true})
		requireNoError(t, err, "ItemQuery index")
		requireItems(t, page, []attr.Item{got}, "index rows after the increments")
	})

	// Writers on distinct items of one table, readers beside them.
	t.Run("ItemWrite/Parallel", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("parallel", key("pk", attr.TypeS), rkey("sk", attr.TypeN)))
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for w := range 8 {
			wg.Go(func() {
				for i := range 20 {
					it := attr.Item{"pk": attr.Str("p" + strconv.Itoa(w)), "sk": attr.Num(strconv.Itoa(i))}
					if _, err := s.ItemWrite(ctx, tbl, tbl.KeyOf(it), func(attr.Item) (attr.Item, error) { return it, nil }); err != nil {
						errs <- err
						return
					}
					if _, err := s.ItemQuery(ctx, tbl, store.QueryInput{Hash: attr.Str("p" + strconv.Itoa(w)), Forward: true}); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("parallel writes: %v", err)
		}
		n, _, err := s.TableStats(ctx, tbl)
		requireNoError(t, err, "TableStats")
		requireEqual(t, n, int64(160), "items")
	})

	// 24 clients, each writing its own item and reading it back at once
	// (ItemGet, ItemQuery), and reading a key no one writes: every read
	// sees its client's last write, and only it (pgstore pipelines the
	// reads in flight together, and the writes).
	t.Run("ItemGet/ReadsOwnWrites", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("readback", key("pk", attr.TypeS), nil))
		const clients, each = 24, 40
		var wg sync.WaitGroup
		errs := make(chan error, clients)
		for c := range clients {
			wg.Go(func() {
				k := attr.Item{"pk": attr.Str("c" + strconv.Itoa(c))}
				for i := range each {
					want := strconv.Itoa(i)
					it := attr.Item{"pk": k["pk"], "v": attr.Num(want)}
					if _, err := s.ItemPut(ctx, tbl, it); err != nil {
						errs <- err
						return
					}
					got, err := s.ItemGet(ctx, tbl, k)
					if err != nil || got["v"].S != want || got["pk"].S != k["pk"].S {
						errs <- fmt.Errorf("client %d, write %d: read %v, %v", c, i, got, err)
						return
					}
					page, err := s.ItemQuery(ctx, tbl, store.QueryInput{Hash: k["pk"], Forward: true})
					if err != nil || len(page) != 1 || page[0]["v"].S != want {
						errs <- fmt.Errorf("client %d, write %d: query %v, %v", c, i, page, err)
						return
					}
					if got, err := s.ItemGet(ctx, tbl, attr.Item{"pk": attr.Str("absent")}); err != nil || got != nil {
						errs <- fmt.Errorf("client %d: read of an absent key: %v, %v", c, got, err)
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	})
}
