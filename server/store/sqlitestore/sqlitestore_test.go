package sqlitestore_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore"
	"github.com/dynamopg/dynamopg/tests/storetest"
)

// open returns a fresh store on dsn, closed when the test ends.
func open(t *testing.T, dsn string) *sqlitestore.Store {
	t.Helper()
	s, err := sqlitestore.Open(context.Background(), dsn, sqlitestore.Options{Logger: slog.New(slog.DiscardHandler)})
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
}

// TestMemory runs the contract suite on a new in-memory database per test.
func TestMemory(t *testing.T) {
	storetest.Exercise(context.Background(), t, func(t *testing.T) store.Store {
		return open(t, sqlitestore.MemoryDSN)
	})
}
