package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
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
func waitQueued(t *testing.T, c *coalescer, n int) {
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
func queue(ctx context.Context, c *coalescer, stmt, key string) chan answer {
	ch := make(chan answer, 1)
	go func() {
		var raw []byte
		err := c.queryRow(ctx, stmt, []byte(key)).Scan(&raw)
		ch <- answer{raw, err}
	}()
	return ch
}

func TestCoalescerReads(t *testing.T) {
	pool := coalescerPool(t)
	ctx := context.Background()

	t.Run("the reads waiting go as one pipeline, each answered", func(t *testing.T) {
		c := &coalescer{pool: pool, lanes: 1, reads: true}
		first := queue(ctx, c, slowStmt, `{"n": 0}`)
		waitQueued(t, c, 0)
		time.Sleep(50 * time.Millisecond) // the slow read is in flight
		var rest []chan answer
		for i := 1; i <= 10; i++ {
			rest = append(rest, queue(ctx, c, echoStmt, fmt.Sprintf(`{"n": %d}`, i)))
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
		c := &coalescer{pool: pool, lanes: 1, reads: true}
		first := queue(ctx, c, slowStmt, `{"n": 0}`)
		time.Sleep(50 * time.Millisecond)
		var chs []chan answer
		keys := []string{`{"n": 1}`, `{"n": "x"}`, `{"n": 3}`, `{"n": 4}`}
		for i, key := range keys {
			chs = append(chs, queue(ctx, c, badStmt, key))
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
		c := &coalescer{pool: pool, lanes: 1, reads: true}
		first := queue(ctx, c, slowStmt, `{"n": 0}`)
		time.Sleep(50 * time.Millisecond)
		gone, cancel := context.WithCancel(ctx)
		quit := queue(gone, c, echoStmt, `{"n": 1}`)
		waitQueued(t, c, 1)
		stay := queue(ctx, c, echoStmt, `{"n": 2}`)
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
		if a := <-queue(ctx, c, echoStmt, `{"n": 3}`); a.err != nil || string(a.raw) != `{"n": 3}` {
			t.Fatalf("a read after: %s, %v", a.raw, a.err)
		}
	})

	t.Run("a leader that gives up in flight: the others run alone", func(t *testing.T) {
		c := &coalescer{pool: pool, lanes: 1, reads: true}
		first := queue(ctx, c, slowStmt, `{"n": 0}`)
		time.Sleep(50 * time.Millisecond)
		// The first waiting leads the next pipeline, slow as well; it gives
		// up inside it.
		gone, cancel := context.WithCancel(ctx)
		leader := queue(gone, c, slowStmt, `{"n": 1}`)
		waitQueued(t, c, 1)
		other := queue(ctx, c, echoStmt, `{"n": 2}`)
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

	t.Run("reads of many rows in a pipeline", func(t *testing.T) {
		c := &coalescer{pool: pool, lanes: 1, reads: true}
		first := queue(ctx, c, slowStmt, `{"n": 0}`)
		time.Sleep(50 * time.Millisecond)
		type rows struct {
			all [][]byte
			err error
		}
		var chs []chan rows
		for n := range 4 {
			ch := make(chan rows, 1)
			go func() {
				all, err := c.queryAll(ctx, `SELECT to_jsonb(g) FROM generate_series(1, $1::int) AS g`, n)
				ch <- rows{all, err}
			}()
			chs = append(chs, ch)
			waitQueued(t, c, n+1)
		}
		one := queue(ctx, c, echoStmt, `{"n": 9}`)
		waitQueued(t, c, 5)
		<-first
		for n, ch := range chs {
			r := <-ch
			var got []string
			for _, b := range r.all {
				got = append(got, string(b))
			}
			want := []string{"1", "2", "3"}[:n]
			if r.err != nil || !slices.Equal(got, want) {
				t.Fatalf("read of %d rows: %q, %v; want %q", n, got, r.err, want)
			}
		}
		if a := <-one; a.err != nil || string(a.raw) != `{"n": 9}` {
			t.Fatalf("the one-row read among them: %s, %v", a.raw, a.err)
		}
	})

	t.Run("a pipeline in flight past stallAfter: the next read takes another lane", func(t *testing.T) {
		c := &coalescer{pool: pool, lanes: 2, reads: true}
		first := queue(ctx, c, slowStmt, `{"n": 0}`)
		time.Sleep(stallAfter + 50*time.Millisecond)
		if a := <-queue(ctx, c, echoStmt, `{"n": 1}`); a.err != nil || string(a.raw) != `{"n": 1}` {
			t.Fatalf("the read beside the slow one: %s, %v", a.raw, a.err)
		}
		select {
		case <-first:
			t.Fatal("the read beside the slow one waited for it")
		default:
		}
		<-first
		// With one lane it waits.
		c = &coalescer{pool: pool, lanes: 1, reads: true}
		first = queue(ctx, c, slowStmt, `{"n": 0}`)
		time.Sleep(stallAfter + 50*time.Millisecond)
		second := queue(ctx, c, echoStmt, `{"n": 1}`)
		waitQueued(t, c, 1)
		<-first
		<-second
	})

	t.Run("no row", func(t *testing.T) {
		c := &coalescer{pool: pool, lanes: 1, reads: true}
		var raw []byte
		if err := c.queryRow(ctx, `SELECT $1::jsonb WHERE false`, []byte(`{}`)).Scan(&raw); !errors.Is(err, pgx.ErrNoRows) {
			t.Fatalf("a read of no row: %v, want pgx.ErrNoRows", err)
		}
	})

	t.Run("many readers, many lanes", func(t *testing.T) {
		c := &coalescer{pool: pool, lanes: 2, reads: true}
		var wg sync.WaitGroup
		for g := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					key := fmt.Sprintf(`{"g": %d, "i": %d}`, g, i)
					var raw []byte
					err := c.queryRow(ctx, echoStmt, []byte(key)).Scan(&raw)
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

// Writes: each call increments its own counter row and returns the new
// count, so a write applied twice, or not at all, shows.
const (
	incStmt     = `UPDATE counters SET n = n + 1 WHERE id = $1 RETURNING n`
	slowIncStmt = `WITH s AS (SELECT pg_sleep(0.3)) UPDATE counters SET n = n + 1 FROM s WHERE id = $1 RETURNING n`
	// badIncStmt fails (22012) for id 99, after its update.
	badIncStmt = `UPDATE counters SET n = n + 1 WHERE id = $1 RETURNING n / (id - 99)`
)

// countersPool is a pool on a fresh database with counters 0 to 99 at 0.
func countersPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := coalescerPool(t)
	if _, err := pool.Exec(context.Background(), `CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL);
		INSERT INTO counters SELECT g, 0 FROM generate_series(0, 99) AS g`); err != nil {
		t.Fatal(err)
	}
	return pool
}

// counts returns the counters of ids.
func counts(t *testing.T, pool *pgxpool.Pool, ids ...int) []int {
	t.Helper()
	var out []int
	for _, id := range ids {
		var n int
		if err := pool.QueryRow(context.Background(), `SELECT n FROM counters WHERE id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

type increment struct {
	n   int
	err error
}

// queueInc starts the write stmt of counter id on c and returns where
// its answer comes.
func queueInc(ctx context.Context, c *coalescer, stmt string, id int) chan increment {
	return goScan(func(n *int) error { return c.queryRow(ctx, stmt, id).Scan(n) })
}

// goScan runs scan, which reads a count into n, in a goroutine and
// returns where its answer comes.
func goScan(scan func(n *int) error) chan increment {
	ch := make(chan increment, 1)
	go func() {
		var n int
		err := scan(&n)
		ch <- increment{n, err}
	}()
	return ch
}

// expectOneRefused reads the answers of the writes of ids from chs: the
// write of refused must have failed with SQLSTATE 22012, the others
// returned want.
func expectOneRefused(t *testing.T, ids []int, chs []chan increment, refused, want int) {
	t.Helper()
	for i, ch := range chs {
		r := <-ch
		var pe *pgconn.PgError
		if ids[i] == refused {
			if !errors.As(r.err, &pe) || pe.Code != "22012" {
				t.Fatalf("the refused write of %d: %d, %v; want SQLSTATE 22012", refused, r.n, r.err)
			}
			continue
		}
		if r.err != nil || r.n != want {
			t.Fatalf("write of %d: %d, %v; want %d", ids[i], r.n, r.err, want)
		}
	}
}

func TestCoalescerWrites(t *testing.T) {
	pool := countersPool(t)
	ctx := context.Background()

	t.Run("the writes waiting commit as one pipeline, each once", func(t *testing.T) {
		c := &coalescer{pool: pool, lanes: 1}
		first := queueInc(ctx, c, slowIncStmt, 0)
		time.Sleep(50 * time.Millisecond)
		var rest []chan increment
		for id := 1; id <= 10; id++ {
			rest = append(rest, queueInc(ctx, c, incStmt, id))
			waitQueued(t, c, id)
		}
		before := pool.Stat().AcquireCount()
		if r := <-first; r.err != nil || r.n != 1 {
			t.Fatalf("the first write: %d, %v", r.n, r.err)
		}
		for i, ch := range rest {
			if r := <-ch; r.err != nil || r.n != 1 {
				t.Fatalf("write %d: %d, %v; want 1", i+1, r.n, r.err)
			}
		}
		if n := pool.Stat().AcquireCount() - before; n != 1 {
			t.Fatalf("the ten writes waiting took %d connections, want 1 (one pipeline)", n)
		}
		if got := counts(t, pool, 0, 1, 5, 10); !slices.Equal(got, []int{1, 1, 1, 1}) {
			t.Fatalf("counters after: %v, want each 1", got)
		}
	})

	t.Run("a refused write in a pipeline: the others apply once, it not at all", func(t *testing.T) {
		c := &coalescer{pool: pool, lanes: 1}
		first := queueInc(ctx, c, slowIncStmt, 20)
		time.Sleep(50 * time.Millisecond)
		ids := []int{21, 22, 99, 23}
		var chs []chan increment
		for i, id := range ids {
			chs = append(chs, queueInc(ctx, c, badIncStmt, id))
			waitQueued(t, c, i+1)
		}
		<-first
		expectOneRefused(t, ids, chs, 99, 0) // n / (id - 99) of 1
		if got := counts(t, pool, 21, 22, 23, 99); !slices.Equal(got, []int{1, 1, 1, 0}) {
			t.Fatalf("counters 21, 22, 23, 99 after: %v, want 1 1 1 0", got)
		}
	})

	t.Run("a pipeline whose outcome is unknown is not sent again", func(t *testing.T) {
		c := &coalescer{pool: pool, lanes: 1}
		first := queueInc(ctx, c, slowIncStmt, 30)
		time.Sleep(50 * time.Millisecond)
		chs := []chan increment{queueInc(ctx, c, slowIncStmt, 31)}
		waitQueued(t, c, 1)
		chs = append(chs, queueInc(ctx, c, incStmt, 32))
		waitQueued(t, c, 2)
		<-first
		// The pipeline's backend, asleep in its first statement, ends.
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			var n int
			if err := pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'WITH s AS%'
				AND state = 'active'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the pipeline never ran")
			}
		}
		for i, ch := range chs {
			if r := <-ch; r.err == nil || errors.Is(r.err, errRerun) {
				t.Fatalf("write %d of the pipeline cut off: %d, %v; want its error", i, r.n, r.err)
			}
		}
		// Neither ran again alone (the pipeline itself did not commit).
		if got := counts(t, pool, 31, 32); !slices.Equal(got, []int{0, 0}) {
			t.Fatalf("counters 31, 32 after: %v, want 0 0", got)
		}
	})

	t.Run("a pipeline's writes go in lock order", func(t *testing.T) {
		// Each write numbers its row after the rows already numbered in
		// its transaction: the numbers are the order they ran in.
		const seqStmt = `UPDATE counters SET n = (SELECT max(n) + 1 FROM counters WHERE id BETWEEN 40 AND 42)
			WHERE id = $1 RETURNING n`
		c := &coalescer{pool: pool, lanes: 1}
		first := queueInc(ctx, c, slowIncStmt, 39)
		time.Sleep(50 * time.Millisecond)
		var chs []chan increment
		for i, w := range []struct {
			key string
			id  int
		}{{`{"pk":"c"}`, 42}, {`{"pk":"a"}`, 40}, {`{"pk":"b"}`, 41}} {
			chs = append(chs, goScan(func(n *int) error {
				return c.lockingRow(ctx, 7, []byte(w.key), seqStmt, w.id).Scan(n)
			}))
			waitQueued(t, c, i+1)
		}
		<-first
		for _, ch := range chs {
			if r := <-ch; r.err != nil {
				t.Fatal(r.err)
			}
		}
		if got := counts(t, pool, 40, 41, 42); !slices.Equal(got, []int{1, 2, 3}) {
			t.Fatalf("the writes of keys a, b, c ran %v-th, want 1 2 3 (key order, not arrival)", got)
		}
	})

	t.Run("writes of several statements: each applied whole, once, or not at all", func(t *testing.T) {
		// Each write increments counter id (its "data row") and id + 10
		// (its "index row"); the one of id 53 fails in its second
		// statement.
		write := func(id int) itemWrite {
			second := `UPDATE counters SET n = n + 1 WHERE id = $1`
			if id == 53 {
				second = `UPDATE counters SET n = n + 1 / (id - id) WHERE id = $1`
			}
			return itemWrite{statement: statement{incStmt, []any{id}}, extra: []statement{{second, []any{id + 10}}}}
		}
		c := &coalescer{pool: pool, lanes: 1}
		first := queueInc(ctx, c, slowIncStmt, 49)
		time.Sleep(50 * time.Millisecond)
		ids := []int{50, 51, 52, 53, 54}
		var chs []chan increment
		for i, id := range ids {
			chs = append(chs, goScan(func(n *int) error {
				return c.write(ctx, 7, []byte(strconv.Itoa(id)), write(id), n)
			}))
			waitQueued(t, c, i+1)
		}
		<-first
		expectOneRefused(t, ids, chs, 53, 1)
		got := counts(t, pool, 50, 51, 52, 53, 54, 60, 61, 62, 63, 64)
		if want := []int{1, 1, 1, 0, 1, 1, 1, 1, 0, 1}; !slices.Equal(got, want) {
			t.Fatalf("counters 50-54 and 60-64 after: %v, want %v", got, want)
		}
	})

	t.Run("a call run alone after a failed pipeline keeps nothing the pipeline scanned", func(t *testing.T) {
		// The pipeline runs a (key a), then l (key b), then the failing
		// b: a scans 5, then everything rolls back. l, leading, runs
		// alone first and sets counter 74, after which a alone finds no
		// row: its destination must not still hold the 5.
		c := &coalescer{pool: pool, lanes: 1}
		first := queueInc(ctx, c, slowIncStmt, 79)
		time.Sleep(50 * time.Millisecond)
		row := func(key, stmt string) chan increment {
			return goScan(func(n *int) error { return c.lockingRow(ctx, 7, []byte(key), stmt).Scan(n) })
		}
		l := row("b", `UPDATE counters SET n = 1 WHERE id = 74 RETURNING n`)
		waitQueued(t, c, 1)
		a := row("a", `SELECT n + 5 FROM counters WHERE id = 74 AND n = 0`)
		waitQueued(t, c, 2)
		b := row("c", `SELECT 1 / 0`)
		waitQueued(t, c, 3)
		<-first
		if r := <-l; r.err != nil || r.n != 1 {
			t.Fatalf("the leader: %d, %v", r.n, r.err)
		}
		if r := <-b; r.err == nil {
			t.Fatal("the failing call did not fail")
		}
		if r := <-a; !errors.Is(r.err, pgx.ErrNoRows) || r.n != 0 {
			t.Fatalf("the call that finds no row alone: %d, %v; want 0, pgx.ErrNoRows", r.n, r.err)
		}
	})
}
