package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// A write whose batch runs out of time while pgx prepares its statements
// (their table locked: the prepare waits for the lock) sent none of them:
// ThrottlingException, not a 500 of unknown outcome. The error is pgx's
// own, from a real PostgreSQL.
func TestFaultOfABatchThatWasNotSent(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	locker, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(ctx)
	if _, err := locker.Exec(ctx, "CREATE TABLE locked (k int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	tx, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE locked IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	writer, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close(ctx)
	wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	b := &pgx.Batch{}
	b.Queue("INSERT INTO locked (k) VALUES ($1)", 1)
	err = writer.SendBatch(wctx, b).Close()
	var pre pgx.ErrPreprocessingBatch
	if !errors.As(err, &pre) {
		t.Fatalf("the batch failed with %v, want pgx's preprocessing error", err)
	}
	e, applied := fault("TransactWriteItems", wctx, ctx, err)
	if e.Name() != "ThrottlingException" || applied {
		t.Fatalf("%v: %s (may have applied: %v), want ThrottlingException", err, e.Name(), applied)
	}
}

func TestMain(m *testing.M) { pgtest.Main(m) }
