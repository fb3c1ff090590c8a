package pgstore_test

import (
	"context"
	"testing"
)

// TestMigrateFrom015 upgrades a database at migration 015 holding
// unfinished builds, whose current_key is in the wire form the 015 code
// package wrote: migration 016 rewrites each in the column form the
// backfill now reads ([pk] or [pk, sk]; S text, N a JSON number, B bytea's
// text), so the resumed builds continue after the same key, and drops the
// page functions of the item-array form.
func TestMigrateFrom015(t *testing.T) {
	ctx := context.Background()
	pool := upgradeFrom(t, 15,
		`CREATE FUNCTION dynamopg.index_rows_insert_many(p_def jsonb, p_ix jsonb, p_items jsonb[])
		 RETURNS void LANGUAGE sql AS $$ SELECT $$`,
		`INSERT INTO dynamopg.tables (id, name, status, def) VALUES
		   (901, 'sn', 'ACTIVE', '{"id": 901, "hash": {"name": "pk", "type": 1}, "range": {"name": "n", "type": 2}}'),
		   (902, 'b', 'ACTIVE', '{"id": 902, "hash": {"name": "id", "type": 3}}')`,
		`INSERT INTO dynamopg.index_builds (index_id, table_id, index_name, phase, current_key) VALUES
		   (9011, 901, 'x', 'backfill', '{"pk": {"S": "a\"b"}, "n": {"N": "-12.50"}}'),
		   (9012, 901, 'y', 'allocating', NULL),
		   (9021, 902, 'z', 'backfill', '{"id": {"B": "AQL/"}}')`,
	)
	want := map[int64]string{9011: `["a\"b", -12.50]`, 9012: ``, 9021: `["\\x0102ff"]`}
	rows, err := pool.Query(ctx, `SELECT index_id, coalesce(current_key::text, '') FROM dynamopg.index_builds WHERE index_id > 9000`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]string{}
	for rows.Next() {
		var id int64
		var key string
		if err := rows.Scan(&id, &key); err != nil {
			t.Fatal(err)
		}
		got[id] = key
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("build %d: current_key %q after the upgrade, want %q", id, got[id], w)
		}
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_proc WHERE pronamespace = 'dynamopg'::regnamespace
	                               AND proname IN ('index_rows_insert_many', 'index_rows_write_many')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d page functions of the item-array form after the upgrade, want 0", n)
	}
	// A resumed page reads its lower bound from the converted key.
	var probe bool
	if err := pool.QueryRow(ctx, `SELECT ('a"c', -12.4) > (($1::jsonb->>0)::text, ($1::jsonb->>1)::numeric)`,
		got[9011]).Scan(&probe); err != nil || !probe {
		t.Errorf("a key after the converted one: %v, %v", probe, err)
	}
}
