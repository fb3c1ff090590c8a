//go:build !sqlite_cgo

package sqlitestore

import (
	"database/sql/driver"
	"errors"

	"modernc.org/sqlite"
)

// The SQLite driver of a default build: modernc.org/sqlite, SQLite
// translated to Go, so the binary needs no C compiler and builds with
// CGO_ENABLED=0. `-tags sqlite_cgo` links the C library through
// github.com/mattn/go-sqlite3 instead (driver_cgo.go); docs/performance.md
// ("The SQLite driver") has the figures of both.

// DriverName names the SQLite driver this binary links.
const DriverName = "modernc.org/sqlite"

// newConnector opens connections on dsn (a path or a file: URI with
// SQLite's own parameters and _txlock).
func newConnector(dsn string) (driver.Connector, error) {
	return sqlite.NewConnector(dsn)
}

// resultCode is err's SQLite extended result code, if it is an SQLite error.
func resultCode(err error) (int, bool) {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return 0, false
	}
	return e.Code(), true
}
