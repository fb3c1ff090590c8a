// Package pgtest owns the PostgreSQL that tests run against: one server per
// process (DYNAMOPG_TEST_PG, or a throwaway cluster started from the local
// PostgreSQL binaries) and a fresh database per URL call.
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
// Without a server: tests skip, unless CI=true, where they fail. Docker
// (dockertest) is not implemented.
package pgtest
