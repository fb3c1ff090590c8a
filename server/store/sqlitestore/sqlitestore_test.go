package sqlitestore_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dynamopg/dynamopg/server/backend"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore"
	"github.com/dynamopg/dynamopg/tests/storetest"
)

// open returns a fresh store on dsn with the queue workers of `dynamopg
// serve`, closed when the test ends.
func open(t *testing.T, dsn string) *sqlitestore.Store {
	t.Helper()
	return openWith(t, dsn, sqlitestore.Options{QueueWorkers: backend.DefaultQueueWorkers})
}

// openWith is open with the given options (a discarding logger unless
// they name one).
func openWith(t *testing.T, dsn string, opts sqlitestore.Options) *sqlitestore.Store {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s, err := sqlitestore.Open(context.Background(), dsn, opts)
	if err != nil {
		t.Fatalf("Open %s: %v", dsn, err)
	}
	t.Cleanup(s.Close)
	return s
}

// files maps the stores the file tests open to their file.
type files struct{ m sync.Map }

func (f *files) open(t *testing.T, path string, opts sqlitestore.Options) store.Store {
	s := openWith(t, path, opts)
	f.m.Store(s, path)
	return s
}

func (f *files) path(s store.Store) string {
	p, _ := f.m.Load(s)
	return p.(string)
}

// TestFile runs the contract suite on a new database file per test.
func TestFile(t *testing.T) {
	var f files
	storetest.Exercise(context.Background(), t, storetest.Backend{
		New: func(t *testing.T) store.Store {
			return f.open(t, filepath.Join(t.TempDir(), "dynamo.db"), sqlitestore.Options{QueueWorkers: backend.DefaultQueueWorkers})
		},
		Open: func(t *testing.T, s store.Store, background bool) store.Store {
			opts := sqlitestore.Options{}
			if background {
				opts.QueueWorkers = backend.DefaultQueueWorkers
			}
			return f.open(t, f.path(s), opts)
		},
		Leftovers: func(t testing.TB, s store.Store, tbl *store.Table) string {
			return leftovers(t, f.path(s), tbl)
		},
		ChecksVersions: true,
	})
	storetest.ExerciseCollections(context.Background(), t, storetest.Collections{
		New: func(t *testing.T, limit int64) store.Store {
			return f.open(t, filepath.Join(t.TempDir(), "dynamo.db"), sqlitestore.Options{ItemCollectionLimit: limit,
				QueueWorkers: backend.DefaultQueueWorkers})
		},
		Counters: func(t *testing.T, s store.Store, id int64, forget bool) int {
			return counters(t, f.path(s), id, forget)
		},
	})
}

// TestMemory runs the contract suite on a new in-memory database per test.
func TestMemory(t *testing.T) {
	storetest.Exercise(context.Background(), t, storetest.Backend{
		New:            func(t *testing.T) store.Store { return open(t, sqlitestore.MemoryDSN) },
		ChecksVersions: true,
	})
	storetest.ExerciseCollections(context.Background(), t, storetest.Collections{
		New: func(t *testing.T, limit int64) store.Store {
			return openWith(t, sqlitestore.MemoryDSN, sqlitestore.Options{ItemCollectionLimit: limit,
				QueueWorkers: backend.DefaultQueueWorkers})
		},
	})
}

// inFile runs fn on a connection of its own to the file at path.
func inFile(t testing.TB, path string, fn func(db *sql.DB) error) {
	t.Helper()
	db, err := sqlitestore.OpenRaw(path, "busy_timeout = 5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := fn(db); err != nil {
		t.Fatal(err)
	}
}

// counters counts (and with forget deletes) the item collection counters
// of table id in the file at path (migration 007).
func counters(t *testing.T, path string, id int64, forget bool) int {
	t.Helper()
	var n int
	inFile(t, path, func(db *sql.DB) error {
		if err := db.QueryRow(`SELECT count(*) FROM item_collections WHERE table_id = ?`, id).Scan(&n); err != nil {
			return err
		}
		if forget {
			_, err := db.Exec(`DELETE FROM item_collections WHERE table_id = ?`, id)
			return err
		}
		return nil
	})
	return n
}

// leftovers describes what remains of a deleted table in the file at path:
// its storage (t_<id>, i_<id> of its indexes), queued rows and catalog row
// ("" when nothing).
func leftovers(t testing.TB, path string, tbl *store.Table) string {
	t.Helper()
	var left []string
	inFile(t, path, func(db *sql.DB) error {
		names := []any{fmt.Sprintf("t_%d", tbl.ID)}
		for _, ix := range tbl.Indexes {
			names = append(names, fmt.Sprintf("i_%d", ix.ID))
		}
		rows, err := db.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN (`+
			strings.Repeat("?, ", len(names)-1)+`?) ORDER BY name`, names...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				return err
			}
			left = append(left, n)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		var queued, catalog int
		if err := db.QueryRow(`SELECT (SELECT count(*) FROM index_queue WHERE table_id = ?1),
			(SELECT count(*) FROM tables WHERE id = ?1)`, tbl.ID).Scan(&queued, &catalog); err != nil {
			return err
		}
		if queued > 0 {
			left = append(left, fmt.Sprintf("%d queued rows", queued))
		}
		if catalog > 0 {
			left = append(left, "catalog row")
		}
		return nil
	})
	return strings.Join(left, ", ")
}
