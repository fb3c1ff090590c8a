package store

import "context"

// PoolStatser is implemented by stores that expose their database pool's
// numbers (for GET /metrics). Keys are short snake_case names such as
// "acquired_conns", "max_conns", "wait_count", "wait_seconds_total"; a key
// ending in "_total" is a counter, any other a gauge.
type PoolStatser interface {
	PoolStats() map[string]float64
}

// SchemaChecker is implemented by stores that can tell whether the database
// schema is the one this build expects (for GET /ready). It returns nil when
// the schema is current.
type SchemaChecker interface {
	SchemaCurrent(ctx context.Context) error
}
