package sqlitestore_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/maintain"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore"
)

func opsStats(t *testing.T, s *sqlitestore.Store) *store.OpsStats {
	t.Helper()
	st, err := s.OpsStats(context.Background())
	if err != nil {
		t.Fatalf("OpsStats: %v", err)
	}
	return st
}

// OpsStats: the queue's depth and lag, the build of this process, the
// stream records written.
func TestOpsStats(t *testing.T) {
	ctx := context.Background()
	s := openWith(t, filepath.Join(t.TempDir(), "ops.db"), sqlitestore.Options{QueueWorkers: sqlitestore.NoQueueWorkers, BuildPageSize: 16})
	if st := opsStats(t, s); st.Queue.Depth != 0 || st.Queue.OldestAge != 0 || st.StreamRecords != 0 || len(st.Builds) != 0 {
		t.Fatalf("fresh store: %+v", st)
	}

	tbl := asyncTable("q")
	if err := s.TableCreate(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	putItem(t, s, tbl, attr.Item{"pk": attr.Str("p"), "sk": attr.Num("1"), "g": attr.Str("x")})
	st := opsStats(t, s)
	if st.Queue.Depth != 1 || st.Queue.OldestAge <= 0 || st.Queue.OldestAge > time.Since(before).Seconds() {
		t.Errorf("queue after one async write: %+v (written %v ago)", st.Queue, time.Since(before))
	}
	if err := s.QueueWait(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if st := opsStats(t, s); st.Queue.Depth != 0 || st.Queue.OldestAge != 0 {
		t.Errorf("queue after QueueWait: %+v", st.Queue)
	}

	// A stream: every write is one record; the trim does not lower the count.
	spec, _ := json.Marshal(store.StreamSpec{Enabled: true, ViewType: "NEW_IMAGE", Label: "l1"})
	tbl, err := s.TableUpdate(ctx, tbl.Name, func(t *store.Table) error {
		if t.Options == nil {
			t.Options = map[string][]byte{}
		}
		t.Options[store.OptionStream] = spec
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		putItem(t, s, tbl, attr.Item{"pk": attr.Str("s"), "sk": attr.Num(itoa(i))})
	}
	if err := s.StreamTrim(ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if st := opsStats(t, s); st.StreamRecords != 3 {
		t.Errorf("stream records = %d, want 3", st.StreamRecords)
	}

	// A build: its rows and the table's, active once done.
	plain := testTable("b")
	if err := s.TableCreate(ctx, plain); err != nil {
		t.Fatal(err)
	}
	load(t, s, plain, 100)
	cur := addCreating(t, s, plain.Name)
	if err := s.IndexBuildStart(ctx, cur, "g"); err != nil {
		t.Fatal(err)
	}
	if err := maintain.IndexBuildWait(ctx, s, cur, "g"); err != nil {
		t.Fatal(err)
	}
	st = opsStats(t, s)
	want := store.BuildStat{Table: "b", Index: "g", Phase: "active", RowsDone: 100, TableRows: 100}
	if len(st.Builds) != 1 || st.Builds[0] != want {
		t.Errorf("builds = %+v, want [%+v]", st.Builds, want)
	}
}

// A version 3 file (index_queue without enqueued_at, a row pending) gains
// the column at Open; the old row counts in the depth, its age unknown (0).
func TestSchemaUpgradeFromV3(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v3.db")
	s := openWith(t, path, sqlitestore.Options{QueueWorkers: sqlitestore.NoQueueWorkers})
	tbl := asyncTable("q")
	if err := s.TableCreate(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	s.Close()

	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`DROP TABLE index_queue`,
		`CREATE TABLE index_queue (seq INTEGER PRIMARY KEY, table_id INTEGER NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, UNIQUE (table_id, pk, sk))`,
		`INSERT INTO index_queue (table_id, pk, sk) VALUES (1, x'00', x'00')`,
		`PRAGMA user_version = 3`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	db.Close()

	s2 := openWith(t, path, sqlitestore.Options{QueueWorkers: sqlitestore.NoQueueWorkers})
	if err := s2.SchemaCurrent(ctx); err != nil {
		t.Fatal(err)
	}
	if st := opsStats(t, s2); st.Queue.Depth != 1 || st.Queue.OldestAge != 0 {
		t.Errorf("queue after the upgrade: %+v", st.Queue)
	}
	putItem(t, s2, tbl, attr.Item{"pk": attr.Str("p"), "sk": attr.Num("1"), "g": attr.Str("x")})
	if st := opsStats(t, s2); st.Queue.Depth != 2 {
		t.Errorf("queue after a write: %+v", st.Queue)
	}
}
