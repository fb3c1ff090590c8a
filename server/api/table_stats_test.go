package api

import (
	"context"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// TestTableStatsReuse checks that a cheap count is taken every time and an
// expensive one is reused for statsReuse times its cost, per table.
func TestTableStatsReuse(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	c := newTableStats()
	c.now = func() time.Time { return now }
	calls := 0
	cost := time.Millisecond
	count := func(context.Context, *store.Table) (int64, int64, error) {
		calls++
		now = now.Add(cost)
		return int64(calls), int64(10 * calls), nil
	}
	ctx := context.Background()
	small, large := &store.Table{ID: 1}, &store.Table{ID: 2}
	for i := 1; i <= 3; i++ {
		if n, _, _ := c.get(ctx, small, count); n != int64(i) {
			t.Fatalf("cheap count %d: got %d, want a fresh count %d", i, n, i)
		}
	}
	cost = 10 * time.Millisecond // reused for 5 s from its start
	n, b, _ := c.get(ctx, large, count)
	if n != 4 || b != 40 {
		t.Fatalf("expensive count = %d, %d; want 4, 40", n, b)
	}
	now = now.Add(4 * time.Second)
	if n, b, _ := c.get(ctx, large, count); n != 4 || b != 40 || calls != 4 {
		t.Fatalf("within its reuse: %d, %d after %d counts; want 4, 40 after 4", n, b, calls)
	}
	if n, _, _ := c.get(ctx, small, count); n != 5 {
		t.Fatalf("another table's reuse applied to a cheap one: got %d, want 5", n)
	}
	now = now.Add(2 * time.Second)
	if n, _, _ := c.get(ctx, large, count); n != 6 {
		t.Fatalf("after its reuse: got %d, want a fresh count 6", n)
	}
}
