//go:build sqlite_cgo

package buildorder

import _ "github.com/mattn/go-sqlite3" // for its place in the build order only
