package pgstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// TestWriteCatalogLockBeforeSnapshot checks what the catalog barrier
// relies on (docs/index-build.md) for the statements that open an item
// write (item_write_sql: lock, put, upsert, remove; item_guard_sql's
// insert and updates), which read the catalog row in
// the statement itself: a write that waits for its lock on dynamopg.tables
// (ACCESS SHARE: only ACCESS EXCLUSIVE makes it wait) behind a catalog
// change reads the changed row, not the
// row of a snapshot taken before it held the lock. Here the change is a
// new version, so each write must be refused as stale and write nothing.
func TestWriteCatalogLockBeforeSnapshot(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	tb := newTable(t, s, "catlock", attr.TypeS, attr.TypeNone)
	// The lock and the wait for the write run on connections of their own:
	// the store's pool is small, and its sweeper and recovery pass read
	// dynamopg.tables too, so under load they can hold every pool
	// connection waiting on the test's lock, and a poll through the pool
	// would then wait for ever.
	conn := func() *pgx.Conn {
		c, err := pgx.ConnectConfig(ctx, s.Pool().Config().ConnConfig.Copy())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	locker, poller := conn(), conn()
	item := attr.Item{"pk": attr.Str("a"), "v": attr.Num("1")}
	writes := map[string]func(*store.Table) error{
		"put": func(tb *store.Table) error { _, err := s.ItemPut(ctx, tb, item); return err },
		// The plain upsert (item_write_sql's upsert_sql).
		"upsert": func(tb *store.Table) error {
			_, err := s.ItemPut(store.WithOldUnneeded(ctx), tb, item)
			return err
		},
		"write": func(tb *store.Table) error {
			_, err := s.ItemWrite(ctx, tb, tb.KeyOf(item), func(attr.Item) (attr.Item, error) { return item, nil })
			return err
		},
		"remove": func(tb *store.Table) error { _, err := s.ItemRemove(ctx, tb, tb.KeyOf(item)); return err },
		// The optimistic update guarded by the row version its last write
		// returned (item_guard_sql's update_version_sql).
		"versioned": func(tb *store.Table) error {
			_, err := s.ItemWrite(ctx, tb, tb.KeyOf(item), func(attr.Item) (attr.Item, error) {
				return attr.Item{"pk": item["pk"], "v": attr.Num("2")}, nil
			})
			return err
		},
	}
	for _, name := range []string{"put", "upsert", "write", "versioned", "remove"} {
		if name == "versioned" {
			// An optimistic write on the current description, whose row
			// version the refused one then believes.
			cur, err := s.TableGet(ctx, tb.Name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.ItemWrite(ctx, cur, cur.KeyOf(item), func(attr.Item) (attr.Item, error) { return item, nil }); err != nil {
				t.Fatal(err)
			}
		}
		if name == "remove" {
			// Something to remove, on the current description.
			cur, err := s.TableGet(ctx, tb.Name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.ItemPut(ctx, cur, item); err != nil {
				t.Fatal(err)
			}
		}
		cur, err := s.TableGet(ctx, tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := locker.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `LOCK TABLE dynamopg.tables IN ACCESS EXCLUSIVE MODE`); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- writes[name](cur) }()
		// Wait until the write waits for its lock on dynamopg.tables.
		for deadline := time.Now().Add(10 * time.Second); ; {
			var waiting bool
			if err := poller.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_locks
			     WHERE relation = 'dynamopg.tables'::regclass AND NOT granted)`).Scan(&waiting); err != nil {
				t.Fatal(err)
			}
			if waiting {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the write never waited for the catalog lock", name)
			}
			time.Sleep(5 * time.Millisecond)
		}
		// A new catalog version, committed while the write waits.
		if _, err := tx.Exec(ctx, `UPDATE dynamopg.tables SET def = jsonb_set(def, '{probe}', to_jsonb(clock_timestamp()::text))
		     WHERE id = $1`, cur.ID); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-done; !errors.Is(err, store.ErrStaleTable) {
			t.Fatalf("%s behind a catalog change: %v, want ErrStaleTable", name, err)
		}
	}
	// Nothing the refused writes did is there: the item is the one put
	// before the remove.
	cur, err := s.TableGet(ctx, tb.Name)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.ItemGet(ctx, cur, cur.KeyOf(item))
	if err != nil {
		t.Fatal(err)
	}
	if !attr.EqualItems(got, item) {
		t.Fatalf("item after the refused writes: %v", got)
	}
}
