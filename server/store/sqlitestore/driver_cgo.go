//go:build sqlite_cgo

package sqlitestore

import (
	"context"
	"database/sql/driver"
	"errors"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// The SQLite driver of a `-tags sqlite_cgo` build: SQLite's C library
// through github.com/mattn/go-sqlite3 (cgo: needs a C compiler, and the
// first build compiles SQLite's amalgamation). See driver_modernc.go.

// DriverName names the SQLite driver this binary links.
const DriverName = "github.com/mattn/go-sqlite3 (cgo)"

// newConnector opens connections on dsn. mattn's driver has no
// connector of its own; its DSN takes _txlock as modernc's does.
func newConnector(dsn string) (driver.Connector, error) {
	return dsnConnector{dsn: dsn}, nil
}

type dsnConnector struct{ dsn string }

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) {
	return (&sqlite3.SQLiteDriver{}).Open(c.dsn)
}

func (c dsnConnector) Driver() driver.Driver { return &sqlite3.SQLiteDriver{} }

// resultCode is err's SQLite extended result code, if it is an SQLite error.
func resultCode(err error) (int, bool) {
	var e sqlite3.Error
	if !errors.As(err, &e) {
		return 0, false
	}
	return int(e.ExtendedCode), true
}
