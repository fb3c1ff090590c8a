package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var dbSeq atomic.Int64

// CreateDatabase creates a fresh database on the server at serverURL and
// returns its URL and a function that drops it.
func CreateDatabase(ctx context.Context, serverURL string) (dbURL string, drop func(context.Context) error, err error) {
	name := fmt.Sprintf("dynamopg_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6, dbSeq.Add(1))
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return "", nil, fmt.Errorf("pgtest: create database: %w", err)
	}
	defer conn.Close(ctx)
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+ident+" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"); err != nil {
		return "", nil, fmt.Errorf("pgtest: create database: %w", err)
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", nil, fmt.Errorf("pgtest: server URL: %w", err)
	}
	u.Path = "/" + name
	drop = func(ctx context.Context) error {
		conn, err := pgx.Connect(ctx, serverURL)
		if err != nil {
			return fmt.Errorf("pgtest: drop database: %w", err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("pgtest: drop database: %w", err)
		}
		return nil
	}
	return u.String(), drop, nil
}

// URL returns the URL of a fresh database, dropped when the test ends.
// Without a server the test is skipped, or fails when CI=true.
func URL(t testing.TB) string {
	t.Helper()
	srv, err := Server()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no PostgreSQL for tests: %v", err)
		}
		t.Skipf("no PostgreSQL for tests: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u, drop, err := CreateDatabase(ctx, srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := drop(ctx); err != nil {
			t.Errorf("%v", err)
		}
	})
	return u
}

// Main runs the tests of a package and stops the cluster afterwards; call it
// from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}
