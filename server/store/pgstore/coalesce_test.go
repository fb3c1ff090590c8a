package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// The GetItem coalescer (coalesce.go) on a real PostgreSQL, with
// statements of its own: reads that wait behind one in flight go as one
// pipeline and each gets its own answer; a read that fails in a pipeline
// costs the others nothing but a second round trip; a read that gives up
// while it waits leaves, and the lane does not stick.

// echoStmt answers a read with its key; slowStmt does after 300 ms, to
// hold the lane while the others queue; badStmt fails for a key without a
// number in "n".
const (
	echoStmt = `SELECT $1::jsonb`
	slowStmt = `SELECT $1::jsonb FROM pg_sleep(0.3)`
	badStmt  = `SELECT jsonb_build_object('n', ($1::jsonb->>'n')::int)`
)

func coalescerPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// waitQueued waits until n calls wait in c.
func waitQueued(t *testing.T, c *getCoalescer, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		c.mu.Lock()
		got := len(c.waiting)
		c.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d calls waiting, want %d", got, n)
		}
	}
}

type answer struct {
	raw []byte
	err error
}

// queue starts a get of stmt and key on c and returns where its answer
// comes.
func queue(ctx context.Context, c *getCoalescer, pool *pgxpool.Pool, stmt, key string) chan answer {
	ch := make(chan answer, 1)
	go func() {
		raw, err := c.get(ctx, pool, stmt, []byte(key))
		ch <- answer{raw, err}
	}()
	return ch
}

func TestGetCoalescer(t *testing.T) {
	pool := coalescerPool(t)
	ctx := context.Background()

	t.Run("the reads waiting go as one pipeline, each answered", func(t *testing.T) {
		c := &getCoalescer{lanes: 1}
		first := queue(ctx, c, pool, slowStmt, `{"n": 0}`)
		waitQueued(t, c, 0)
		time.Sleep(50 * time.Millisecond) // the slow read is in flight
		var rest []chan answer
		for i := 1; i <= 10; i++ {
			rest = append(rest, queue(ctx, c, pool, echoStmt, fmt.Sprintf(`{"n": %d}`, i)))
			waitQueued(t, c, i)
		}
		before := pool.Stat().AcquireCount()
		if a := <-first; a.err != nil || string(a.raw) != `{"n": 0}` {
			t.Fatalf("the first read: %s, %v", a.raw, a.err)
		}
		for i, ch := range rest {
			a := <-ch
			if want := fmt.Sprintf(`{"n": %d}`, i+1); a.err != nil || string(a.raw) != want {
				t.Fatalf("read %d: %s, %v; want %s", i+1, a.raw, a.err, want)
			}
		}
		// The ten waiting went in one pipeline: one connection taken.
		if n := pool.Stat().AcquireCount() - before; n != 1 {
			t.Fatalf("the ten reads waiting took %d connections, want 1 (one pipeline)", n)
		}
		if c.leading != 0 || len(c.waiting) != 0 {
			t.Fatalf("after the reads: %d leading, %d waiting", c.leading, len(c.waiting))
		}
	})

	t.Run("a failed read in a pipeline costs the others nothing", func(t *testing.T) {
		c := &getCoalescer{lanes: 1}
		first := queue(ctx, c, pool, slowStmt, `{"n": 0}`)
		time.Sleep(50 * time.Millisecond)
		var chs []chan answer
		keys := []string{`{"n": 1}`, `{"n": "x"}`, `{"n": 3}`, `{"n": 4}`}
		for i, key := range keys {
			chs = append(chs, queue(ctx, c, pool, badStmt, key))
			waitQueued(t, c, i+1)
		}
		<-first
		for i, ch := range chs {
			a := <-ch
			var pe *pgconn.PgError
			if i == 1 {
				if !errors.As(a.err, &pe) || pe.Code != "22P02" {
					t.Fatalf("the bad read: %s, %v; want SQLSTATE 22P02", a.raw, a.err)
				}
				continue
			}
			if want := fmt.Sprintf(`{"n": %d}`, i+1); a.err != nil || string(a.raw) != want {
				t.Fatalf("read %d: %s, %v; want %s", i+1, a.raw, a.err, want)
			}
		}
	})

	t.Run("a read that gives up while it waits leaves", func(t *testing.T) {
		c := &getCoalescer{lanes: 1}
		first := queue(ctx, c, pool, slowStmt, `{"n": 0}`)
		time.Sleep(50 * time.Millisecond)
		gone, cancel := context.WithCancel(ctx)
		quit := queue(gone, c, pool, echoStmt, `{"n": 1}`)
		waitQueued(t, c, 1)
		stay := queue(ctx, c, pool, echoStmt, `{"n": 2}`)
		waitQueued(t, c, 2)
		cancel()
		if a := <-quit; !errors.Is(a.err, context.Canceled) {
			t.Fatalf("the read given up: %s, %v; want context.Canceled", a.raw, a.err)
		}
		waitQueued(t, c, 1)
		<-first
		if a := <-stay; a.err != nil || string(a.raw) != `{"n": 2}` {
			t.Fatalf("the read that stayed: %s, %v", a.raw, a.err)
		}
		if a := <-queue(ctx, c, pool, echoStmt, `{"n": 3}`); a.err != nil || string(a.raw) != `{"n": 3}` {
			t.Fatalf("a read after: %s, %v", a.raw, a.err)
		}
	})

	t.Run("a leader that gives up in flight: the others run alone", func(t *testing.T) {
		c := &getCoalescer{lanes: 1}
		first := queue(ctx, c, pool, slowStmt, `{"n": 0}`)
		time.Sleep(50 * time.Millisecond)
		// The first waiting leads the next pipeline, slow as well; it gives
		// up inside it.
		gone, cancel := context.WithCancel(ctx)
		leader := queue(gone, c, pool, slowStmt, `{"n": 1}`)
		waitQueued(t, c, 1)
		other := queue(ctx, c, pool, echoStmt, `{"n": 2}`)
		waitQueued(t, c, 2)
		<-first
		waitQueued(t, c, 0)
		time.Sleep(50 * time.Millisecond)
		cancel()
		if a := <-leader; a.err == nil {
			t.Fatalf("the leader that gave up: %s, no error", a.raw)
		}
		if a := <-other; a.err != nil || string(a.raw) != `{"n": 2}` {
			t.Fatalf("the other read of its pipeline: %s, %v", a.raw, a.err)
		}
	})

	t.Run("no row", func(t *testing.T) {
		c := &getCoalescer{lanes: 1}
		if _, err := c.get(ctx, pool, `SELECT $1::jsonb WHERE false`, []byte(`{}`)); !errors.Is(err, pgx.ErrNoRows) {
			t.Fatalf("a read of no row: %v, want pgx.ErrNoRows", err)
		}
	})

	t.Run("many readers, many lanes", func(t *testing.T) {
		c := &getCoalescer{lanes: 2}
		var wg sync.WaitGroup
		for g := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					key := fmt.Sprintf(`{"g": %d, "i": %d}`, g, i)
					raw, err := c.get(ctx, pool, echoStmt, []byte(key))
					if err != nil || string(raw) != key {
						t.Errorf("read %s: %s, %v", key, raw, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if c.leading != 0 || len(c.waiting) != 0 {
			t.Fatalf("after the reads: %d leading, %d waiting", c.leading, len(c.waiting))
		}
	})
}
