package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
)

// countHandler counts the store's retry log records.
type countHandler struct{ n *atomic.Int64 }

func (h countHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h countHandler) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "retrying") || strings.Contains(r.Message, "giving up") {
		h.n.Add(1)
	}
	return nil
}
func (h countHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countHandler) WithGroup(string) slog.Handler      { return h }

// TestItemTransactAtomic: a transaction over two tables is all or nothing,
// keeps indexes in step, and returns fn's error value unchanged.
func TestItemTransactAtomic(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	gsi := store.Index{Name: "gsi", Global: true, Hash: store.KeyAttr{Name: "g", Type: attr.TypeS},
		Projection: store.Projection{Type: "ALL"}}
	a := newTable(t, s, "a", attr.TypeS, attr.TypeNone, gsi)
	b := newTable(t, s, "b", attr.TypeS, attr.TypeS)
	k := func(pk string) attr.Item { return attr.Item{"pk": attr.Str(pk)} }
	kb := func(pk, sk string) attr.Item { return attr.Item{"pk": attr.Str(pk), "sk": attr.Str(sk)} }
	put(t, s, a, attr.Item{"pk": attr.Str("a1"), "g": attr.Str("x"), "v": attr.Num("1")})
	put(t, s, b, attr.Item{"pk": attr.Str("b1"), "sk": attr.Str("s"), "v": attr.Num("2")})

	get := func(tb *store.Table, key attr.Item) attr.Item {
		t.Helper()
		it, err := s.ItemGet(ctx, tb, key)
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	gsiCount := func() int {
		t.Helper()
		rows, err := s.ItemQuery(ctx, a, store.QueryInput{Index: &a.Indexes[0], Hash: attr.Str("x"), Forward: true})
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	// Targets: delete a1, create a2, replace b1/s, create b2/s, check a3 (absent).
	targets := []store.TxTarget{
		{Table: b, Key: kb("b1", "s")},
		{Table: a, Key: k("a1")},
		{Table: a, Key: k("a3")},
		{Table: b, Key: kb("b2", "s")},
		{Table: a, Key: k("a2")},
	}
	boom := errors.New("boom")
	calls := 0
	err := s.ItemTransact(ctx, targets, func(olds []attr.Item) ([]store.TxWrite, error) {
		calls++
		if olds[0]["v"].S != "2" || olds[1]["v"].S != "1" || olds[2] != nil || olds[3] != nil || olds[4] != nil {
			t.Errorf("olds %v", olds)
		}
		return nil, boom
	})
	if err != boom || calls != 1 {
		t.Fatalf("fn error: got %v (calls %d), want the same value", err, calls)
	}

	// A failure after some writes (a put that changes its key, on the
	// table locked last) rolls back the earlier ones.
	err = s.ItemTransact(ctx, targets, func(olds []attr.Item) ([]store.TxWrite, error) {
		return []store.TxWrite{
			{Put: attr.Item{"pk": attr.Str("zzz"), "sk": attr.Str("s")}},
			{Delete: true},
			{},
			{},
			{Put: attr.Item{"pk": attr.Str("a2"), "g": attr.Str("x")}},
		}, nil
	})
	if err == nil {
		t.Fatal("a put changing its key succeeded")
	}
	if get(a, k("a1")) == nil || get(a, k("a2")) != nil || gsiCount() != 1 {
		t.Fatal("failed transaction left changes behind")
	}

	err = s.ItemTransact(ctx, targets, func(olds []attr.Item) ([]store.TxWrite, error) {
		return []store.TxWrite{
			{Put: attr.Item{"pk": attr.Str("b1"), "sk": attr.Str("s"), "v": attr.Num("3")}},
			{Delete: true},
			{},
			{Put: attr.Item{"pk": attr.Str("b2"), "sk": attr.Str("s")}},
			{Put: attr.Item{"pk": attr.Str("a2"), "g": attr.Str("x")}},
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if get(a, k("a1")) != nil || get(a, k("a2")) == nil || get(a, k("a3")) != nil ||
		get(b, kb("b1", "s"))["v"].S != "3" || get(b, kb("b2", "s")) == nil {
		t.Fatal("transaction not applied")
	}
	if n := gsiCount(); n != 1 {
		t.Fatalf("gsi rows %d, want 1 (a2 only)", n)
	}
	got, err := s.ItemGetMany(ctx, targets)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[0]["v"].S != "3" || got[1] != nil || got[2] != nil || got[3] == nil || got[4] == nil {
		t.Fatalf("ItemGetMany %v", got)
	}

	// A dropped table: ErrTableNotFound, nothing written elsewhere.
	if _, err := s.TableDelete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	err = s.ItemTransact(ctx, targets, func(olds []attr.Item) ([]store.TxWrite, error) {
		t.Error("fn called with a dropped table")
		return make([]store.TxWrite, len(olds)), nil
	})
	if !errors.Is(err, store.ErrTableNotFound) {
		t.Fatalf("dropped table: %v", err)
	}
	if _, err := s.ItemGetMany(ctx, targets); !errors.Is(err, store.ErrTableNotFound) {
		t.Fatalf("ItemGetMany dropped table: %v", err)
	}
}

// TestItemTransactTransfers: 16 writers move amounts between 10 items of two
// tables, naming their targets in random orders; no deadlock surfaces, and
// readers using ItemGetMany always see the constant sum.
func TestItemTransactTransfers(t *testing.T) {
	ctx := context.Background()
	// The store logs each retry at debug level: count them. Every item
	// exists and is locked in the canonical order, so none is expected.
	var retries atomic.Int64
	pool, err := pgxpool.New(ctx, newStore(t).Pool().Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	s := pgstore.New(pool, slog.New(countHandler{&retries}))
	t.Cleanup(s.Close)
	tabs := []*store.Table{
		newTable(t, s, "acct1", attr.TypeS, attr.TypeNone),
		newTable(t, s, "acct2", attr.TypeS, attr.TypeN),
	}
	const items, start = 10, 100
	var all []store.TxTarget
	for i := range items {
		tb := tabs[i%2]
		key := attr.Item{"pk": attr.Str(fmt.Sprintf("k%d", i))}
		if tb.Range != nil {
			key["sk"] = attr.Num(strconv.Itoa(i))
		}
		it := key.Clone()
		it["bal"] = attr.Num(strconv.Itoa(start))
		put(t, s, tb, it)
		all = append(all, store.TxTarget{Table: tb, Key: key})
	}
	balance := func(it attr.Item) int {
		n, err := strconv.Atoi(it["bal"].S)
		if err != nil {
			panic(err)
		}
		return n
	}

	const writers, each = 16, 20
	var wg, readers sync.WaitGroup
	var done atomic.Bool
	var reads atomic.Int64
	errs := make(chan error, writers*each+8)
	for r := range 2 {
		readers.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(r), 7))
			for !done.Load() {
				ts := append([]store.TxTarget(nil), all...)
				rng.Shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
				got, err := s.ItemGetMany(ctx, ts)
				if err != nil {
					errs <- fmt.Errorf("reader: %w", err)
					return
				}
				sum := 0
				for _, it := range got {
					sum += balance(it)
				}
				if sum != items*start {
					errs <- fmt.Errorf("reader saw sum %d", sum)
					return
				}
				reads.Add(1)
			}
		})
	}
	for w := range writers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			for range each {
				perm := rng.Perm(items)
				// from, to, and sometimes a third item only checked.
				n := 2 + rng.IntN(2)
				ts := make([]store.TxTarget, n)
				for i := range n {
					ts[i] = all[perm[i]]
				}
				amount := 1 + rng.IntN(10)
				err := s.ItemTransact(ctx, ts, func(olds []attr.Item) ([]store.TxWrite, error) {
					ws := make([]store.TxWrite, len(olds))
					for i := range 2 {
						nu := olds[i].Clone()
						d := amount
						if i == 0 {
							d = -amount
						}
						nu["bal"] = attr.Num(strconv.Itoa(balance(olds[i]) + d))
						ws[i].Put = nu
					}
					return ws, nil
				})
				if err != nil {
					errs <- fmt.Errorf("writer %d: %w", w, err)
				}
			}
		})
	}
	wg.Wait()
	done.Store(true)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, err := s.ItemGetMany(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, it := range got {
		sum += balance(it)
	}
	if sum != items*start {
		t.Errorf("final sum %d", sum)
	}
	if n := retries.Load(); n != 0 {
		t.Errorf("%d retries (deadlocks?) with canonical lock order", n)
	}
	if reads.Load() == 0 {
		t.Error("no reads completed")
	}
	t.Logf("%d consistent snapshot reads", reads.Load())
}
