package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
)

// PoolStats reports database/sql's numbers of the writer connection and, for
// a file database, of the reader pool (sql.DBStats).
func (s *Store) PoolStats() map[string]float64 {
	out := map[string]float64{}
	add := func(prefix string, db *sql.DB) {
		st := db.Stats()
		out[prefix+"max_conns"] = float64(st.MaxOpenConnections)
		out[prefix+"total_conns"] = float64(st.OpenConnections)
		out[prefix+"acquired_conns"] = float64(st.InUse)
		out[prefix+"idle_conns"] = float64(st.Idle)
		out[prefix+"waits_total"] = float64(st.WaitCount)
		out[prefix+"wait_seconds_total"] = st.WaitDuration.Seconds()
	}
	add("writer_", s.writer)
	if s.reader != nil && s.reader != s.writer {
		add("reader_", s.reader)
	}
	return out
}

// SchemaCurrent compares the file's user_version with this build's schema.
func (s *Store) SchemaCurrent(ctx context.Context) error {
	var v int
	if err := s.reader.QueryRowContext(ctx, s.stmts.get("user_version_get", stmtVars{})).Scan(&v); err != nil {
		return fmt.Errorf("sqlitestore: schema version: %w", interpretError(err))
	}
	if v != schemaVersion {
		return fmt.Errorf("sqlitestore: schema version %d, this build expects %d", v, schemaVersion)
	}
	return nil
}
