package sqlitestore

import (
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// resultCode returns the SQLite extended result code of err, or 0.
func resultCode(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return 0
}

// isUnique reports a UNIQUE or PRIMARY KEY constraint violation.
func isUnique(err error) bool {
	switch resultCode(err) {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return true
	}
	return false
}

// isBusy reports SQLITE_BUSY or SQLITE_LOCKED (any extended code): a lock
// that busy_timeout did not obtain.
func isBusy(err error) bool {
	switch resultCode(err) & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}
