package sqlitestore

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dynamopg/dynamopg/server/store"
)

// catalogNameKey is the UNIQUE constraint on tables(name) as a violation's
// message names it ("UNIQUE constraint failed: tables.name"): SQLite
// reports no constraint name apart from that text.
const catalogNameKey = "constraint failed: tables.name"

// SQLite's result codes (https://sqlite.org/rescode.html), the same in
// every driver (driver_*.go's resultCode).
const (
	codeBusy                 = 5
	codeLocked               = 6
	codeConstraintPrimaryKey = 19 | 6<<8
	codeConstraintUnique     = 19 | 8<<8
)

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
	code, ok := resultCode(err)
	if !ok || errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrTableExists) {
		return err
	}
	switch {
	case code&0xff == codeBusy, code&0xff == codeLocked:
		return fmt.Errorf("%w: %w", store.ErrConflict, err)
	case code == codeConstraintUnique || code == codeConstraintPrimaryKey:
		if strings.Contains(err.Error(), catalogNameKey) {
			return fmt.Errorf("%w: %w", store.ErrTableExists, err)
		}
	}
	return err
}
