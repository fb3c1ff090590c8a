package pgstore

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

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
