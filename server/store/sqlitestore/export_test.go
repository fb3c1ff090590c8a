package sqlitestore

import "database/sql"

// OpenRaw opens a plain handle on a database file with the driver this
// build links, for tests that look at or damage what the store wrote.
func OpenRaw(dsn string, pragmas ...string) (*sql.DB, error) { return openDB(dsn, pragmas...) }
