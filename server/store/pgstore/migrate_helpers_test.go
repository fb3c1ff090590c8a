package pgstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dynamopg/dynamopg/server/store/pgstore"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// upgradeFrom migrates a fresh database, puts it back at migration version
// (schema_version, then the statements of state restoring what that
// version's code package left), and migrates it again: the upgrade under
// test. It returns the pool (closed at the test's end).
func upgradeFrom(t *testing.T, version int, state ...string) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := pgstore.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	state = append([]string{fmt.Sprintf(`UPDATE dynamopg.schema_version SET version = %d`, version)}, state...)
	for _, q := range state {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := pgstore.Migrate(ctx, pool); err != nil {
		t.Fatalf("migrate from %03d: %v", version, err)
	}
	return pool
}
