// Package buildorder makes a cold build of dynamopg compile SQLite first.
//
// cmd/go starts ready packages in the depth-first order of the main
// package's imports, which are sorted by path. modernc.org/libc and
// modernc.org/sqlite/lib (SQLite translated to Go) are the longest chain of
// the build, and reached through github.com/dynamopg/dynamopg/server/...,
// they started after almost everything else: the build ended with one core
// compiling them and the other idle. This package's path sorts before
// .../server, so main importing it puts that chain first. A replay of a
// cold build's action graph on 2 workers: 59.6 s -> 51.3 s (the work is
// 97.7 s, so 48.9 s is the floor). A -tags sqlite_cgo build puts
// github.com/mattn/go-sqlite3 (SQLite's C source through cgo) first instead
// (driver_cgo.go).
package buildorder
