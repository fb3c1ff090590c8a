//go:build !sqlite_cgo

package buildorder

import _ "modernc.org/sqlite" // for its place in the build order only
