package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
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
	return openStore(t, pgtest.URL(t), serveOptions())
}

// serveOptions are the background work backend.Open starts for `dynamopg
// serve`: queue workers, the sweeper, the build recovery worker.
func serveOptions() pgstore.Options {
	return pgstore.Options{Workers: backend.DefaultWorkers, SweepInterval: backend.DefaultSweepInterval, Recovery: true}
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
