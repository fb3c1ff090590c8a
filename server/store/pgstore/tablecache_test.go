package pgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/backend"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// cachedAfter polls TableGetCached until the description comes from memory
// (the catalog listener is connected and the first read stored it) and
// satisfies ok.
func cachedAfter(t *testing.T, s *pgstore.Store, name string, ok func(*store.Table) bool) *store.Table {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		tb, cached, err := s.TableGetCached(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		if cached && ok(tb) {
			return tb
		}
		if time.Now().After(deadline) {
			t.Fatalf("no cached description of %s that fits (last: cached=%v version=%d)", name, cached, tb.Version)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestTableCacheTwoProcesses: two stores on one database. A description
// cached by one is refused by every item write once the other changed the
// table (ErrStaleTable, nothing written), and the change's notice drops it
// from the first store's cache.
func TestTableCacheTwoProcesses(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	a, err := pgstore.Open(ctx, url, pgstore.Options{Migrate: true, Workers: backend.DefaultWorkers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	b, err := pgstore.Open(ctx, url, pgstore.Options{Migrate: true, Workers: backend.DefaultWorkers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)

	newTable(t, a, "cached", attr.TypeS, attr.TypeNone)
	old := cachedAfter(t, a, "cached", func(*store.Table) bool { return true })
	if old.Version == 0 {
		t.Fatal("a cached description has no catalog version")
	}
	item := attr.Item{"pk": attr.Str("k"), "v": attr.Num("1")}
	if _, err := a.ItemPut(ctx, old, item); err != nil {
		t.Fatalf("put on the current description: %v", err)
	}

	if _, err := b.TableUpdate(ctx, "cached", func(tb *store.Table) error {
		tb.BillingMode = "PROVISIONED"
		tb.Throughput = store.Throughput{Read: 5, Write: 5}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	// Every write path refuses the old description and writes nothing.
	nu := attr.Item{"pk": attr.Str("k"), "v": attr.Num("2")}
	key := attr.Item{"pk": attr.Str("k")}
	writes := map[string]func() error{
		"ItemPut":    func() error { _, err := a.ItemPut(ctx, old, nu); return err },
		"ItemRemove": func() error { _, err := a.ItemRemove(ctx, old, key); return err },
		"ItemWrite": func() error {
			_, err := a.ItemWrite(ctx, old, key, func(attr.Item) (attr.Item, error) { return nu, nil })
			return err
		},
		"ItemTransact": func() error {
			return a.ItemTransact(ctx, []store.TxTarget{{Table: old, Key: key}}, func([]attr.Item) ([]store.TxWrite, error) {
				return []store.TxWrite{{Put: nu}}, nil
			})
		},
	}
	for name, write := range writes {
		if err := write(); !errors.Is(err, store.ErrStaleTable) {
			t.Errorf("%s on an out-of-date description: err = %v, want ErrStaleTable", name, err)
		}
	}
	got, err := a.ItemGet(ctx, old, key)
	if err != nil {
		t.Fatal(err)
	}
	if !equalItems(got, item) {
		t.Fatalf("item after the refused writes = %v, want %v", got, item)
	}

	// b's change reaches a's cache by notification alone.
	fresh := cachedAfter(t, a, "cached", func(tb *store.Table) bool { return tb.Version > old.Version })
	if fresh.BillingMode != "PROVISIONED" {
		t.Fatalf("refreshed description has billing mode %q", fresh.BillingMode)
	}
	if _, err := a.ItemPut(ctx, fresh, nu); err != nil {
		t.Fatalf("put on the refreshed description: %v", err)
	}

	// A table deleted and created again under the same name is a new
	// description; the old one names storage that is gone.
	if _, err := b.TableDelete(ctx, "cached"); err != nil {
		t.Fatal(err)
	}
	newTable(t, b, "cached", attr.TypeN, attr.TypeNone)
	if _, err := a.ItemPut(ctx, fresh, nu); !errors.Is(err, store.ErrTableNotFound) && !errors.Is(err, store.ErrStaleTable) {
		t.Fatalf("put on the deleted table's description: err = %v, want ErrTableNotFound or ErrStaleTable", err)
	}
	re := cachedAfter(t, a, "cached", func(tb *store.Table) bool { return tb.ID != fresh.ID })
	if re.Hash.Type != attr.TypeN {
		t.Fatalf("recreated table's hash key type = %v, want N", re.Hash.Type)
	}
}
