package storetest

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// The asynchronous index queue (store.Queue).
//
// QueueWait on a table dropped while rows of it were queued returns nil once
// those rows are consumed: stores wait on the table's id, which is never
// reused, and consume the rows of a dropped table. It must not fail with
// ErrTableNotFound: a caller waiting for a table that a concurrent request
// deleted has nothing left to wait for.

// queueWait waits for t's queue with a deadline, failing the test on error.
func queueWait(ctx context.Context, t testing.TB, q store.Queue, tbl *store.Table) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	requireNoError(t, q.QueueWait(ctx, tbl), "QueueWait "+tbl.Name)
}

// asyncIndex is a global index propagated through the queue.
func asyncIndex(name string, hash store.KeyAttr, rng *store.KeyAttr, proj store.Projection) store.Index {
	return store.Index{Name: name, Global: true, Hash: hash, Range: rng, Projection: proj,
		Propagation: store.PropagationAsync}
}

// requireIndexExact compares an index, scanned whole in 4 segments, with
// the projection of the table's current items (scanned whole too): no row
// missing, extra, stale (an old state of its item) or duplicated.
func requireIndexExact(ctx context.Context, t testing.TB, s store.Store, tbl *store.Table, ix *store.Index, what string) {
	t.Helper()
	m := newModel(tbl)
	want := map[string]attr.Item{} // by base key
	for _, it := range scanAll(ctx, t, s, m, store.ScanInput{TotalSegments: 1}, 0) {
		if ix.Indexable(it) {
			want[show(tbl.KeyOf(it))] = ix.Project(tbl, it)
		}
	}
	got := map[string]attr.Item{}
	var missing, extra, stale, dup int
	var first []string
	note := func(kind, k string) {
		if len(first) < 5 {
			first = append(first, kind+" "+k)
		}
	}
	const segments = 4
	for seg := range segments {
		for _, it := range scanAll(ctx, t, s, m, store.ScanInput{Index: ix, Segment: seg, TotalSegments: segments}, 0) {
			k := show(tbl.KeyOf(it))
			if _, seen := got[k]; seen {
				dup++
				note("duplicated", k)
				continue
			}
			got[k] = it
			w, ok := want[k]
			switch {
			case !ok:
				extra++
				note("extra", show(it))
			case !itemsEqual(it, w):
				stale++
				note("stale", show(it)+" want "+show(w))
			}
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			missing++
			note("missing", k)
		}
	}
	if missing+extra+stale+dup > 0 {
		t.Fatalf("%s: index %q of %d rows (want %d): %d missing, %d extra, %d stale, %d duplicated; first: %v",
			what, ix.Name, len(got), len(want), missing, extra, stale, dup, first)
	}
}

func exerciseQueue(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	// Random writes from 4 goroutines, single and transactional, converge.
	t.Run("QueueWait/Convergence", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		q := s
		tbl := createTable(ctx, t, s, newTable("qconv", key("pk", attr.TypeS), rkey("sk", attr.TypeN),
			asyncIndex("g-keys", key("g", attr.TypeS), nil, store.Projection{Type: "KEYS_ONLY"}),
			asyncIndex("g-gr", key("g", attr.TypeS), rkey("gr", attr.TypeN), store.Projection{Type: "ALL"}),
		))
		randomWrites(ctx, t, []store.Store{s}, tbl, 4, 150, 40)
		queueWait(ctx, t, q, tbl)
		for i := range tbl.Indexes {
			requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[i], "after QueueWait")
		}
		depth, err := q.QueueDepth(ctx)
		requireNoError(t, err, "QueueDepth")
		requireEqual(t, depth, int64(0), "QueueDepth after QueueWait of the only table")
	})

	// A sync index is exact right after each write; an async one after
	// QueueWait.
	t.Run("QueueWait/MixedSyncAsync", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		q := s
		tbl := createTable(ctx, t, s, newTable("qmixed", key("pk", attr.TypeS), nil,
			store.Index{Name: "sync", Global: true, Hash: key("g", attr.TypeS), Range: rkey("gr", attr.TypeN),
				Projection: store.Projection{Type: "INCLUDE", NonKeyAttributes: []string{"v"}}},
			asyncIndex("async", key("g", attr.TypeS), rkey("gr", attr.TypeN),
				store.Projection{Type: "INCLUDE", NonKeyAttributes: []string{"v"}}),
		))
		requireTrue(t, !tbl.Indexes[0].Async() && tbl.Indexes[1].Async(), "index propagation modes")
		rnd := rand.New(rand.NewPCG(7, 7))
		for i := range 40 {
			requireNoError(t, randomWrite(ctx, s, false, tbl, rnd, 8, i), "write")
			requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[0], "sync index after write "+itoa(i))
		}
		queueWait(ctx, t, q, tbl)
		requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[1], "async index after QueueWait")
		requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[0], "sync index after QueueWait")
	})

	// Rows of a table dropped before they were applied are consumed.
	t.Run("QueueWait/DroppedTable", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		q := s
		tbl := createTable(ctx, t, s, newTable("qdrop", key("pk", attr.TypeS), nil,
			asyncIndex("g", key("g", attr.TypeS), nil, store.Projection{Type: "ALL"})))
		for i := range 100 {
			put(ctx, t, s, tbl, attr.Item{"pk": attr.Str("p" + itoa(i)), "g": attr.Str("x")})
		}
		_, err := s.TableDelete(ctx, tbl.Name)
		requireNoError(t, err, "TableDelete")
		queueWait(ctx, t, q, tbl) // nil, not ErrTableNotFound: see the top of this file
		deadline := time.Now().Add(10 * time.Second)
		for {
			depth, err := q.QueueDepth(ctx)
			requireNoError(t, err, "QueueDepth")
			if depth == 0 {
				break
			}
			requireTrue(t, time.Now().Before(deadline), "QueueDepth still %d after the table was dropped", depth)
			time.Sleep(20 * time.Millisecond)
		}
		// The name can be reused at once; the new table starts empty.
		again := createTable(ctx, t, s, newTable("qdrop", key("pk", attr.TypeS), nil,
			asyncIndex("g", key("g", attr.TypeS), nil, store.Projection{Type: "ALL"})))
		put(ctx, t, s, again, attr.Item{"pk": attr.Str("p0"), "g": attr.Str("y")})
		queueWait(ctx, t, q, again)
		requireIndexExact(ctx, t, s, again, &again.Indexes[0], "recreated table")
	})

	// Writes show as queue depth until applied; none after QueueWait.
	t.Run("QueueDepth", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		q := s
		depth, err := q.QueueDepth(ctx)
		requireNoError(t, err, "QueueDepth of a new store")
		requireEqual(t, depth, int64(0), "QueueDepth of a new store")
		tbl := createTable(ctx, t, s, newTable("qdepth", key("pk", attr.TypeS), nil,
			asyncIndex("g", key("g", attr.TypeS), nil, store.Projection{Type: "KEYS_ONLY"})))
		plain := createTable(ctx, t, s, newTable("qplain", key("pk", attr.TypeS), nil,
			store.Index{Name: "g", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "KEYS_ONLY"}}))
		for i := range 20 {
			put(ctx, t, s, plain, attr.Item{"pk": attr.Str("p" + itoa(i)), "g": attr.Str("x")})
		}
		depth, err = q.QueueDepth(ctx)
		requireNoError(t, err, "QueueDepth")
		requireEqual(t, depth, int64(0), "QueueDepth after writes to a table without async indexes")
		maxSeen := int64(0)
		for i := range 50 {
			put(ctx, t, s, tbl, attr.Item{"pk": attr.Str("p" + itoa(i)), "g": attr.Str("x")})
			depth, err := q.QueueDepth(ctx)
			requireNoError(t, err, "QueueDepth")
			requireTrue(t, depth >= 0 && depth <= int64(i+1), "QueueDepth %d after %d writes", depth, i+1)
			maxSeen = max(maxSeen, depth)
		}
		t.Logf("largest QueueDepth seen while writing: %d", maxSeen)
		queueWait(ctx, t, q, tbl)
		depth, err = q.QueueDepth(ctx)
		requireNoError(t, err, "QueueDepth")
		requireEqual(t, depth, int64(0), "QueueDepth after QueueWait")
		requireIndexExact(ctx, t, s, tbl, &tbl.Indexes[0], "after QueueWait")
		// QueueWait with nothing pending returns at once; a done ctx is
		// reported when something is pending.
		requireNoError(t, q.QueueWait(ctx, tbl), "QueueWait with nothing pending")
		done, cancel := context.WithCancel(ctx)
		cancel()
		if err := q.QueueWait(done, tbl); err != nil {
			requireErrorIs(t, err, context.Canceled, "QueueWait with a cancelled ctx")
		}
	})
}

// randomWrites runs ops randomWrite calls (transactions included) from
// each of writers goroutines over n items, the goroutines spread over the
// stores in turn, and fails the test on any error.
func randomWrites(ctx context.Context, t testing.TB, stores []store.Store, tbl *store.Table, writers, ops, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		s := stores[w%len(stores)]
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(w), 0x9e3779b97f4a7c15))
			for i := range ops {
				if err := randomWrite(ctx, s, true, tbl, rnd, n, w*ops+i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("random writes: %v", err)
	}
}

// randomWrite makes one random change to one of n items of a table keyed
// pk (S) [+ sk (N)] whose indexes use g (S) [+ gr (N)]: a put, an update of
// the index key, a removal of it, a delete, or (with transact) a
// transaction putting, stripping or deleting two items. Some g values have the wrong
// type, so the item leaves the index.
func randomWrite(ctx context.Context, s store.Store, transact bool, tbl *store.Table, rnd *rand.Rand, n, seq int) error {
	keyOf := func(i int) attr.Item {
		k := attr.Item{"pk": attr.Str("p" + itoa(i%10))}
		if tbl.Range != nil {
			k["sk"] = attr.Num(itoa(i / 10))
		}
		return k
	}
	// fresh draws a whole new item at key k. fn may run more than once, so
	// the randomness is drawn outside it.
	fresh := func(k attr.Item) attr.Item {
		it := k.Clone()
		it["g"] = attr.Str([]string{"a", "b", "c", "d"}[rnd.IntN(4)])
		it["gr"] = attr.Num(itoa(rnd.IntN(5)))
		it["v"] = attr.Num(itoa(seq))
		return it
	}
	if transact && rnd.IntN(5) == 0 {
		a, b := rnd.IntN(n), rnd.IntN(n-1)
		if b >= a {
			b++
		}
		ka, kb := keyOf(a), keyOf(b)
		opa, opb := rnd.IntN(4), rnd.IntN(4)
		targets := []store.TxTarget{{Table: tbl, Key: ka}, {Table: tbl, Key: kb}}
		na, nb := fresh(ka), fresh(kb)
		return s.ItemTransact(ctx, targets, func(olds []attr.Item) ([]store.TxWrite, error) {
			ws := make([]store.TxWrite, 2)
			for i, pick := range []struct {
				op  int
				neu attr.Item
			}{{opa, na}, {opb, nb}} {
				it := pick.neu
				switch pick.op {
				case 2:
					it = olds[i].Clone()
					if it != nil {
						delete(it, "g")
					}
				case 3:
					it = nil
				}
				if it == nil {
					ws[i] = store.TxWrite{Delete: true}
				} else {
					ws[i] = store.TxWrite{Put: it}
				}
			}
			return ws, nil
		})
	}
	k := keyOf(rnd.IntN(n))
	op := rnd.IntN(4)
	neu := fresh(k)
	drop := []string{"g", "gr"}[rnd.IntN(2)]
	_, err := s.ItemWrite(ctx, tbl, k, func(old attr.Item) (attr.Item, error) {
		switch op {
		case 0:
			return neu.Clone(), nil
		case 1:
			it := old.Clone()
			if it == nil {
				it = k.Clone()
			}
			for _, n := range []string{"g", "gr", "v"} {
				it[n] = neu[n]
			}
			if seq%7 == 0 {
				it["g"] = attr.Num("1") // wrong type: not indexed
			}
			return it, nil
		case 2:
			if old == nil {
				return nil, nil
			}
			it := old.Clone()
			delete(it, drop)
			return it, nil
		}
		return nil, nil
	})
	if errors.Is(err, store.ErrConflict) {
		return nil // a lost race the store gave up on: nothing written
	}
	return err
}
