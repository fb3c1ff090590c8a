package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// sharedT holds cleanups that run when the test binary exits, for
// resources shared by all tests of a package (one server per backend).
type sharedT struct {
	mu       sync.Mutex
	cleanups []func()
	tmp      string
}

var (
	sharedMu      sync.Mutex
	sharedServers = map[string]*Server{}
	sharedOwner   = &sharedT{}
	tableSeq      atomic.Int64
)

// Main runs a package's tests, then stops the shared servers, drops their
// databases and stops the PostgreSQL cluster. Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	sharedMu.Lock()
	for _, s := range sharedServers {
		s.Stop()
	}
	sharedMu.Unlock()
	sharedOwner.runCleanups()
	pgtest.Stop()
	RemoveBinary()
	os.Exit(code)
}

func (s *sharedT) runCleanups() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		s.cleanups[i]()
	}
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}

// Shared returns the package's one server for the backend, starting it on
// first use. Tests using it must use their own table names (TableName).
func Shared(t *testing.T, backend string) *Server {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if s, ok := sharedServers[backend]; ok {
		return s
	}
	var db string
	switch backend {
	case "sqlite":
		dir, err := os.MkdirTemp("", "dynamopg-shared-")
		if err != nil {
			t.Fatal(err)
		}
		sharedOwner.tmp = dir
		db = "sqlite:" + filepath.Join(dir, "shared.db")
	case "postgres":
		db = sharedPostgresURL(t)
	default:
		t.Fatalf("unknown backend %q", backend)
	}
	s := &Server{Backend: backend, DB: db, logs: &bytesBuffer{}}
	s.start(t)
	sharedServers[backend] = s
	return s
}

// sharedPostgresURL creates a database that lives until the test binary exits.
func sharedPostgresURL(t *testing.T) string {
	srv, err := pgtest.Server()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no PostgreSQL for tests: %v", err)
		}
		t.Skipf("no PostgreSQL for tests: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u, drop, err := pgtest.CreateDatabase(ctx, srv)
	if err != nil {
		t.Fatal(err)
	}
	sharedOwner.mu.Lock()
	sharedOwner.cleanups = append(sharedOwner.cleanups, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = drop(ctx)
	})
	sharedOwner.mu.Unlock()
	return u
}

// EachShared runs f once per backend against the shared servers.
func EachShared(t *testing.T, f func(t *testing.T, s *Server)) {
	for _, b := range Backends {
		t.Run(b, func(t *testing.T) { f(t, Shared(t, b)) })
	}
}

// TableName returns a table name unique within the test binary.
func TableName(prefix string) string {
	return fmt.Sprintf("%s_%d_%d", prefix, os.Getpid(), tableSeq.Add(1))
}
