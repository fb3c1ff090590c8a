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

	"github.com/dynamopg/dynamopg/dynamopgtest"
	"github.com/dynamopg/dynamopg/tests/pgtest"
	"github.com/dynamopg/dynamopg/tests/sdkhttp"
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
//
// The shared servers run inside the test process (package dynamopgtest)
// with serve's defaults, on a SQLite file or a PostgreSQL database as a
// process would: nothing is built or started, and -race sees the server's
// goroutines too. Tests that kill or restart a server, or need serve's
// flags, start a process (Start, StartDB).
func Shared(t *testing.T, backend string) *Server {
	t.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if s, ok := sharedServers[backend]; ok {
		return s
	}
	var db string
	var opt dynamopgtest.Option
	switch backend {
	case "sqlite":
		dir, err := os.MkdirTemp("", "dynamopg-shared-")
		if err != nil {
			t.Fatal(err)
		}
		sharedOwner.tmp = dir
		path := filepath.Join(dir, "shared.db")
		db, opt = "sqlite:"+path, dynamopgtest.WithSQLiteFile(path)
	case "postgres":
		db = sharedPostgresURL(t)
		opt = dynamopgtest.WithPostgres(db)
	default:
		t.Fatalf("unknown backend %q", backend)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	emb, err := dynamopgtest.Start(ctx, opt)
	if err != nil {
		t.Fatalf("shared %s server: %v", backend, err)
	}
	s := &Server{Backend: backend, DB: db, URL: emb.URL, embedded: emb, transport: sdkhttp.Transport()}
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
