package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// The HTTP floor answers the workloads' own raw requests on the PostgreSQL
// floor's tables: a put (plain and conditional) writes the request's item,
// an update sets n, a get returns the item, each in DynamoDB's response
// shape that the load generator checks.
func TestHTTPFloorAnswersTheWorkloads(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	u := pgtest.URL(t)
	f, err := newPGFloor(ctx, u, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	pool, err := pgxpool.New(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	srv := httptest.NewServer(&httpFloor{pool: pool})
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	do := func(op rawOp) []byte {
		t.Helper()
		c := newRawConn(addr, op.op)
		defer c.close()
		status, body, err := c.do(op.body(nil, 0))
		if err != nil || status != 200 {
			t.Fatalf("%s: status %d, %v: %s", op.op, status, err, body)
		}
		if op.check != nil {
			if err := op.check(body); err != nil {
				t.Fatalf("%s: %v: %s", op.op, err, body)
			}
		}
		return append([]byte(nil), body...)
	}
	count := func(where string) int {
		t.Helper()
		var n int
		if err := f.pool.QueryRow(ctx, "SELECT count(*) FROM t WHERE "+where).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	before := count("pk LIKE 'n%'")
	do(rawPut("bench", false))
	do(rawPut("bench", true))
	if got := count("pk LIKE 'n%'") - before; got != 2 {
		t.Fatalf("puts wrote %d rows, want 2", got)
	}
	if got := count("pk LIKE 'n%' AND item->'data'->>'S' = '" + payload + "'"); got < 2 {
		t.Fatalf("%d rows hold the request's item, want 2", got)
	}
	do(rawUpdate("bench"))
	if got := count("pk LIKE 'k%' AND item->'n'->>'N' <> '1'"); got != 1 {
		t.Fatalf("update changed %d rows' n, want 1", got)
	}
	if body := do(rawGet("bench")); !strings.Contains(string(body), `"pk": {"S": "k`) {
		t.Fatalf("get: %s", body)
	}
	c := newRawConn(addr, "Query")
	defer c.close()
	if status, _, err := c.do([]byte(`{}`)); err != nil || status != 400 {
		t.Fatalf("an operation the floor does not answer: status %d, %v", status, err)
	}
}

func TestMain(m *testing.M) { pgtest.Main(m) }
