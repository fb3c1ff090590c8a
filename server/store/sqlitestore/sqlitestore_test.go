package sqlitestore_test

import (
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"

	"github.com/dynamopg/dynamopg/server/backend"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore"
	"github.com/dynamopg/dynamopg/tests/storetest"
)

// open returns a fresh store on dsn, closed when the test ends.
func open(t *testing.T, dsn string) *sqlitestore.Store {
	t.Helper()
	return openLimit(t, dsn, 0)
}

// openLimit is open with an item collection limit.
func openLimit(t *testing.T, dsn string, limit int64) *sqlitestore.Store {
	t.Helper()
	s, err := sqlitestore.Open(context.Background(), dsn, sqlitestore.Options{Logger: slog.New(slog.DiscardHandler), ItemCollectionLimit: limit,
		QueueWorkers: backend.DefaultQueueWorkers})
	if err != nil {
		t.Fatalf("Open %s: %v", dsn, err)
	}
	t.Cleanup(s.Close)
	return s
}

// TestFile runs the contract suite on a new database file per test.
func TestFile(t *testing.T) {
	storetest.Exercise(context.Background(), t, func(t *testing.T) store.Store {
		return open(t, filepath.Join(t.TempDir(), "dynamo.db"))
	})
	var paths sync.Map // *sqlitestore.Store → its file
	storetest.ExerciseCollections(context.Background(), t, storetest.Collections{
		New: func(t *testing.T, limit int64) store.Store {
			path := filepath.Join(t.TempDir(), "dynamo.db")
			s := openLimit(t, path, limit)
			paths.Store(s, path)
			return s
		},
		Counters: func(t *testing.T, s store.Store, id int64, forget bool) int {
			path, _ := paths.Load(s)
			return counters(t, path.(string), id, forget)
		},
	})
}

// counters counts (and with forget deletes) the item collection counters
// of table id in the file at path (migration 007), through a connection of
// its own.
func counters(t *testing.T, path string, id int64, forget bool) int {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM item_collections WHERE table_id = ?`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if forget {
		if _, err := db.Exec(`DELETE FROM item_collections WHERE table_id = ?`, id); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// TestMemory runs the contract suite on a new in-memory database per test.
func TestMemory(t *testing.T) {
	storetest.Exercise(context.Background(), t, func(t *testing.T) store.Store {
		return open(t, sqlitestore.MemoryDSN)
	})
	storetest.ExerciseCollections(context.Background(), t, storetest.Collections{
		New: func(t *testing.T, limit int64) store.Store { return openLimit(t, sqlitestore.MemoryDSN, limit) },
	})
}
