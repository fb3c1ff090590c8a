package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dynamopg/dynamopg/server/store"
)

// SQLSTATEs pgstore reacts to.
const (
	codeUndefinedTable   = "42P01" // the table (or its storage) is gone
	codeUniqueViolation  = "23505"
	codeDeadlock         = "40P01"
	codeSerialization    = "40001"
	codeLockNotAvailable = "55P03" // lock_timeout
	codeStaleTable       = "DPG01" // table_def: the caller's catalog version is out of date
)

// catalogNameKey is the unique constraint on dynamopg.tables(name).
const catalogNameKey = "tables_name_key"

// interpretError maps database errors to store's sentinel errors, by
// SQLSTATE and constraint name, never by message text. Other errors pass
// through unchanged.
func interpretError(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ErrTableNotFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == codeUndefinedTable:
			return store.ErrTableNotFound
		case pgErr.Code == codeUniqueViolation && pgErr.ConstraintName == catalogNameKey:
			return store.ErrTableExists
		case pgErr.Code == codeLockNotAvailable:
			return store.ErrConflict
		case pgErr.Code == codeStaleTable:
			return store.ErrStaleTable
		}
	}
	return err
}

// retryable reports whether a transaction that failed with err may succeed
// when run again (a deadlock or serialization failure).
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == codeDeadlock || pgErr.Code == codeSerialization)
}

// wrap interprets err and adds the operation's context; store's sentinel
// errors are returned bare so that callers may compare them directly.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	e := interpretError(err)
	switch e {
	case store.ErrTableNotFound, store.ErrTableExists, store.ErrConflict, store.ErrStaleTable:
		return e
	}
	return fmt.Errorf("pgstore: %s: %w", op, e)
}

// cancelWait is how long a connection waits for PostgreSQL to answer a
// cancel request before it gives up on the statement and closes.
const cancelWait = time.Second

// cancelOnDone makes a statement on a pool connection whose context ends
// (the request's deadline, the client gone) be cancelled by PostgreSQL,
// not only abandoned. pgx's default closes the connection, and a statement
// waiting for a lock then runs on, and commits, once the lock is free: a
// write the client was told failed. With a cancel request the statement
// ends with SQLSTATE 57014 and its transaction rolls back, which tells the
// transport that nothing was applied (server/overload.go); if no answer
// comes within cancelWait the connection closes as before, and the outcome
// is unknown. Only the pool's connections: the workers' and the catalog
// listener's wait for notifications under a timeout, where a cancel
// request would find no statement and cost cancelWait each time.
func cancelOnDone(cfg *pgxpool.Config) {
	prev := cfg.BeforeConnect
	cfg.BeforeConnect = func(ctx context.Context, cc *pgx.ConnConfig) error {
		cc.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
			return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: cancelWait}
		}
		if prev != nil {
			return prev(ctx, cc)
		}
		return nil
	}
}
