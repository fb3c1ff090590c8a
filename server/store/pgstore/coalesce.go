package pgstore

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// coalescer sends the item statements in flight at once as one pipeline.
// The first call leads: it runs alone, on a connection of its own. A call
// that comes while a pipeline is in flight waits for it; when it is
// answered, its leader hands the lane to the first call waiting, which
// leads every call waiting (up to pipelineMax) in one round trip: one
// write and one read of the socket on each side for all of them, where
// most of a lone GetItem's or PutItem's CPU, the server's and
// PostgreSQL's, is those system calls, the wake-ups between them and, for
// a write, its commit. A call waits at most one round trip for its turn; with nothing
// in flight it waits for nobody. More lanes open, up to lanes, only while
// pipelineMax calls or more are waiting, or the last pipeline sent has
// been in flight for stallAfter: a second lane taken early splits the
// pipelines, and on one core for PostgreSQL halves what they save (GetItem
// at 16 clients: 7,000 reads/s on two lanes opened at once, 10,100 on
// one).
//
// Store has two: reads (ItemGet's statement, the optimistic write's read
// of the item, ItemQuery's; not a Scan's segment, whose page is long work
// that a round trip saved does not shorten) and writes (the optimistic
// writes' statements, guarded.go, and the blind put and delete with their
// sync index and stream statements, put.go; not a write that queues the
// item for async indexes: pipelined, those cost PostgreSQL more, 240 →
// 305 us a put with two async GSIs, and ran no faster).
//
// A pipeline is one implicit transaction. Each statement takes its
// snapshot after every call of the pipeline arrived, so a read sees every
// write acknowledged before it was asked for; the writes commit together,
// each acknowledged only once the commit is in, and their row locks are
// held to it (a pipeline of 16 writes: a few hundred microseconds). A
// pipeline that PostgreSQL refused (one statement's error, a failed
// commit, a cancelled statement) was rolled back whole, so every call of
// it runs again alone, under its own context, as does every call of one
// that was never sent. When the outcome is unknown (the connection broke
// after the pipeline went out, or the leader's context ended while it was
// in flight), reads run again too; writes report the error, as a lone
// write would (notApplied).
type coalescer struct {
	pool  *pgxpool.Pool
	lanes int  // pipelines that may be in flight at once (coalescerLanes)
	reads bool // the calls are reads, safe to repeat whatever happened

	mu      sync.Mutex
	leading int       // pipelines in flight
	started time.Time // when the last of them was sent
	waiting []*call
}

// stallAfter is how long the last pipeline sent may be in flight before a
// call opens another lane (up to lanes) rather than wait for it: a slow
// statement (a long Query page, a write waiting for a row lock) holds up
// the calls behind it no longer than that while others arrive.
const stallAfter = 5 * time.Millisecond

// pipelineMax is the most calls of one pipeline, and the number waiting
// that opens another lane.
const pipelineMax = 16

// coalescerLanes is the lanes of a coalescer on a pool of maxConns
// connections: a quarter of them, so that reads and writes each leave the
// locking transactions their share.
func coalescerLanes(maxConns int32) int { return max(1, int(maxConns)/4) }

// call is one statement, its arguments and where its row goes, then its
// error.
type call struct {
	sql  string
	args []any
	dest []any
	// all, when set, takes every row's one column instead (queryAll).
	all *[][]byte
	// extra follow the statement in its transaction, their results
	// unread (write).
	extra []statement
	err   error
	// table and key order a pipeline's writes (lockingRow).
	table int64
	key   []byte
	// done is sent to once: nil when the answer is in, or the calls to
	// lead next, the receiver first, when a leader hands it its lane.
	done chan []*call
}

// forget zeroes what x's failed pipeline scanned into its destinations:
// that came from a transaction rolled back, or unknown, and a run alone
// that finds no row (pgx.ErrNoRows) would leave it there.
func (x *call) forget() {
	for _, d := range x.dest {
		if v := reflect.ValueOf(d); v.Kind() == reflect.Pointer && !v.IsNil() {
			v.Elem().SetZero()
		}
	}
	if x.all != nil {
		*x.all = nil
	}
}

// errRerun is a call's answer when its pipeline did not apply: it runs
// again alone.
var errRerun = errors.New("pgstore: pipeline rolled back")

// coalescedRow is a row the coalescer reads when it is scanned.
type coalescedRow struct {
	c   *coalescer
	ctx context.Context
	x   call
}

// queryRow is c.pool.QueryRow(ctx, sql, args...) through c: Scan runs the
// statement, and returns pgx.ErrNoRows when it returns no row.
func (c *coalescer) queryRow(ctx context.Context, sql string, args ...any) coalescedRow {
	return coalescedRow{c, ctx, call{sql: sql, args: args}}
}

// lockingRow is queryRow of a statement that locks the row of the item at
// key (its encoding) of table. A pipeline sends such statements in
// lockOrder's order (table id, then key encoding), as every transaction
// locks, so that two pipelines, or a pipeline and a transaction, never
// wait on each other's rows in a cycle.
func (c *coalescer) lockingRow(ctx context.Context, table int64, key []byte, sql string, args ...any) coalescedRow {
	return coalescedRow{c, ctx, call{sql: sql, args: args, table: table, key: key}}
}

// queryAll runs sql through c and returns the one column of every row it
// returns.
func (c *coalescer) queryAll(ctx context.Context, sql string, args ...any) ([][]byte, error) {
	var all [][]byte
	err := c.run(ctx, &call{sql: sql, args: args, all: &all})
	return all, err
}

// write runs w, a write of the item at key of table (lockingRow), and
// scans its data row's statement's row into dest; w.extra follow it in
// its transaction, as ever.
func (c *coalescer) write(ctx context.Context, table int64, key []byte, w itemWrite, dest ...any) error {
	return c.run(ctx, &call{sql: w.sql, args: w.args, extra: w.extra, dest: dest, table: table, key: key})
}

func (r coalescedRow) Scan(dest ...any) error {
	x := r.x
	x.dest = dest
	return r.c.run(r.ctx, &x)
}

// run answers x, alone or in a pipeline.
func (c *coalescer) run(ctx context.Context, x *call) error {
	now := time.Now()
	c.mu.Lock()
	if c.leading == 0 || c.leading < c.lanes && (len(c.waiting) >= pipelineMax || now.Sub(c.started) > stallAfter) {
		// A lane of its own, and the calls waiting with it.
		c.leading++
		c.started = now
		calls := append([]*call{x}, c.takeWaiting(pipelineMax-1)...)
		c.mu.Unlock()
		c.lead(ctx, calls)
		return x.err
	}
	x.done = make(chan []*call, 1)
	c.waiting = append(c.waiting, x)
	c.mu.Unlock()
	select {
	case calls := <-x.done:
		if calls != nil {
			c.lead(ctx, calls)
		}
	case <-ctx.Done():
		if c.leave(x) {
			return ctx.Err() // nothing sent
		}
		// A leader took it: the answer, or the lane, is one send away.
		// Leading under ctx, which is done, sends nothing, and the other
		// calls run alone.
		if calls := <-x.done; calls != nil {
			c.lead(ctx, calls)
		}
		if x.err == errRerun {
			return ctx.Err()
		}
	}
	if x.err == errRerun {
		x.err = runOne(ctx, c.pool, x)
	}
	return x.err
}

// takeWaiting takes up to n of the calls waiting, the first first; c.mu
// is held.
func (c *coalescer) takeWaiting(n int) []*call {
	taken := c.waiting[:min(len(c.waiting), n):min(len(c.waiting), n)]
	if c.waiting = c.waiting[len(taken):]; len(c.waiting) == 0 {
		c.waiting = nil // let the backing array go
	}
	return taken
}

// leave takes x out of the calls waiting; false when a leader has taken
// it already.
func (c *coalescer) leave(x *call) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, w := range c.waiting {
		if w == x {
			c.waiting = append(c.waiting[:i], c.waiting[i+1:]...)
			return true
		}
	}
	return false
}

// lead runs calls (the first the leader's own) as one pipeline, answers
// them, then hands the lane, with the calls waiting, to the first of
// those, or frees it.
func (c *coalescer) lead(ctx context.Context, calls []*call) {
	if len(calls) == 1 {
		calls[0].err = runOne(ctx, c.pool, calls[0])
	} else if ctx.Err() != nil {
		// The leader's client is gone: send nothing, the others run alone.
		calls[0].err = ctx.Err()
		for _, x := range calls[1:] {
			x.err = errRerun
		}
	} else if err := runPipeline(ctx, c.pool, calls); err != nil {
		rerun := c.reads || notApplied(err)
		for _, x := range calls {
			x.forget()
			if x.err = err; rerun {
				x.err = errRerun
			}
		}
		if rerun {
			// The leader's again alone now, the others' when they wake.
			calls[0].err = runOne(ctx, c.pool, calls[0])
		}
	}
	for _, x := range calls[1:] {
		x.done <- nil
	}
	c.mu.Lock()
	next := c.takeWaiting(pipelineMax)
	if len(next) == 0 {
		c.leading--
	} else {
		c.started = time.Now()
	}
	c.mu.Unlock()
	if len(next) > 0 {
		next[0].done <- next
	}
}

// notApplied reports whether err, a pipeline's, says it applied nothing:
// PostgreSQL refused a statement or the commit (an ERROR rolls the
// transaction back and leaves the session), or nothing was sent (pgx
// failed preparing or encoding the batch, no connection could be made).
// A context's end is not: pgconn reports the end of a statement in flight
// as a plain context error when no cancel was confirmed. Nor is every
// pgconn.SafeToRetry: pgx (v5.12) reports a connection lost while it
// awaited the COMMIT's answer so (server/overload.go maySent). A FATAL (a
// terminated backend) may come after the commit.
func notApplied(err error) bool {
	var pe *pgconn.PgError
	var ce *pgconn.ConnectError
	var pre pgx.ErrPreprocessingBatch
	switch {
	case errors.As(err, &pe):
		return cmp.Or(pe.SeverityUnlocalized, pe.Severity) == "ERROR"
	case errors.As(err, &pre), errors.As(err, &ce):
		return true
	case errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	}
	return pgconn.SafeToRetry(err)
}

// runPipeline runs calls in one pipeline, scanning each one's row into its
// dest (its err pgx.ErrNoRows when none). An error means none of them
// stands answered: the pipeline failed, and their rows, if scanned, are
// of a transaction that did not commit.
func runPipeline(ctx context.Context, pool *pgxpool.Pool, calls []*call) error {
	calls = slices.Clone(calls)
	slices.SortStableFunc(calls, func(a, b *call) int {
		if c := cmp.Compare(a.table, b.table); c != 0 {
			return c
		}
		return bytes.Compare(a.key, b.key)
	})
	b := &pgx.Batch{}
	for _, x := range calls {
		queueCall(b, x)
	}
	br := pool.SendBatch(ctx, b)
	for _, x := range calls {
		if x.err = readCall(br, x); x.err != nil && !errors.Is(x.err, pgx.ErrNoRows) {
			err := x.err
			br.Close()
			return err
		}
	}
	return br.Close()
}

// runOne runs x alone.
func runOne(ctx context.Context, pool *pgxpool.Pool, x *call) error {
	switch {
	case len(x.extra) > 0:
		// A pipeline of one: its statements in one implicit transaction.
		if err := runPipeline(ctx, pool, []*call{x}); err != nil {
			return err
		}
		return x.err
	case x.all != nil:
		var err error
		*x.all, err = collectItems(pool.Query(ctx, x.sql, x.args...))
		return err
	}
	return pool.QueryRow(ctx, x.sql, x.args...).Scan(x.dest...)
}

// queueCall adds x's statements to b.
func queueCall(b *pgx.Batch, x *call) {
	b.Queue(x.sql, x.args...)
	for _, e := range x.extra {
		b.Queue(e.sql, e.args...)
	}
}

// readCall reads x's results from br: its statement's row or rows, then
// its extra statements'; the first error.
func readCall(br pgx.BatchResults, x *call) error {
	var err error
	if x.all != nil {
		*x.all, err = collectItems(br.Query())
	} else {
		err = br.QueryRow().Scan(x.dest...)
	}
	for range x.extra {
		if _, eerr := br.Exec(); err == nil {
			err = eerr
		}
	}
	return err
}

// collectItems returns the one column of every row of a query's rows.
func collectItems(rows pgx.Rows, err error) ([][]byte, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[[]byte])
}
