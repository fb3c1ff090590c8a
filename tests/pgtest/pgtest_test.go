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

// A dedicated cluster stops and starts again on the same port, keeping its
// data, after a fast and after an immediate shutdown.
func TestClusterRestart(t *testing.T) {
	ctx := context.Background()
	cl := pgtest.NewCluster(t, "synchronous_commit=on")
	exec := func(sql string) error {
		conn, err := pgx.Connect(ctx, cl.URL())
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := exec("CREATE TABLE kept (a int); INSERT INTO kept VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"fast", "immediate"} {
		if err := cl.Stop(mode); err != nil {
			t.Fatal(err)
		}
		if err := exec("SELECT 1"); err == nil {
			t.Fatalf("connected to a stopped cluster (%s)", mode)
		}
		if err := cl.Start(); err != nil {
			t.Fatal(err)
		}
		if err := exec("INSERT INTO kept SELECT count(*) + 1 FROM kept"); err != nil {
			t.Fatalf("after a %s restart: %v", mode, err)
		}
	}
	if err := cl.Stop("sudden"); err == nil {
		t.Error("Stop accepted an unknown mode")
	}
}
