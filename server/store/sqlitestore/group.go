package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// Group commit. SQLite has one writer, and on this store most of a small
// write's cost is its transaction (BEGIN IMMEDIATE, the WAL frames and
// locks of COMMIT), not its statements. Item writes (ItemWrite,
// ItemTransact) therefore go to one committer goroutine, which runs the
// writes waiting at that moment in one transaction, each inside a
// SAVEPOINT: a write whose fn fails (a condition, a validation) is rolled
// back to its savepoint and gets its own error, the others commit
// together. Each caller returns when the transaction holding its write has
// committed, so nothing is acknowledged before it is durable (as durable as
// synchronous=NORMAL makes a commit).

// groupMax bounds the writes of one transaction.
const groupMax = 64

// errStoreClosed answers the writes still waiting when the store closes.
var errStoreClosed = errors.New("sqlite store: closed")

type groupedWrite struct {
	ctx  context.Context
	fn   func(tx *sql.Tx) error
	err  error
	done chan error
}

// writeGroups is the committer's queue.
type writeGroups struct {
	once     sync.Once
	stopOnce sync.Once
	in       chan *groupedWrite
	stop     chan struct{}
	wg       sync.WaitGroup
}

// inWriteGrouped is inWrite for an item write: fn runs in a transaction
// shared with the other item writes waiting at the same time.
func (s *Store) inWriteGrouped(ctx context.Context, fn func(tx *sql.Tx) error) error {
	g := &s.groups
	g.once.Do(func() {
		g.in = make(chan *groupedWrite)
		g.stop = make(chan struct{})
		g.wg.Go(s.committer)
	})
	if g.in == nil {
		return errStoreClosed // closed before the first write
	}
	w := &groupedWrite{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case g.in <- w:
	case <-g.stop:
		return errStoreClosed
	case <-ctx.Done():
		return fmt.Errorf("write: %w", ctx.Err())
	}
	return <-w.done
}

// stopGroups stops the committer (Close, which may run twice), after the
// group it is running.
func (s *Store) stopGroups() {
	g := &s.groups
	g.once.Do(func() {}) // never started: nothing to stop, nothing to start
	g.stopOnce.Do(func() {
		if g.stop != nil {
			close(g.stop)
			g.wg.Wait()
		}
	})
}

// committer runs groups of waiting writes until the store closes.
func (s *Store) committer() {
	g := &s.groups
	for {
		var first *groupedWrite
		select {
		case first = <-g.in:
		case <-g.stop:
			return
		}
		// Let the handlers that are ready to run reach g.in before the
		// group is cut: the first write's send made this goroutine the
		// next to run, so without the yield every group held the one
		// write whose send woke it (at 16 clients and GOMAXPROCS=1, a
		// transaction per write). The yield costs a write only the time
		// those handlers take to decode their requests, and nothing when
		// none is ready.
		runtime.Gosched()
		group := []*groupedWrite{first}
	gather:
		for len(group) < groupMax {
			select {
			case w := <-g.in:
				group = append(group, w)
			default:
				break gather
			}
		}
		s.commitGroup(group)
	}
}

// commitGroup runs one group in one transaction and answers every write.
func (s *Store) commitGroup(group []*groupedWrite) {
	live := group[:0]
	for _, w := range group {
		if err := w.ctx.Err(); err != nil {
			w.done <- fmt.Errorf("write: %w", err)
			continue
		}
		live = append(live, w)
	}
	if len(live) == 0 {
		return
	}
	if len(live) == 1 {
		w := live[0]
		w.done <- s.inWrite(w.ctx, func(tx *sql.Tx) error { return runWrite(w, tx) })
		return
	}
	err := s.inWrite(context.Background(), func(tx *sql.Tx) error {
		for _, w := range live {
			if _, err := tx.Exec(s.stmts.get("write_savepoint", stmtVars{})); err != nil {
				return err
			}
			if w.err = runWrite(w, tx); w.err != nil {
				if _, err := tx.Exec(s.stmts.get("write_rollback", stmtVars{})); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(s.stmts.get("write_release", stmtVars{})); err != nil {
				return err
			}
		}
		return nil
	})
	for _, w := range live {
		switch {
		case w.err != nil:
			w.done <- interpretError(w.err) // its own failure: nothing of it was written
		case err != nil:
			w.done <- err // the group's transaction failed: nothing was written
		default:
			w.done <- nil
		}
	}
}

// runWrite runs one write's fn, turning a panic into its error so that the
// committer and the other writes of its group survive it.
func runWrite(w *groupedWrite, tx *sql.Tx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("sqlite store: write panicked: %v", r)
		}
	}()
	return w.fn(tx)
}
