// Package pgtest owns the PostgreSQL that tests run against: one server per
// process and a fresh database per URL call. The server is, in this order:
// DYNAMOPG_TEST_PG if set; a container of DYNAMOPG_TEST_PG_IMAGE
// (postgres:15-alpine by default, run with dockertest) when a Docker engine
// answers at DOCKER_HOST or the default socket; a throwaway cluster started
// with initdb from the local PostgreSQL binaries. A line on stderr (the test
// log, with -v) says which.
//
// In tests:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//	...
//	url := pgtest.URL(t) // a new database, dropped in t.Cleanup
//
// A non-test process (the e2e harness) calls Server for the server URL,
// CreateDatabase for a database of its own, and Stop before exiting.
//
// A test that stops PostgreSQL under traffic takes a cluster of its own:
//
//	cl := pgtest.NewCluster(t, "synchronous_commit=on") // removed in t.Cleanup
//	db, _, _ := pgtest.CreateDatabase(ctx, cl.URL())
//	cl.Stop("immediate") // or "fast"; then
//	cl.Start()           // same port and data directory
//
// Without a server: tests skip, unless CI=true, where they fail. Dedicated
// clusters always come from the local binaries.
package pgtest
