package sqlitestore

import (
	"errors"
	"fmt"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/dynamopg/dynamopg/server/store"
)

// catalogNameKey is the UNIQUE constraint on tables(name) as a violation's
// message names it ("UNIQUE constraint failed: tables.name"): SQLite
// reports no constraint name apart from that text.
const catalogNameKey = "constraint failed: tables.name"

// interpretError maps SQLite errors to store's sentinel errors, by result
// code: SQLITE_BUSY or SQLITE_LOCKED (a lock that busy_timeout did not
// obtain) is ErrConflict, and a UNIQUE violation of the catalog's table
// names is ErrTableExists. The result wraps the sentinel and err, so that
// errors.Is finds the one and the message keeps the other. Other errors,
// and errors already interpreted, pass through unchanged.
//
// A table or index whose storage is gone has no result code of its own
// (SQLITE_ERROR, "no such table"): explain decides that from the catalog.
func interpretError(err error) error {
	var e *sqlite.Error
	if !errors.As(err, &e) || errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrTableExists) {
		return err
	}
	switch code := e.Code(); {
	case code&0xff == sqlite3.SQLITE_BUSY, code&0xff == sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("%w: %w", store.ErrConflict, err)
	case code == sqlite3.SQLITE_CONSTRAINT_UNIQUE || code == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		if strings.Contains(e.Error(), catalogNameKey) {
			return fmt.Errorf("%w: %w", store.ErrTableExists, err)
		}
	}
	return err
}
