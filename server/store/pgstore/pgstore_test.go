package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dynamopg/dynamopg"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/backend"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// newStore opens a migrated store on a fresh database, with the
// background work of `dynamopg serve` (serveOptions).
func newStore(t *testing.T) *pgstore.Store {
	t.Helper()
	opts := serveOptions()
	opts.Migrate = true
	return newStoreWith(t, opts)
}

// serveOptions are the background work backend.Open starts for `dynamopg
// serve`: queue workers, the sweeper, the build recovery worker.
func serveOptions() pgstore.Options {
	return pgstore.Options{Workers: backend.DefaultWorkers, SweepInterval: backend.DefaultSweepInterval, Recovery: true}
}

// newStoreWith is newStore with the given options.
func newStoreWith(t *testing.T, opts pgstore.Options) *pgstore.Store {
	t.Helper()
	ctx := context.Background()
	s, err := pgstore.Open(ctx, pgtest.URL(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// newTable creates a table with the given key types ("" range: none).
func newTable(t testing.TB, s store.Store, name string, hash, rng attr.Type, indexes ...store.Index) *store.Table {
	t.Helper()
	tb := &store.Table{
		Name:        name,
		TableID:     "00000000-0000-0000-0000-000000000000",
		Status:      store.StatusActive,
		CreatedAt:   time.Now().UTC().Truncate(time.Millisecond),
		Hash:        store.KeyAttr{Name: "pk", Type: hash},
		BillingMode: "PAY_PER_REQUEST",
		Indexes:     indexes,
	}
	if rng != attr.TypeNone {
		tb.Range = &store.KeyAttr{Name: "sk", Type: rng}
	}
	if err := s.TableCreate(context.Background(), tb); err != nil {
		t.Fatal(err)
	}
	return tb
}

// put writes an item unconditionally (on a fresh description when tb is
// out of date: onFresh).
func put(t testing.TB, s store.Store, tb *store.Table, it attr.Item) {
	t.Helper()
	_, err := onFresh(s, tb, func(tb *store.Table) error {
		_, err := s.ItemWrite(context.Background(), tb, tb.KeyOf(it), func(attr.Item) (attr.Item, error) { return it, nil })
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// del deletes an item (likewise).
func del(t testing.TB, s store.Store, tb *store.Table, key attr.Item) {
	t.Helper()
	_, err := onFresh(s, tb, func(tb *store.Table) error {
		_, err := s.ItemWrite(context.Background(), tb, key, func(attr.Item) (attr.Item, error) { return nil, nil })
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// onFresh runs write on tb and, while it fails with store.ErrStaleTable
// (the table changed since tb was read; nothing was written), reads the
// table again and reruns it on the fresh description: through the table
// cache, dropping the cached entry first, as the API does.
// It returns the description it last used.
func onFresh(s store.Store, tb *store.Table, write func(*store.Table) error) (*store.Table, error) {
	ctx := context.Background()
	for range 100 {
		err := write(tb)
		if !errors.Is(err, store.ErrStaleTable) {
			return tb, err
		}
		s.TableForget(tb.Name)
		fresh, _, err := s.TableGetCached(ctx, tb.Name)
		if err != nil {
			return tb, err
		}
		tb = fresh
	}
	return tb, fmt.Errorf("still %w after 100 fresh descriptions", store.ErrStaleTable)
}

func TestMigrate(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for i := range 2 {
		if err := pgstore.Migrate(ctx, pool); err != nil {
			t.Fatalf("migrate #%d: %v", i+1, err)
		}
	}
	var version int
	if err := pool.QueryRow(ctx, "SELECT version FROM dynamopg.schema_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	files, err := fs.Glob(dynamopg.Migrations, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	if version != len(files) {
		t.Errorf("version %d, want %d", version, len(files))
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM pg_proc WHERE pronamespace = 'dynamopg'::regnamespace").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Errorf("%d functions installed", n)
	}
	// Concurrent migrations from several "processes" serialize.
	errs := make(chan error, 3)
	for range 3 {
		go func() { errs <- pgstore.Migrate(ctx, pool) }()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestApplicationName(t *testing.T) {
	s := newStore(t)
	var name string
	if err := s.Pool().QueryRow(context.Background(), "SHOW application_name").Scan(&name); err != nil {
		t.Fatal(err)
	}
	if name != pgstore.ApplicationName {
		t.Errorf("application_name %q", name)
	}
}

func TestTables(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	gsi := store.Index{Name: "g", Global: true, Hash: store.KeyAttr{Name: "g", Type: attr.TypeS},
		Projection: store.Projection{Type: "ALL"}, Status: store.StatusActive}
	tb := newTable(t, s, "b-table", attr.TypeS, attr.TypeN, gsi)
	if tb.ID == 0 || tb.Indexes[0].ID == 0 {
		t.Fatalf("ids not assigned: %+v", tb)
	}

	t.Run("TableGet", func(t *testing.T) {
		got, err := s.TableGet(ctx, "b-table")
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != tb.ID || got.Name != tb.Name || got.Range == nil || got.Range.Type != attr.TypeN ||
			len(got.Indexes) != 1 || got.Indexes[0].ID != tb.Indexes[0].ID || !got.CreatedAt.Equal(tb.CreatedAt) {
			t.Errorf("got %+v, want %+v", got, tb)
		}
		if _, err := s.TableGet(ctx, "nope"); err != store.ErrTableNotFound {
			t.Errorf("missing table: %v", err)
		}
	})

	t.Run("TableCreateExists", func(t *testing.T) {
		dup := &store.Table{Name: "b-table", Status: store.StatusActive, Hash: store.KeyAttr{Name: "x", Type: attr.TypeS}}
		if err := s.TableCreate(ctx, dup); err != store.ErrTableExists {
			t.Errorf("duplicate: %v", err)
		}
		if dup.ID != 0 {
			t.Errorf("failed create assigned id %d", dup.ID)
		}
	})

	t.Run("TableList", func(t *testing.T) {
		newTable(t, s, "a-table", attr.TypeS, attr.TypeNone)
		newTable(t, s, "C-table", attr.TypeS, attr.TypeNone)
		all, err := s.TableList(ctx, "", 100)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"C-table", "a-table", "b-table"}; !slices.Equal(all, want) {
			t.Errorf("list %v, want %v", all, want)
		}
		page, err := s.TableList(ctx, "C-table", 1)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(page, []string{"a-table"}) {
			t.Errorf("page %v", page)
		}
	})

	t.Run("TableUpdate", func(t *testing.T) {
		boom := errors.New("boom")
		if _, err := s.TableUpdate(ctx, "b-table", func(t *store.Table) error {
			t.BillingMode = "PROVISIONED"
			return boom
		}); err != boom {
			t.Errorf("fn error: %v", err)
		}
		if got, _ := s.TableGet(ctx, "b-table"); got.BillingMode != "PAY_PER_REQUEST" {
			t.Errorf("fn error left %q", got.BillingMode)
		}
		if _, err := s.TableUpdate(ctx, "nope", func(*store.Table) error { return nil }); err != store.ErrTableNotFound {
			t.Errorf("missing table: %v", err)
		}
		// Replace the GSI by another: the new one gets storage, the old one loses it.
		up, err := s.TableUpdate(ctx, "b-table", func(t *store.Table) error {
			t.BillingMode = "PROVISIONED"
			t.Indexes = []store.Index{{Name: "h", Global: true, Hash: store.KeyAttr{Name: "h", Type: attr.TypeN},
				Projection: store.Projection{Type: "KEYS_ONLY"}, Status: store.StatusCreating}}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if up.Indexes[0].ID == 0 || up.Indexes[0].ID == tb.Indexes[0].ID {
			t.Errorf("new index id %d", up.Indexes[0].ID)
		}
		got, _ := s.TableGet(ctx, "b-table")
		if got.BillingMode != "PROVISIONED" || got.Indexes[0].Name != "h" {
			t.Errorf("after update %+v", got)
		}
		// The old index's storage goes in the background, after the
		// catalog barrier.
		deadline := time.Now().Add(10 * time.Second)
		for relExists(t, s, "i_", tb.Indexes[0].ID) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if !relExists(t, s, "i_", up.Indexes[0].ID) || relExists(t, s, "i_", tb.Indexes[0].ID) {
			t.Errorf("index storage not swapped")
		}
		*tb = *got
	})

	t.Run("TableStats", func(t *testing.T) {
		put(t, s, tb, attr.Item{"pk": attr.Str("a"), "sk": attr.Num("1"), "v": attr.Str("xyz")})
		put(t, s, tb, attr.Item{"pk": attr.Str("a"), "sk": attr.Num("2")})
		items, bytes, err := s.TableStats(ctx, tb)
		if err != nil {
			t.Fatal(err)
		}
		want := attr.Item{"pk": attr.Str("a"), "sk": attr.Num("1"), "v": attr.Str("xyz")}.Size() +
			attr.Item{"pk": attr.Str("a"), "sk": attr.Num("2")}.Size()
		if items != 2 || bytes != int64(want) {
			t.Errorf("stats %d items %d bytes, want 2, %d", items, bytes, want)
		}
	})

	t.Run("TableDelete", func(t *testing.T) {
		old, err := s.TableDelete(ctx, "b-table")
		if err != nil {
			t.Fatal(err)
		}
		if old.ID != tb.ID {
			t.Errorf("deleted %+v", old)
		}
		if relExists(t, s, "t_", tb.ID) || relExists(t, s, "i_", tb.Indexes[0].ID) {
			t.Errorf("storage left behind")
		}
		if _, err := s.TableDelete(ctx, "b-table"); err != store.ErrTableNotFound {
			t.Errorf("second delete: %v", err)
		}
		if _, err := s.TableGet(ctx, "b-table"); err != store.ErrTableNotFound {
			t.Errorf("get after delete: %v", err)
		}
		key := attr.Item{"pk": attr.Str("a"), "sk": attr.Num("1")}
		if _, err := s.ItemGet(ctx, tb, key); err != store.ErrTableNotFound {
			t.Errorf("item get after delete: %v", err)
		}
		if _, err := s.ItemWrite(ctx, tb, key, func(attr.Item) (attr.Item, error) { return key, nil }); err != store.ErrTableNotFound {
			t.Errorf("item write after delete: %v", err)
		}
		if _, err := s.ItemQuery(ctx, tb, store.QueryInput{Hash: attr.Str("a"), Forward: true}); err != store.ErrTableNotFound {
			t.Errorf("query after delete: %v", err)
		}
		if _, err := s.ItemScan(ctx, tb, store.ScanInput{TotalSegments: 1}); err != store.ErrTableNotFound {
			t.Errorf("scan after delete: %v", err)
		}
		if _, _, err := s.TableStats(ctx, tb); err != store.ErrTableNotFound {
			t.Errorf("stats after delete: %v", err)
		}
	})
}

// relExists reports whether dynamopg_data.<prefix><id> exists.
func relExists(t *testing.T, s *pgstore.Store, prefix string, id int64) bool {
	t.Helper()
	var ok bool
	err := s.Pool().QueryRow(context.Background(),
		"SELECT to_regclass(format('dynamopg_data.%I', $1::text || $2::bigint)) IS NOT NULL", prefix, id).Scan(&ok)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}
