package pgstore_test

import (
	"context"
	"testing"
)

// TestMigrateFrom011 upgrades a database at migration 011, whose code
// package had item_query_sql without p_eq (multi-attribute keys, issue 19):
// migration 012 drops that signature, so after the upgrade one
// item_query_sql is left and the five-argument calls of older code resolve
// to it (p_eq defaults to 1) instead of being ambiguous.
func TestMigrateFrom011(t *testing.T) {
	ctx := context.Background()
	// Back to the state 011 left: the old signature.
	pool := upgradeFrom(t, 11,
		`CREATE FUNCTION dynamopg.item_query_sql(p_def jsonb, p_index bigint, p_op text, p_forward boolean, p_after boolean)
		 RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT 'the 011 package' $$`,
	)
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_proc
	                               WHERE pronamespace = 'dynamopg'::regnamespace AND proname = 'item_query_sql'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d item_query_sql functions after the upgrade, want 1", n)
	}
	var stmt string
	err := pool.QueryRow(ctx, `SELECT dynamopg.item_query_sql('{"id": 1, "hash": {"name": "pk", "type": 1}}', 0, '', true, false)`).Scan(&stmt)
	if err != nil || stmt == "the 011 package" {
		t.Errorf("a five-argument call after the upgrade: %q, %v", stmt, err)
	}
}
