package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// outcomes classifies the results of the operations of one round.
type outcomes struct {
	ok, notFound, other atomic.Int64
	mu                  sync.Mutex
	errs                []string
}

func (c *outcomes) add(err error) {
	switch {
	case err == nil:
		c.ok.Add(1)
	case errors.Is(err, store.ErrTableNotFound):
		c.notFound.Add(1)
	default:
		c.other.Add(1)
		c.mu.Lock()
		if len(c.errs) < 5 {
			c.errs = append(c.errs, err.Error())
		}
		c.mu.Unlock()
	}
}

// exerciseDeleteUnderTraffic: 16 goroutines write (ItemWrite, ItemTransact)
// and query (the table, a sync and an async global index) a table while
// TableDelete runs, 4 rounds. Every delete succeeds, every operation
// succeeds or fails with ErrTableNotFound, and nothing of the table
// remains (Backend.Leftovers), without a sweeper's help where the backend
// can open a store without one.
func exerciseDeleteUnderTraffic(ctx context.Context, t *testing.T, b Backend) {
	t.Run("UnderTraffic", func(t *testing.T) {
		t.Parallel()
		const rounds, goroutines, items = 4, 16, 200
		s := b.New(t)
		if b.Open != nil {
			s = b.Open(t, s, false)
		}
		for round := range rounds {
			tbl := createTable(ctx, t, s, newTable("traffic", key("pk", attr.TypeS), rkey("sk", attr.TypeN),
				store.Index{Name: "gs", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"},
					Status: store.StatusActive},
				asyncIndex("ga", key("g", attr.TypeS), rkey("gn", attr.TypeN), store.Projection{Type: "ALL"})))
			for i := range items {
				put(ctx, t, s, tbl, attr.Item{"pk": attr.Str(itoa(i % 50)), "sk": attr.Num(itoa(i)),
					"g": attr.Str("g" + itoa(i%7)), "gn": attr.Num(itoa(i))})
			}
			var c outcomes
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for w := range goroutines {
				wg.Go(func() {
					rnd := rand.New(rand.NewPCG(uint64(round), uint64(w)))
					for n := 0; ; n++ {
						select {
						case <-stop:
							return
						default:
						}
						c.add(trafficOp(ctx, s, tbl, rnd, n, items))
					}
				})
			}
			time.Sleep(300 * time.Millisecond)
			old, err := s.TableDelete(ctx, "traffic")
			time.Sleep(100 * time.Millisecond) // operations keep meeting the deleted table
			close(stop)
			wg.Wait()
			requireNoError(t, err, fmt.Sprintf("round %d: TableDelete", round))
			requireTrue(t, old.ID == tbl.ID && len(old.Indexes) == 2, "round %d: TableDelete returned %+v", round, old)
			t.Logf("round %d: %d ok, %d table not found, %d other", round, c.ok.Load(), c.notFound.Load(), c.other.Load())
			requireTrue(t, c.other.Load() == 0, "round %d: %d operations failed otherwise: %v", round, c.other.Load(), c.errs)
			requireTrue(t, c.ok.Load() > 0 && c.notFound.Load() > 0, "round %d: the delete did not meet traffic", round)
			_, err = s.TableGet(ctx, "traffic")
			requireErrorIs(t, err, store.ErrTableNotFound, "TableGet after the delete")
			requireGone(ctx, t, s, tbl)
			if b.Leftovers != nil {
				left := b.Leftovers(t, s, tbl)
				requireTrue(t, left == "", "round %d: left behind: %s", round, left)
			}
		}
	})
}

// trafficOp is one random operation of exerciseDeleteUnderTraffic: a put or
// delete, a transaction over two items, or a query of the table or an index.
func trafficOp(ctx context.Context, s store.Store, tbl *store.Table, rnd *rand.Rand, n, items int) error {
	key := func() attr.Item {
		return attr.Item{"pk": attr.Str(itoa(rnd.IntN(50))), "sk": attr.Num(itoa(rnd.IntN(items)))}
	}
	item := func(k attr.Item) attr.Item {
		it := k.Clone()
		it["g"], it["gn"] = attr.Str("g"+itoa(rnd.IntN(7))), attr.Num(itoa(n))
		return it
	}
	switch rnd.IntN(5) {
	case 0, 1:
		k, del := key(), rnd.IntN(4) == 0
		nu := item(k)
		_, err := s.ItemWrite(ctx, tbl, k, func(attr.Item) (attr.Item, error) {
			if del {
				return nil, nil
			}
			return nu, nil
		})
		return err
	case 2:
		k1, k2 := key(), key()
		if show(k1) == show(k2) {
			return nil
		}
		w := []store.TxWrite{{Put: item(k1)}, {Put: item(k2)}}
		if rnd.IntN(3) == 0 {
			w[1] = store.TxWrite{Delete: true}
		}
		return s.ItemTransact(ctx, []store.TxTarget{{Table: tbl, Key: k1}, {Table: tbl, Key: k2}},
			func([]attr.Item) ([]store.TxWrite, error) { return w, nil })
	default:
		in := store.QueryInput{Forward: true, Limit: 20}
		switch rnd.IntN(3) {
		case 0:
			in.Hash = attr.Str(itoa(rnd.IntN(50)))
		case 1:
			in.Index, in.Hash = &tbl.Indexes[0], attr.Str("g"+itoa(rnd.IntN(7)))
		case 2:
			in.Index, in.Hash = &tbl.Indexes[1], attr.Str("g"+itoa(rnd.IntN(7)))
		}
		_, err := s.ItemQuery(ctx, tbl, in)
		return err
	}
}
