package pgstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/backend"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// The item collection counters' place in the lock order (collections.go):
// writers lock their items (lockOrder), then their collections' counters
// (table id, hash), then their tables' stream locks. Transactions that
// name the same collections and items in opposite orders, on two tables
// with local indexes (one with a stream), with single-item writes among
// them, never deadlock: PostgreSQL's deadlock counter for the database
// stays where it was (a deadlock would be detected, one transaction
// aborted and retried, so only the counter shows it).
func TestCollectionLockOrder(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	s, err := pgstore.Open(ctx, url, pgstore.Options{Migrate: true, MaxConns: 16, Workers: backend.DefaultWorkers})
	if err != nil {
		t.Fatal(err)
	}
	lsi := func(name string) store.Index {
		return store.Index{Name: name, Hash: store.KeyAttr{Name: "pk", Type: attr.TypeS},
			Range: &store.KeyAttr{Name: "l", Type: attr.TypeS}, Projection: store.Projection{Type: "ALL"}}
	}
	a := newTable(t, s, "lock_a", attr.TypeS, attr.TypeS, lsi("by-l"))
	spec, _ := json.Marshal(store.StreamSpec{Enabled: true, ViewType: "NEW_AND_OLD_IMAGES", Label: "l1"})
	b, err := s.TableUpdate(ctx, newTable(t, s, "lock_b", attr.TypeS, attr.TypeS, lsi("by-l")).Name, func(t *store.Table) error {
		t.Options = map[string][]byte{store.OptionStream: spec}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	item := func(p, sk string, n int) attr.Item {
		return attr.Item{"pk": attr.Str(p), "sk": attr.Str(sk), "l": attr.Str("x"), "n": attr.Num(fmt.Sprint(n))}
	}
	// Every collection sized before the race, so that the counting starts
	// with the lock order alone.
	for _, tb := range []*store.Table{a, b} {
		for _, p := range []string{"p", "q"} {
			put(t, s, tb, item(p, "seed", 0))
		}
	}
	before := deadlocks(t, url, false)

	const workers, rounds = 12, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds)
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				// The same four items (two collections of each table),
				// named in an order that depends on the worker.
				targets := []store.TxTarget{
					{Table: a, Key: attr.Item{"pk": attr.Str("p"), "sk": attr.Str(fmt.Sprint(r % 3))}},
					{Table: b, Key: attr.Item{"pk": attr.Str("q"), "sk": attr.Str(fmt.Sprint(r % 3))}},
					{Table: a, Key: attr.Item{"pk": attr.Str("q"), "sk": attr.Str(fmt.Sprint(r % 2))}},
					{Table: b, Key: attr.Item{"pk": attr.Str("p"), "sk": attr.Str(fmt.Sprint(r % 2))}},
				}
				if w%2 == 1 {
					for i, j := 0, len(targets)-1; i < j; i, j = i+1, j-1 {
						targets[i], targets[j] = targets[j], targets[i]
					}
				}
				err := s.ItemTransact(ctx, targets, func(olds []attr.Item) ([]store.TxWrite, error) {
					writes := make([]store.TxWrite, len(targets))
					for i, tg := range targets {
						writes[i] = store.TxWrite{Put: item(tg.Key["pk"].S, tg.Key["sk"].S, w*rounds+r)}
					}
					return writes, nil
				})
				if err != nil {
					errs <- fmt.Errorf("worker %d round %d: transaction: %w", w, r, err)
				}
				if _, err := s.ItemPut(ctx, b, item("p", fmt.Sprint(r%2), -w)); err != nil {
					errs <- fmt.Errorf("worker %d round %d: put: %w", w, r, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// The counters still add up.
	for _, tb := range []*store.Table{a, b} {
		for _, p := range []string{"p", "q"} {
			items, err := s.ItemQuery(ctx, tb, store.QueryInput{Hash: attr.Str(p), Forward: true})
			if err != nil {
				t.Fatal(err)
			}
			var want int64
			for _, it := range items {
				want += store.CollectionEntrySize(tb, it)
			}
			if got, err := s.ItemCollectionSize(ctx, tb, attr.Str(p)); err != nil || got != want {
				t.Errorf("%s/%s: size %d, %v; the items add up to %d", tb.Name, p, got, err, want)
			}
		}
	}
	s.Close() // its backends exit, which reports their statistics
	if after := deadlocks(t, url, true); after != before {
		t.Errorf("%d deadlocks during the race", after-before)
	}
}

// deadlocks reads the database's deadlock counter; with settled, once the
// statistics of dynamopg's backends of the database have been reported:
// it waits until they are gone (a backend reports its counts when it
// exits), for at most 10 s.
func deadlocks(t *testing.T, url string, settled bool) int64 {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var others int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid()
			  AND application_name LIKE 'dynamopg%'`).Scan(&others)
		if err != nil {
			t.Fatal(err)
		}
		if !settled || others == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	var n int64
	if _, err := conn.Exec(ctx, `SELECT pg_stat_clear_snapshot()`); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
