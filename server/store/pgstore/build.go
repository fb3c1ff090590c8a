package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/store"
)

// The online build of a global secondary index (docs/index-build.md).
//
// TableUpdate commits the index as CREATING, with its storage, under the
// catalog row's FOR NO KEY UPDATE lock, at once: item writes do not lock
// the row, and the queue's FOR KEY SHARE does not conflict with it. Every write that reads the catalog after
// that commit maintains the index. IndexBuildStart then runs the build in
// the background: on its own connection (application_name
// BuildApplicationName) holding the index's advisory lock, it first waits
// out the writes that may have read the old definition (the catalog
// barrier, barrier.go: blocking nobody, bounded by build_barrier_wait_ms),
// then marks the index Backfilling, writes the table into it page by page
// (dynamopg.index_build_page), sweeps index rows whose item is gone, and
// flips it ACTIVE. A transient failure leaves the index CREATING for the
// recovery worker; a permanent one removes it while it is still CREATING.

// BuildApplicationName is the application_name of the builds' and the
// recovery worker's connections.
const BuildApplicationName = "dynamopg-build"

const (
	// buildHeartbeat is how often a running build stamps heartbeat_at.
	buildHeartbeat = 2 * time.Second
	// defaultRecoveryInterval applies when the setting cannot be read.
	defaultRecoveryInterval = time.Minute
	// buildPurgeDays: finished builds are forgotten after this many days.
	buildPurgeDays = 7
)

// Test hooks (build_export_test.go sets them): a write calls
// testHookAfterCatalogRead after it locked and read the catalog row and its
// item, testHookBeforeStatement just before its write statement; a build
// calls testHookBuildPage before each page.
var (
	testHookAfterCatalogRead atomic.Pointer[func()]
	testHookBeforeStatement  atomic.Pointer[func()]
	testHookBuildPage        atomic.Pointer[func()]
)

func runHook(h *atomic.Pointer[func()]) {
	if f := h.Load(); f != nil {
		(*f)()
	}
}

// builds is the state of a store's builds and recovery worker.
type builds struct {
	mu      sync.Mutex
	ctx     context.Context // ends at Close
	cancel  context.CancelFunc
	running map[int64]bool // index ids this store is building
	closed  bool
	wg      sync.WaitGroup
	owner   string
}

func (b *builds) init() {
	b.ctx, b.cancel = context.WithCancel(context.Background())
	b.running = map[int64]bool{}
	host, _ := os.Hostname()
	b.owner = fmt.Sprintf("%s:%d:%p", host, os.Getpid(), b)
}

// stop cancels the builds and the recovery worker, waits for them, and
// returns the indexes whose builds were running.
func (b *builds) stop() []int64 {
	b.mu.Lock()
	b.closed = true
	ids := slices.Collect(maps.Keys(b.running))
	b.mu.Unlock()
	b.cancel()
	b.wg.Wait()
	return ids
}

// buildTarget names the index a build works on.
type buildTarget struct {
	tableID   int64
	tableName string
	indexID   int64
	indexName string
}

// IndexBuildStart starts the build of the CREATING index name of t in the
// background and returns at once. An index that is not CREATING (or a
// build of it this store already runs) is left alone.
func (s *Store) IndexBuildStart(ctx context.Context, t *store.Table, name string) error {
	cur, err := s.TableGet(ctx, t.Name)
	if err != nil {
		return err
	}
	ix := cur.Index(name)
	if cur.ID != t.ID || ix == nil || ix.Status != store.StatusCreating {
		return nil
	}
	s.buildGo(buildTarget{tableID: cur.ID, tableName: cur.Name, indexID: ix.ID, indexName: ix.Name})
	return nil
}

// buildGo runs the build of b in a goroutine unless this store already
// builds that index or is closing; it reports whether it started one.
func (s *Store) buildGo(b buildTarget) bool {
	s.builds.mu.Lock()
	defer s.builds.mu.Unlock()
	if s.builds.closed || s.builds.running[b.indexID] {
		return false
	}
	s.builds.running[b.indexID] = true
	s.builds.wg.Go(func() {
		defer func() {
			s.builds.mu.Lock()
			delete(s.builds.running, b.indexID)
			s.builds.mu.Unlock()
		}()
		s.buildRun(s.builds.ctx, b)
	})
	return true
}

// Build outcomes other than success and failure.
var (
	errBuildBusy = errors.New("pgstore: index build: owned by another session")
	errBuildGone = errors.New("pgstore: index build: index no longer CREATING")
)

// buildPermanent marks an error that would recur on every attempt.
type buildPermanent struct{ err error }

func (e buildPermanent) Error() string { return e.err.Error() }
func (e buildPermanent) Unwrap() error { return e.err }

// buildErrorKind classifies a build's error: "gone" (the table or index was
// removed under it), "transient" (a conflict, a lock timeout, a lost
// connection, a shutdown: the index stays CREATING) or "permanent".
func buildErrorKind(ctx context.Context, err error) string {
	var perm buildPermanent
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, errBuildGone), errors.Is(err, store.ErrTableNotFound):
		return "gone"
	case ctx.Err() != nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "transient"
	case errors.As(err, &perm):
		return "permanent"
	case errors.As(err, &pgErr):
		switch {
		case pgErr.Code == codeUndefinedTable:
			return "gone"
		case pgErr.Code == codeDeadlock, pgErr.Code == codeSerialization, pgErr.Code == codeLockNotAvailable,
			pgErr.Code == "57014",  // query_canceled
			pgErr.Code[:2] == "57", // operator intervention: admin shutdown, crash shutdown, cannot connect now
			pgErr.Code[:2] == "08", // connection exception
			pgErr.Code[:2] == "53", // insufficient resources
			pgErr.Code[:2] == "58": // system error (I/O)
			return "transient"
		}
		return "permanent"
	}
	return "transient" // network errors, a closed connection
}

// buildRun runs one attempt of a build and records its outcome.
func (s *Store) buildRun(ctx context.Context, b buildTarget) {
	log := s.log.With("table", b.tableName, "index", b.indexName, "index_id", b.indexID)
	err := s.buildOnce(ctx, b, log)
	if err == nil || errors.Is(err, errBuildBusy) {
		return
	}
	// The outcome is recorded even when ctx ended (a shutdown).
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	switch buildErrorKind(ctx, err) {
	case "gone":
		log.InfoContext(ctx, "index build: index no longer CREATING, stopped", "err", err)
	case "transient":
		backoff := int32(-1) // exponential in the attempts
		if ctx.Err() != nil {
			backoff = 0 // a shutdown: due at once for the next process
		}
		log.WarnContext(ctx, "index build interrupted; the index stays CREATING for recovery", "err", err)
		if ferr := s.q.BuildFailed(rctx, s.pool, gen.BuildFailedParams{IndexID: b.indexID, Error: err.Error(), BackoffMs: backoff}); ferr != nil {
			log.WarnContext(ctx, "index build: cannot record the failure", "err", ferr)
		}
	default:
		log.ErrorContext(ctx, "index build failed; removing the CREATING index", "err", err)
		removed, rerr := s.buildRemove(rctx, b, err.Error())
		switch {
		case rerr != nil:
			log.ErrorContext(ctx, "index build: cannot remove the index; recovery retries the build", "err", rerr)
			_ = s.q.BuildFailed(rctx, s.pool, gen.BuildFailedParams{IndexID: b.indexID, Error: err.Error(), BackoffMs: -1})
		case removed:
			log.ErrorContext(ctx, "index build: index removed", "reason", err.Error())
		}
	}
}

// buildRemove removes the index while it is still CREATING, retrying lock
// timeouts; its storage is then dropped in the background after the catalog
// barrier (dropIndexesDeferred).
func (s *Store) buildRemove(ctx context.Context, b buildTarget, reason string) (bool, error) {
	var err error
	for attempt := 0; attempt < 6; attempt++ {
		var removed bool
		removed, err = s.q.BuildRemove(ctx, s.pool, gen.BuildRemoveParams{TableID: b.tableID, IndexID: b.indexID, Reason: reason})
		if err == nil {
			if removed {
				s.dropIndexesDeferred(b.tableName, []int64{b.indexID})
			}
			return removed, nil
		}
		if !isCode(err, codeLockNotAvailable) && !retryable(err) {
			return false, err
		}
		select {
		case <-ctx.Done():
			return false, err
		case <-time.After(time.Duration(attempt+1) * 250 * time.Millisecond):
		}
	}
	return false, err
}

func isCode(err error, code string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == code
}

// buildConnect opens the build's own connection.
func (s *Store) buildConnect(ctx context.Context) (*pgx.Conn, error) {
	cc := s.pool.Config().ConnConfig.Copy()
	cc.RuntimeParams["application_name"] = BuildApplicationName
	return pgx.ConnectConfig(ctx, cc)
}

// buildOnce is one attempt: ownership, Backfilling, pages, sweep, ACTIVE.
func (s *Store) buildOnce(ctx context.Context, b buildTarget, log interface {
	InfoContext(context.Context, string, ...any)
	DebugContext(context.Context, string, ...any)
}) error {
	conn, err := s.buildConnect(ctx)
	if err != nil {
		return fmt.Errorf("pgstore: index build: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx)) // also releases the advisory lock
	locked, err := s.q.BuildLockTry(ctx, conn, gen.BuildLockTryParams{IndexID: b.indexID})
	if err != nil {
		return fmt.Errorf("pgstore: index build: lock: %w", err)
	}
	if !locked {
		log.DebugContext(ctx, "index build: another session owns it")
		return errBuildBusy
	}
	hbCtx, stopHB := context.WithCancel(ctx)
	var hb sync.WaitGroup
	hb.Go(func() { s.buildHeartbeat(hbCtx, b.indexID) })
	defer func() { stopHB(); hb.Wait() }()

	claim, err := s.q.BuildClaim(ctx, conn, gen.BuildClaimParams{TableID: b.tableID, IndexID: b.indexID, Owner: s.builds.owner})
	if err != nil {
		return fmt.Errorf("pgstore: index build: claim: %w", err)
	}
	if claim.Gone {
		return errBuildGone
	}
	// The barrier: every transaction that held a lock on dynamopg.tables
	// now (after the CREATING commit) must end before the backfill starts.
	limit, err := s.barrierWait(ctx, conn)
	if err != nil {
		return fmt.Errorf("pgstore: index build: settings: %w", err)
	}
	waited, err := s.catalogBarrier(ctx, conn, limit)
	if errors.Is(err, errBarrierTimeout) {
		_ = s.q.BuildBarrierTimeout(ctx, conn, gen.BuildBarrierTimeoutParams{IndexID: b.indexID, Ms: msInt32(waited)})
	}
	if err != nil {
		return fmt.Errorf("pgstore: index build: barrier: %w", err)
	}
	if err := s.q.BuildBarrierDone(ctx, conn, gen.BuildBarrierDoneParams{IndexID: b.indexID, Ms: msInt32(waited)}); err != nil {
		return fmt.Errorf("pgstore: index build: barrier: %w", err)
	}
	log.DebugContext(ctx, "index build: barrier passed", "waited", waited)
	if ok, err := s.q.BuildBackfilling(ctx, conn, gen.BuildBackfillingParams{TableID: b.tableID, IndexID: b.indexID}); err != nil {
		return fmt.Errorf("pgstore: index build: backfilling: %w", err)
	} else if !ok {
		return errBuildGone
	}
	maxRetries, err := s.q.BuildSettingInt(ctx, conn, gen.BuildSettingIntParams{Key: "build_page_retries", Fallback: 20})
	if err != nil {
		return fmt.Errorf("pgstore: index build: settings: %w", err)
	}
	pageSize, err := s.q.BuildSettingInt(ctx, conn, gen.BuildSettingIntParams{Key: "build_page_size", Fallback: 256})
	if err != nil {
		return fmt.Errorf("pgstore: index build: settings: %w", err)
	}
	pageSize = max(pageSize, 1)
	// The backfill's snapshot, taken now, after the barrier: see
	// buildSnapshot.
	snap, err := s.buildSnapshot(ctx, b.tableID)
	if err != nil {
		return fmt.Errorf("pgstore: index build: snapshot: %w", err)
	}
	defer snap.close(ctx)
	log.InfoContext(ctx, "index build: backfill started", "resume", claim.ResumeKey != nil, "rows_done", claim.RowsDone)
	start := time.Now()
	after := claim.ResumeKey
	var rows int64
	for {
		runHook(&testHookBuildPage)
		keys, more, err := snap.keys(ctx, after, pageSize)
		if err != nil {
			return fmt.Errorf("pgstore: index build: page keys: %w", err)
		}
		var page gen.BuildPageRow
		attempt := int32(0)
		retries, err := buildRetry(ctx, int(maxRetries), func() (err error) {
			page, err = buildPage(ctx, conn, gen.BuildPageParams{TableID: b.tableID, IndexID: b.indexID, After: after, Keys: keys, Retries: attempt})
			attempt++
			return err
		})
		if err != nil {
			return fmt.Errorf("pgstore: index build: page: %w", err)
		}
		if page.Gone {
			return errBuildGone
		}
		var skipped []json.RawMessage
		if err := json.Unmarshal(page.Skipped, &skipped); err != nil {
			return buildPermanent{fmt.Errorf("pgstore: index build: page: %w", err)}
		}
		n := int(page.N)
		for _, key := range skipped {
			var item gen.BuildItemRow
			r, err := s.buildTx(ctx, conn, int(maxRetries), func(tx pgx.Tx) (err error) {
				item, err = s.q.BuildItem(ctx, tx, gen.BuildItemParams{TableID: b.tableID, IndexID: b.indexID, Key: key})
				return err
			})
			retries += r
			if err != nil {
				return fmt.Errorf("pgstore: index build: item: %w", err)
			}
			if item.Gone {
				return errBuildGone
			}
			if item.Written {
				n++
			}
		}
		if !page.Recorded {
			if err := s.q.BuildProgress(ctx, conn, gen.BuildProgressParams{IndexID: b.indexID, Key: page.LastKey, Rows: int32(n), Retries: int32(retries)}); err != nil {
				return fmt.Errorf("pgstore: index build: progress: %w", err)
			}
		}
		rows += int64(n)
		if page.LastKey != nil {
			after = page.LastKey
		}
		if !more {
			break
		}
	}
	backfill := time.Since(start)
	snap.close(ctx) // the sweep needs no snapshot: let vacuum's horizon go
	var sweep gen.BuildSweepRow
	if _, err := s.buildTx(ctx, conn, int(maxRetries), func(tx pgx.Tx) (err error) {
		sweep, err = s.q.BuildSweep(ctx, tx, gen.BuildSweepParams{TableID: b.tableID, IndexID: b.indexID})
		return err
	}); err != nil {
		return fmt.Errorf("pgstore: index build: sweep: %w", err)
	}
	if sweep.Gone {
		return errBuildGone
	}
	ok, err := s.q.BuildActivate(ctx, conn, gen.BuildActivateParams{TableID: b.tableID, IndexID: b.indexID})
	if err != nil {
		return fmt.Errorf("pgstore: index build: activate: %w", err)
	}
	if !ok {
		return errBuildGone
	}
	log.InfoContext(ctx, "index build: ACTIVE", "rows", rows, "backfill", backfill,
		"rows_per_s", float64(rows)/max(backfill.Seconds(), 1e-6), "swept", sweep.Removed)
	return nil
}

// buildTx runs fn in one transaction on the build's connection, retrying
// deadlocks, serialization failures and lock timeouts up to maxRetries
// times with growing pauses; it returns the retries it made.
func (s *Store) buildTx(ctx context.Context, conn *pgx.Conn, maxRetries int, fn func(pgx.Tx) error) (int, error) {
	return buildRetry(ctx, maxRetries, func() error { return pgx.BeginFunc(ctx, conn, fn) })
}

// buildRetry runs one transaction (fn), retrying as buildTx describes.
func buildRetry(ctx context.Context, maxRetries int, fn func() error) (int, error) {
	for retries := 0; ; retries++ {
		err := fn()
		if err == nil {
			return retries, nil
		}
		if retries >= maxRetries || !(retryable(err) || isCode(err, codeLockNotAvailable)) {
			return retries, err
		}
		select {
		case <-ctx.Done():
			return retries, ctx.Err()
		case <-time.After(time.Duration(min(retries+1, 20)) * 10 * time.Millisecond):
		}
	}
}

// buildPage runs one page in its own transaction in one round trip: BEGIN,
// the page (with its progress, when it skipped no key) and COMMIT go as one
// pipeline, where pgx.BeginFunc would give BEGIN and COMMIT a round trip
// each.
func buildPage(ctx context.Context, conn *pgx.Conn, p gen.BuildPageParams) (page gen.BuildPageRow, err error) {
	b := &pgx.Batch{}
	b.Queue(gen.TxBegin)
	b.Queue(gen.BuildPage, p.TableID, p.IndexID, p.After, p.Keys, p.Retries)
	b.Queue(gen.TxCommit)
	br := conn.SendBatch(ctx, b)
	if _, err = br.Exec(); err == nil {
		err = br.QueryRow().Scan(&page.N, &page.LastKey, &page.Skipped, &page.Gone, &page.Recorded)
	}
	if err == nil {
		_, err = br.Exec()
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil && conn.PgConn().TxStatus() != 'I' {
		// The page failed inside its transaction: end it, so that a retry
		// (or the next build step) starts on an idle session.
		if _, rerr := conn.Exec(context.WithoutCancel(ctx), gen.TxRollback); rerr != nil {
			return page, fmt.Errorf("%w (rollback: %v)", err, rerr)
		}
	}
	return page, err
}

// buildHeartbeat stamps the build's heartbeat until ctx ends.
func (s *Store) buildHeartbeat(ctx context.Context, indexID int64) {
	tick := time.NewTicker(buildHeartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			_ = s.q.BuildHeartbeat(ctx, s.pool, gen.BuildHeartbeatParams{IndexID: indexID})
		}
	}
}
