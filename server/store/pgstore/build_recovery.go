package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dynamopg/dynamopg/gen"
)

// The recovery worker finishes the builds that no session runs: those a
// transient failure interrupted, and those a crash (kill -9) or a shutdown
// left CREATING. It makes a pass when Open starts it, then every recovery
// interval, and when dynamopg.index_recovery_run() notifies channel
// dynamopg_index_build. A pass lists the CREATING indexes whose build is due
// (index_builds.next_attempt_at: the backoff per index) and whose advisory
// lock is free, and starts their builds; the advisory lock makes one build
// per index run at a time across every server process.

// startRecovery starts the recovery worker; it reads the setting
// recovery_interval_ms before each wait.
func (s *Store) startRecovery() {
	s.builds.wg.Go(func() {
		ctx := s.builds.ctx
		for ctx.Err() == nil {
			err := s.recoverySession(ctx)
			if ctx.Err() != nil {
				return
			}
			s.log.WarnContext(ctx, "index recovery: connection lost, reconnecting", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(reconnectDelay):
			}
		}
	})
}

// recoverySession LISTENs on its own connection and makes passes until ctx
// ends or the connection fails.
func (s *Store) recoverySession(ctx context.Context) error {
	conn, err := s.buildConnect(ctx)
	if err != nil {
		return fmt.Errorf("pgstore: index recovery: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := s.q.BuildRecoveryListen(ctx, conn); err != nil {
		return fmt.Errorf("pgstore: index recovery: listen: %w", err)
	}
	for {
		if err := s.RecoveryPass(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "index recovery: pass failed", "err", err)
		}
		ms, err := s.q.BuildSettingInt(ctx, conn, gen.BuildSettingIntParams{Key: "recovery_interval_ms", Fallback: int32(defaultRecoveryInterval / time.Millisecond)})
		if err != nil {
			return err
		}
		wait := time.Duration(max(ms, 100)) * time.Millisecond
		wctx, cancel := context.WithTimeout(ctx, wait)
		_, err = conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err == nil, errors.Is(err, context.DeadlineExceeded):
		default:
			return fmt.Errorf("pgstore: index recovery: wait: %w", err)
		}
	}
}

// RecoveryPass starts the build of every CREATING index that is due and
// unowned (and forgets finished builds older than a week). Open's recovery
// worker calls it; tests may too.
func (s *Store) RecoveryPass(ctx context.Context) error {
	rows, err := s.q.BuildRecoveryDue(ctx, s.pool)
	if err != nil {
		return wrap("index recovery", err)
	}
	for _, r := range rows {
		if s.buildGo(buildTarget{tableID: r.TableID, tableName: r.TableName, indexID: r.IndexID, indexName: r.IndexName}) {
			s.log.InfoContext(ctx, "index recovery: resuming build", "table", r.TableName, "index", r.IndexName,
				"index_id", r.IndexID, "attempts", r.Attempts)
		}
	}
	if err := s.q.BuildPurge(ctx, s.pool, gen.BuildPurgeParams{Days: buildPurgeDays}); err != nil {
		return wrap("index recovery", err)
	}
	return nil
}

// buildLockWait bounds Close's wait for the build locks (awaitBuildLocks).
const buildLockWait = 2 * time.Second

// awaitBuildLocks waits, at most buildLockWait, until the database has
// released the advisory locks of the builds Close interrupted (ids). Their
// connections are closed, but a server process releases a session's locks
// only once it notices the disconnect: a store opened right after Close (a
// restart) would otherwise find the builds still locked at its first
// recovery pass and leave them for a whole recovery interval. Each lock is
// taken and released again on a pool connection to know it is free.
func (s *Store) awaitBuildLocks(ids []int64) {
	if len(ids) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), buildLockWait)
	defer cancel()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return
	}
	defer conn.Release()
	for _, id := range ids {
		for {
			locked, err := s.q.BuildLockTry(ctx, conn, gen.BuildLockTryParams{IndexID: id})
			if err != nil {
				conn.Conn().Close(ctx) // it may hold the lock: never back to the pool
				return
			}
			if locked {
				if err := s.q.BuildLockRelease(ctx, conn, gen.BuildLockReleaseParams{IndexID: id}); err != nil {
					conn.Conn().Close(ctx)
					return
				}
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}
