package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore"
)

// queueStatus is the store's queue over all tables.
func queueStatus(t *testing.T, s *sqlitestore.Store) store.QueueStatus {
	t.Helper()
	st, err := s.Status(context.Background(), store.StatusInput{})
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	var q store.QueueStatus
	for _, x := range st.Queue {
		q.Depth += x.Depth
		q.OldestS = max(q.OldestS, x.OldestS)
	}
	return q
}

// A version 3 file (index_queue without enqueued_at, a row pending) gains
// the column at Open; the old row counts in the depth, its age unknown (0).
func TestSchemaUpgradeFromV3(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v3.db")
	s := openWith(t, path, sqlitestore.Options{})
	tbl := asyncTable("q")
	if err := s.TableCreate(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	s.Close()

	db, err := sqlitestore.OpenRaw(path, "busy_timeout = 5000")
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

	s2 := openWith(t, path, sqlitestore.Options{})
	if err := s2.SchemaCurrent(ctx); err != nil {
		t.Fatal(err)
	}
	if q := queueStatus(t, s2); q.Depth != 1 || q.OldestS != 0 {
		t.Errorf("queue after the upgrade: %+v", q)
	}
	putItem(t, s2, tbl, attr.Item{"pk": attr.Str("p"), "sk": attr.Num("1"), "g": attr.Str("x")})
	if q := queueStatus(t, s2); q.Depth != 2 {
		t.Errorf("queue after a write: %+v", q)
	}
}
