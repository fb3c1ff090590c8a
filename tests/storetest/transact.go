package storetest

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// txTables creates the two tables of the transaction tests, each with a
// global index on g (S, ALL):
//
//	txa  pk (S) + sk (N)
//	txb  id (S)
func txTables(ctx context.Context, t *testing.T, s store.Store) (a, b *model) {
	gsi := func() store.Index {
		return store.Index{Name: "gsi", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"}}
	}
	a = newModel(createTable(ctx, t, s, newTable("txa", key("pk", attr.TypeS), rkey("sk", attr.TypeN), gsi())))
	b = newModel(createTable(ctx, t, s, newTable("txb", key("id", attr.TypeS), nil, gsi())))
	return a, b
}

// requireModel checks every item of the model's table (by ItemGet and a
// full Scan) and every partition of its gsi that the tests use.
func requireModel(ctx context.Context, t *testing.T, s store.Store, m *model, what string) {
	t.Helper()
	for _, it := range m.items {
		got, err := s.ItemGet(ctx, m.tbl, m.tbl.KeyOf(it))
		requireNoError(t, err, what+": ItemGet")
		requireItem(t, got, it, what+": ItemGet "+m.tbl.Name)
	}
	n, _, err := s.TableStats(ctx, m.tbl)
	requireNoError(t, err, what+": TableStats")
	requireEqual(t, n, int64(len(m.items)), what+": items of "+m.tbl.Name)
	ix := m.tbl.Index("gsi")
	for _, g := range []string{"x", "y", "z"} {
		in := store.QueryInput{Index: ix, Hash: attr.Str(g), Forward: true}
		got, err := s.ItemQuery(ctx, m.tbl, in)
		requireNoError(t, err, what+": ItemQuery gsi")
		requireItems(t, got, m.query(in), what+": "+m.tbl.Name+" gsi partition "+g)
	}
}

// amount reads an item's integer attribute n.
func amount(t testing.TB, it attr.Item) int {
	t.Helper()
	requireTrue(t, it != nil, "item absent")
	v, ok := it["n"]
	requireTrue(t, ok && v.T == attr.TypeN, "item %s has no number n", show(it))
	return intOf(v)
}

// intOf reads an integer number value (0 when absent), without a test to
// fail: it runs inside TxFuncs.
func intOf(v attr.Value) int {
	n, neg := 0, false
	for i, c := range v.S {
		if i == 0 && c == '-' {
			neg = true
			continue
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		return -n
	}
	return n
}

// withN returns a copy of it with n set and its version v incremented.
func withN(it attr.Item, n int) attr.Item {
	out := it.Clone()
	out["n"] = attr.Num(itoa(n))
	out["v"] = attr.Num(itoa(intOf(out["v"]) + 1))
	return out
}

// transfer moves amt from the first target's n to the second's and bumps
// both versions, in one ItemTransact.
func transfer(ctx context.Context, tx store.Transactions, from, to store.TxTarget, amt int) error {
	return tx.ItemTransact(ctx, []store.TxTarget{from, to}, func(olds []attr.Item) ([]store.TxWrite, error) {
		if len(olds) != 2 || olds[0] == nil || olds[1] == nil {
			return nil, errorf("transfer: olds %v", olds)
		}
		return []store.TxWrite{
			{Put: withN(olds[0], intOf(olds[0]["n"])-amt)},
			{Put: withN(olds[1], intOf(olds[1]["n"])+amt)},
		}, nil
	})
}

func exerciseTransact(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	// fn's error after computing writes for 3 existing items (and one absent)
	// across two tables: nothing changes, indexes included.
	t.Run("ItemTransact/AllOrNothing", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tx := s
		a, b := txTables(ctx, t, s)
		a1 := attr.Item{"pk": attr.Str("p"), "sk": num(t, "1"), "g": attr.Str("x"), "v": attr.Str("a1")}
		a2 := attr.Item{"pk": attr.Str("p"), "sk": num(t, "2"), "g": attr.Str("y"), "v": attr.Str("a2")}
		b1 := attr.Item{"id": attr.Str("b1"), "g": attr.Str("x"), "v": attr.Str("b1")}
		a.put(ctx, t, s, a1)
		a.put(ctx, t, s, a2)
		b.put(ctx, t, s, b1)
		absent := attr.Item{"id": attr.Str("b2")}

		errNo := errorf("transaction canceled")
		calls := 0
		var seen []attr.Item
		err := tx.ItemTransact(ctx, []store.TxTarget{
			{Table: a.tbl, Key: a.tbl.KeyOf(a1)},
			{Table: b.tbl, Key: b.tbl.KeyOf(b1)},
			{Table: b.tbl, Key: absent},
			{Table: a.tbl, Key: a.tbl.KeyOf(a2)},
		}, func(olds []attr.Item) ([]store.TxWrite, error) {
			calls++
			seen = olds
			return []store.TxWrite{
				{Put: attr.Item{"pk": attr.Str("p"), "sk": num(t, "1"), "g": attr.Str("z"), "v": attr.Str("changed")}},
				{Delete: true},
				{Put: attr.Item{"id": attr.Str("b2"), "g": attr.Str("x")}},
				{Put: attr.Item{"pk": attr.Str("p"), "sk": num(t, "2")}},
			}, errNo
		})
		requireTrue(t, err == errNo, "ItemTransact: fn error returned as %v, want it unchanged", err)
		requireTrue(t, calls >= 1, "ItemTransact: fn not called")
		requireEqual(t, len(seen), 4, "olds given to fn")
		requireItem(t, seen[0], a1, "fn's olds[0]")
		requireItem(t, seen[1], b1, "fn's olds[1]")
		requireTrue(t, seen[2] == nil, "fn's olds[2] = %s, want nil", show(seen[2]))
		requireItem(t, seen[3], a2, "fn's olds[3]")
		requireModel(ctx, t, s, a, "after the failed transaction")
		requireModel(ctx, t, s, b, "after the failed transaction")
		got, err := s.ItemGet(ctx, b.tbl, absent)
		requireNoError(t, err, "ItemGet")
		requireTrue(t, got == nil, "failed transaction created %s", show(got))
	})

	// A write that fails after others (a put whose item does not carry its
	// target's key, on the target named last) undoes them all.
	t.Run("ItemTransact/FailedWrite", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a, b := txTables(ctx, t, s)
		a1 := attr.Item{"pk": attr.Str("p"), "sk": num(t, "1"), "g": attr.Str("x"), "v": attr.Str("a1")}
		b1 := attr.Item{"id": attr.Str("b1"), "g": attr.Str("x"), "v": attr.Str("b1")}
		a.put(ctx, t, s, a1)
		b.put(ctx, t, s, b1)
		err := s.ItemTransact(ctx, []store.TxTarget{
			{Table: b.tbl, Key: b.tbl.KeyOf(b1)},
			{Table: a.tbl, Key: a.tbl.KeyOf(a1)},
			{Table: b.tbl, Key: attr.Item{"id": attr.Str("b2")}},
			{Table: a.tbl, Key: attr.Item{"pk": attr.Str("p"), "sk": num(t, "2")}},
		}, func([]attr.Item) ([]store.TxWrite, error) {
			return []store.TxWrite{
				{Put: attr.Item{"id": attr.Str("b1"), "g": attr.Str("y"), "v": attr.Str("changed")}},
				{Delete: true},
				{Put: attr.Item{"id": attr.Str("b2"), "g": attr.Str("x")}},
				{Put: attr.Item{"pk": attr.Str("p"), "sk": num(t, "3"), "g": attr.Str("x")}},
			}, nil
		})
		requireTrue(t, err != nil, "ItemTransact: a put of another key than its target's succeeded")
		requireModel(ctx, t, s, a, "after the failed write")
		requireModel(ctx, t, s, b, "after the failed write")
		for _, k := range []attr.Item{{"pk": attr.Str("p"), "sk": num(t, "2")}, {"pk": attr.Str("p"), "sk": num(t, "3")}} {
			got, err := s.ItemGet(ctx, a.tbl, k)
			requireNoError(t, err, "ItemGet")
			requireTrue(t, got == nil, "the failed transaction wrote %s", show(got))
		}
	})

	// Puts, deletes and condition-only targets across two tables.
	t.Run("ItemTransact/Writes", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tx := s
		a, b := txTables(ctx, t, s)
		a1 := attr.Item{"pk": attr.Str("p"), "sk": num(t, "1"), "g": attr.Str("x"), "v": attr.Str("a1")}
		a2 := attr.Item{"pk": attr.Str("p"), "sk": num(t, "2"), "g": attr.Str("x"), "v": attr.Str("a2")}
		a3 := attr.Item{"pk": attr.Str("q"), "sk": num(t, "3"), "g": attr.Str("y"), "v": attr.Str("a3")}
		b1 := attr.Item{"id": attr.Str("b1"), "g": attr.Str("y"), "v": attr.Str("b1")}
		b2 := attr.Item{"id": attr.Str("b2"), "g": attr.Str("x"), "v": attr.Str("b2")}
		for _, it := range []attr.Item{a1, a2, a3} {
			a.put(ctx, t, s, it)
		}
		b.put(ctx, t, s, b1)
		b.put(ctx, t, s, b2)

		a1new := attr.Item{"pk": attr.Str("p"), "sk": num(t, "1"), "g": attr.Str("z"), "v": attr.Str("a1'")}
		a4 := attr.Item{"pk": attr.Str("q"), "sk": num(t, "4"), "g": attr.Str("y"), "v": attr.Str("a4")}
		b2new := attr.Item{"id": attr.Str("b2"), "v": attr.Str("b2 leaves the index")}
		b3 := attr.Item{"id": attr.Str("b3"), "g": attr.Str("z")}
		targets := []store.TxTarget{
			{Table: a.tbl, Key: a.tbl.KeyOf(a1)},                                   // put (moves in the gsi)
			{Table: b.tbl, Key: b.tbl.KeyOf(b1)},                                   // condition only
			{Table: a.tbl, Key: a.tbl.KeyOf(a2)},                                   // delete
			{Table: b.tbl, Key: b.tbl.KeyOf(b2)},                                   // put (leaves the gsi)
			{Table: a.tbl, Key: a.tbl.KeyOf(a4)},                                   // put (created)
			{Table: b.tbl, Key: attr.Item{"id": attr.Str("absent")}},               // delete of an absent item
			{Table: a.tbl, Key: a.tbl.KeyOf(a3)},                                   // condition only
			{Table: b.tbl, Key: b.tbl.KeyOf(b3)},                                   // put (created)
			{Table: a.tbl, Key: attr.Item{"pk": attr.Str("q"), "sk": num(t, "9")}}, // condition on an absent item
		}
		var seen []attr.Item
		err := tx.ItemTransact(ctx, targets, func(olds []attr.Item) ([]store.TxWrite, error) {
			seen = olds
			return []store.TxWrite{
				{Put: a1new.Clone()},
				{},
				{Delete: true},
				{Put: b2new.Clone()},
				{Put: a4.Clone()},
				{Delete: true},
				{},
				{Put: b3.Clone()},
				{},
			}, nil
		})
		requireNoError(t, err, "ItemTransact")
		requireItems(t, seen, []attr.Item{a1, b1, a2, b2, nil, nil, a3, nil, nil}, "olds given to fn")

		a.items[show(a.tbl.KeyOf(a1))] = a1new
		delete(a.items, show(a.tbl.KeyOf(a2)))
		a.items[show(a.tbl.KeyOf(a4))] = a4
		b.items[show(b.tbl.KeyOf(b2))] = b2new
		b.items[show(b.tbl.KeyOf(b3))] = b3
		requireModel(ctx, t, s, a, "after the transaction")
		requireModel(ctx, t, s, b, "after the transaction")
		got, err := s.ItemGet(ctx, a.tbl, a.tbl.KeyOf(a2))
		requireNoError(t, err, "ItemGet")
		requireTrue(t, got == nil, "deleted item still there: %s", show(got))

		// ItemGetMany: target order, nil where absent, both tables.
		many, err := tx.ItemGetMany(ctx, []store.TxTarget{
			{Table: b.tbl, Key: b.tbl.KeyOf(b3)},
			{Table: a.tbl, Key: a.tbl.KeyOf(a2)},
			{Table: a.tbl, Key: a.tbl.KeyOf(a1)},
			{Table: b.tbl, Key: b.tbl.KeyOf(b1)},
		})
		requireNoError(t, err, "ItemGetMany")
		requireItems(t, many, []attr.Item{b3, nil, a1new, b1}, "ItemGetMany")
		many, err = tx.ItemGetMany(ctx, nil)
		requireNoError(t, err, "ItemGetMany of nothing")
		requireEqual(t, len(many), 0, "ItemGetMany of nothing")
	})

	// 8 writers move amounts between 10 items while 4 readers check that
	// every ItemGetMany sees the constant total.
	t.Run("ItemGetMany/Snapshot", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tx := s
		a, _ := txTables(ctx, t, s)
		const items, start = 10, 100
		targets := make([]store.TxTarget, items)
		for i := range items {
			it := attr.Item{"pk": attr.Str("acct"), "sk": num(t, itoa(i)), "n": num(t, itoa(start))}
			a.put(ctx, t, s, it)
			targets[i] = store.TxTarget{Table: a.tbl, Key: a.tbl.KeyOf(it)}
		}
		const total = items * start
		const writers, each, readers = 8, 25, 4
		var done atomic.Bool
		var reads atomic.Int64
		errs := make(chan error, writers+readers)
		var wg, rg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(w), 1))
				for range each {
					i := r.IntN(items)
					j := (i + 1 + r.IntN(items-1)) % items
					if err := transfer(ctx, tx, targets[i], targets[j], 1+r.IntN(50)); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		for range readers {
			rg.Go(func() {
				for first := true; first || !done.Load(); first = false {
					got, err := tx.ItemGetMany(ctx, targets)
					if err != nil {
						errs <- err
						return
					}
					if len(got) != items {
						errs <- errorf("ItemGetMany: %d items, want %d", len(got), items)
						return
					}
					sum := 0
					for k, it := range got {
						if it == nil {
							errs <- errorf("ItemGetMany: item %d absent", k)
							return
						}
						sum += intOf(it["n"])
					}
					if sum != total {
						errs <- errorf("ItemGetMany: sum %d, want %d (not one snapshot)", sum, total)
						return
					}
					reads.Add(1)
				}
			})
		}
		wg.Wait()
		done.Store(true)
		rg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("snapshot: %v", err)
		}
		requireTrue(t, reads.Load() >= readers, "only %d reads", reads.Load())
		got, err := tx.ItemGetMany(ctx, targets)
		requireNoError(t, err, "ItemGetMany")
		sum, versions := 0, 0
		for _, it := range got {
			sum += amount(t, it)
			versions += intOf(it["v"])
		}
		requireEqual(t, sum, total, "sum after the transfers")
		requireEqual(t, versions, 2*writers*each, "item versions after the transfers")
	})

	// 16 goroutines × 20 transfers on overlapping items of two tables, pairs
	// locked in opposite target orders: no deadlock, no lost update.
	t.Run("ItemTransact/Overlap", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tx := s
		a, b := txTables(ctx, t, s)
		const start = 1000
		var targets [4]store.TxTarget
		for i := range 2 {
			ia := attr.Item{"pk": attr.Str("acct"), "sk": num(t, itoa(i)), "n": num(t, itoa(start))}
			ib := attr.Item{"id": attr.Str("acct" + itoa(i)), "n": num(t, itoa(start))}
			a.put(ctx, t, s, ia)
			b.put(ctx, t, s, ib)
			targets[i] = store.TxTarget{Table: a.tbl, Key: a.tbl.KeyOf(ia)}
			targets[2+i] = store.TxTarget{Table: b.tbl, Key: b.tbl.KeyOf(ib)}
		}
		pairs := [][2]int{{0, 2}, {1, 3}, {0, 1}, {2, 3}, {0, 3}, {1, 2}}
		const workers, each = 16, 20
		want := [4]int{start, start, start, start}
		var versions [4]int
		type job struct{ from, to, amt int }
		jobs := make([]job, workers)
		for w := range workers {
			p := pairs[w%len(pairs)]
			from, to := p[0], p[1]
			if w%2 == 1 { // the same pair in the opposite order
				from, to = to, from
			}
			jobs[w] = job{from, to, 1 + w}
			want[from] -= each * (1 + w)
			want[to] += each * (1 + w)
			versions[from] += each
			versions[to] += each
		}
		tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for _, j := range jobs {
			wg.Go(func() {
				for range each {
					if err := transfer(tctx, tx, targets[j.from], targets[j.to], j.amt); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("transfer: %v", err)
		}
		got, err := tx.ItemGetMany(ctx, targets[:])
		requireNoError(t, err, "ItemGetMany")
		for i, it := range got {
			requireEqual(t, amount(t, it), want[i], "n of item "+itoa(i))
			requireEqual(t, intOf(it["v"]), versions[i], "version of item "+itoa(i))
		}
	})

	// Client tokens: replay, mismatch, expiry by the caller's clock, a
	// cancelled transaction records nothing, racing calls write once.
	t.Run("ItemTransactToken", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tx := s
		_, b := txTables(ctx, t, s)
		acct := attr.Item{"id": attr.Str("acct"), "n": num(t, "100")}
		b.put(ctx, t, s, acct)
		target := []store.TxTarget{{Table: b.tbl, Key: b.tbl.KeyOf(acct)}}
		calls := 0
		add := func(amt int) store.TxFunc {
			return func(olds []attr.Item) ([]store.TxWrite, error) {
				calls++
				return []store.TxWrite{{Put: withN(olds[0], intOf(olds[0]["n"])+amt)}}, nil
			}
		}
		balance := func(want int, what string) {
			t.Helper()
			got, err := s.ItemGet(ctx, b.tbl, b.tbl.KeyOf(acct))
			requireNoError(t, err, what+": ItemGet")
			requireEqual(t, amount(t, got), want, what+": n")
		}
		h1, h2 := []byte("request one"), []byte("request two")
		t0 := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
		const ttl = 10 * time.Minute
		tok := func(name string, h []byte, at time.Duration) store.TxToken {
			return store.TxToken{Token: name, Hash: h, Now: t0.Add(at), TTL: ttl}
		}

		rep, err := tx.ItemTransactToken(ctx, target, tok("t1", h1, 0), add(10))
		requireNoError(t, err, "first call")
		requireTrue(t, !rep, "first call replayed")
		balance(110, "after the first call")

		calls = 0
		rep, err = tx.ItemTransactToken(ctx, target, tok("t1", h1, 5*time.Minute), add(10))
		requireNoError(t, err, "same token and request")
		requireTrue(t, rep, "same token and request: not replayed")
		requireEqual(t, calls, 0, "fn calls of a replay")
		balance(110, "after the replay")

		_, err = tx.ItemTransactToken(ctx, target, tok("t1", h2, 9*time.Minute), add(10))
		requireErrorIs(t, err, store.ErrTokenMismatch, "same token, another request")
		balance(110, "after the mismatch")

		// Past the window the token is forgotten: a new request.
		rep, err = tx.ItemTransactToken(ctx, target, tok("t1", h2, ttl+time.Second), add(1))
		requireNoError(t, err, "after the window")
		requireTrue(t, !rep, "after the window: replayed")
		balance(111, "after the window")
		_, err = tx.ItemTransactToken(ctx, target, tok("t1", h1, ttl+2*time.Second), add(1))
		requireErrorIs(t, err, store.ErrTokenMismatch, "the token as recorded again")

		// A cancelled transaction does not record its token.
		errNo := errorf("cancelled")
		_, err = tx.ItemTransactToken(ctx, target, tok("t2", h1, 0), func([]attr.Item) ([]store.TxWrite, error) { return nil, errNo })
		requireTrue(t, err == errNo, "cancelled: err %v, want fn's unchanged", err)
		rep, err = tx.ItemTransactToken(ctx, target, tok("t2", h2, time.Second), add(100))
		requireNoError(t, err, "token of a cancelled transaction, another request")
		requireTrue(t, !rep, "token of a cancelled transaction: replayed")
		balance(211, "after the token of the cancelled transaction")

		// 8 calls with one token racing: exactly one writes.
		var wg sync.WaitGroup
		var wrote, replays atomic.Int64
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				rep, err := tx.ItemTransactToken(ctx, target, tok("t3", h1, time.Minute), func(olds []attr.Item) ([]store.TxWrite, error) {
					return []store.TxWrite{{Put: withN(olds[0], intOf(olds[0]["n"])+1000)}}, nil
				})
				switch {
				case err != nil:
					errs <- err
				case rep:
					replays.Add(1)
				default:
					wrote.Add(1)
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("racing token: %v", err)
		}
		requireEqual(t, wrote.Load(), int64(1), "racing calls that wrote")
		requireEqual(t, replays.Load(), int64(7), "racing calls that replayed")
		balance(1211, "after the racing calls")
	})

	// A dropped table: ErrTableNotFound, fn not called, other tables untouched.
	t.Run("ItemTransact/TableGone", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tx := s
		a, b := txTables(ctx, t, s)
		a1 := attr.Item{"pk": attr.Str("p"), "sk": num(t, "1"), "g": attr.Str("x")}
		b1 := attr.Item{"id": attr.Str("b1"), "g": attr.Str("x")}
		a.put(ctx, t, s, a1)
		b.put(ctx, t, s, b1)
		_, err := s.TableDelete(ctx, b.tbl.Name)
		requireNoError(t, err, "TableDelete")

		called := false
		err = tx.ItemTransact(ctx, []store.TxTarget{
			{Table: a.tbl, Key: a.tbl.KeyOf(a1)},
			{Table: b.tbl, Key: b.tbl.KeyOf(b1)},
		}, func(olds []attr.Item) ([]store.TxWrite, error) {
			called = true
			return []store.TxWrite{{Delete: true}, {Delete: true}}, nil
		})
		requireErrorIs(t, err, store.ErrTableNotFound, "ItemTransact on a dropped table")
		requireTrue(t, !called, "ItemTransact called fn with a dropped table")
		requireModel(ctx, t, s, a, "after ItemTransact on a dropped table")

		_, err = tx.ItemGetMany(ctx, []store.TxTarget{
			{Table: a.tbl, Key: a.tbl.KeyOf(a1)},
			{Table: b.tbl, Key: b.tbl.KeyOf(b1)},
		})
		requireErrorIs(t, err, store.ErrTableNotFound, "ItemGetMany on a dropped table")

		// A table of the same name again is another table.
		b2 := createTable(ctx, t, s, newTable("txb", key("id", attr.TypeS), nil))
		put(ctx, t, s, b2, b1)
		_, err = tx.ItemGetMany(ctx, []store.TxTarget{{Table: b.tbl, Key: b.tbl.KeyOf(b1)}})
		requireErrorIs(t, err, store.ErrTableNotFound, "ItemGetMany on the dropped table after a re-create")
		got, err := tx.ItemGetMany(ctx, []store.TxTarget{{Table: b2, Key: b2.KeyOf(b1)}})
		requireNoError(t, err, "ItemGetMany on the new table")
		requireItems(t, got, []attr.Item{b1}, "ItemGetMany on the new table")
	})
}
