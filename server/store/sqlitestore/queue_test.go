package sqlitestore_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/backend"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore"
)

// The queue behaviour of this store beyond the shared contract suite.

func asyncTable(name string) *store.Table {
	tbl := testTable(name)
	tbl.Indexes = []store.Index{{Name: "g", Global: true, Hash: store.KeyAttr{Name: "g", Type: attr.TypeS},
		Projection: store.Projection{Type: "ALL"}, Propagation: store.PropagationAsync}}
	return tbl
}

func depth(t *testing.T, s *sqlitestore.Store) int64 {
	t.Helper()
	n, err := s.QueueDepth(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func indexRows(t *testing.T, s *sqlitestore.Store, tbl *store.Table, g string) int {
	t.Helper()
	got, err := s.ItemQuery(context.Background(), tbl, store.QueryInput{Index: &tbl.Indexes[0], Hash: attr.Str(g), Forward: true})
	if err != nil {
		t.Fatal(err)
	}
	return len(got)
}

// Without workers rows stay queued, one per item however often it is
// written, and QueueWait applies them itself.
func TestQueueWithoutWorkers(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, filepath.Join(t.TempDir(), "q.db"), sqlitestore.Options{})
	tbl := asyncTable("q")
	if err := s.TableCreate(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		for i := range 100 {
			putItem(t, s, tbl, attr.Item{"pk": attr.Str("p"), "sk": attr.Num(itoa(i)), "g": attr.Str([]string{"x", "y", "z"}[round])})
		}
	}
	if n := depth(t, s); n != 100 {
		t.Fatalf("QueueDepth = %d, want 100 (one row per item)", n)
	}
	if n := indexRows(t, s, tbl, "z"); n != 0 {
		t.Fatalf("async index has %d rows before the queue is applied", n)
	}
	if err := s.QueueWait(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if n := depth(t, s); n != 0 {
		t.Fatalf("QueueDepth after QueueWait = %d", n)
	}
	if x, z := indexRows(t, s, tbl, "x"), indexRows(t, s, tbl, "z"); x != 0 || z != 100 {
		t.Fatalf("index partitions x=%d z=%d, want 0 and 100", x, z)
	}
}

// A version 1 database (no queue table) is upgraded at Open.
func TestSchemaUpgradeFromV1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.db")
	s := openWith(t, path, sqlitestore.Options{QueueWorkers: backend.DefaultQueueWorkers})
	tbl := asyncTable("q")
	if err := s.TableCreate(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	s.Close()

	db, err := sqlitestore.OpenRaw(path, "busy_timeout = 5000")
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{`DROP TABLE index_queue`, `DROP TABLE stream_records`, `PRAGMA user_version = 1`} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	db.Close()

	s2 := openWith(t, path, sqlitestore.Options{QueueWorkers: backend.DefaultQueueWorkers})
	putItem(t, s2, tbl, attr.Item{"pk": attr.Str("p"), "sk": attr.Num("1"), "g": attr.Str("x")})
	if err := s2.QueueWait(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if n := indexRows(t, s2, tbl, "x"); n != 1 {
		t.Fatalf("index rows after upgrade = %d, want 1", n)
	}
	s2.Close()

	db, err = sqlitestore.OpenRaw(path, "busy_timeout = 5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil || v != 8 {
		t.Fatalf("user_version = %d, %v; want 8", v, err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
