package pgstore

import (
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/dynamopg/dynamopg"
)

// PoolStats reports the pgxpool's numbers (pgxpool.Stat).
func (s *Store) PoolStats() map[string]float64 {
	st := s.pool.Stat()
	return map[string]float64{
		"acquired_conns":               float64(st.AcquiredConns()),
		"idle_conns":                   float64(st.IdleConns()),
		"constructing_conns":           float64(st.ConstructingConns()),
		"total_conns":                  float64(st.TotalConns()),
		"max_conns":                    float64(st.MaxConns()),
		"acquires_total":               float64(st.AcquireCount()),
		"acquire_seconds_total":        st.AcquireDuration().Seconds(),
		"waits_total":                  float64(st.EmptyAcquireCount()),
		"wait_seconds_total":           st.EmptyAcquireWaitTime().Seconds(),
		"canceled_acquires_total":      float64(st.CanceledAcquireCount()),
		"new_conns_total":              float64(st.NewConnsCount()),
		"max_lifetime_destroys_total":  float64(st.MaxLifetimeDestroyCount()),
		"max_idle_time_destroys_total": float64(st.MaxIdleDestroyCount()),
	}
}

// SchemaCurrent compares the database's tern version with the newest
// migration this build embeds.
func (s *Store) SchemaCurrent(ctx context.Context) error {
	want, err := embeddedSchemaVersion()
	if err != nil {
		return err
	}
	var got int
	if err := s.pool.QueryRow(ctx, "SELECT version FROM "+versionTable).Scan(&got); err != nil {
		return fmt.Errorf("pgstore: schema version: %w", err)
	}
	if got != want {
		return fmt.Errorf("pgstore: schema version %d, this build expects %d (run dynamopg migrate)", got, want)
	}
	return nil
}

// embeddedSchemaVersion is the highest NNN of migrations/NNN_*.sql.
func embeddedSchemaVersion() (int, error) {
	entries, err := fs.ReadDir(dynamopg.Migrations, "migrations")
	if err != nil {
		return 0, fmt.Errorf("pgstore: migrations: %w", err)
	}
	max := 0
	for _, e := range entries {
		name := e.Name()
		i := strings.IndexByte(name, '_')
		if i <= 0 {
			continue
		}
		if n, err := strconv.Atoi(name[:i]); err == nil && n > max {
			max = n
		}
	}
	return max, nil
}
