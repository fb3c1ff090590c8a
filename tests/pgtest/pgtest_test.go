package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/tests/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestURL(t *testing.T) {
	ctx := context.Background()
	a, b := pgtest.URL(t), pgtest.URL(t)
	if a == b {
		t.Fatalf("two calls gave the same database %s", a)
	}
	for _, u := range []string{a, b} {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		var enc string
		if err := conn.QueryRow(ctx, "SHOW server_encoding").Scan(&enc); err != nil {
			t.Fatal(err)
		}
		if enc != "UTF8" {
			t.Errorf("encoding %s", enc)
		}
		if _, err := conn.Exec(ctx, "CREATE TABLE x (a int)"); err != nil {
			t.Fatal(err)
		}
		conn.Close(ctx)
	}
}
