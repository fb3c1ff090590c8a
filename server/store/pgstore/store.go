package pgstore

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/store"
)

// ApplicationName is the application_name of pgstore's connections unless
// the URL sets one.
const ApplicationName = "dynamopg"

// Options configure Open.
type Options struct {
	// Migrate applies the migrations and installs the functions before use.
	Migrate bool
	// Logger receives retries and slow paths; slog.Default() when nil.
	Logger *slog.Logger
	// MaxConns caps the pool (pgxpool's default when 0).
	MaxConns int32
}

// Store is a store.Store on a PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
	q    *gen.Queries
	log  *slog.Logger
}

var _ store.Store = (*Store)(nil)

// Open connects to the database at url (a libpq URL or DSN) and, with
// opts.Migrate, brings its schema up to date.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgstore: open: %w", err)
	}
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = ApplicationName
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: open: %w", err)
	}
	s := New(pool, opts.Logger)
	if err := s.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if opts.Migrate {
		if err := Migrate(ctx, pool); err != nil {
			pool.Close()
			return nil, err
		}
	}
	return s, nil
}

// New wraps a pool the caller configured (and closes with Close). The
// schema must be migrated already.
func New(pool *pgxpool.Pool, log *slog.Logger) *Store {
	if log == nil {
		log = slog.Default()
	}
	return &Store{pool: pool, q: gen.New(), log: log.With("component", "pgstore")}
}

// Pool returns the underlying pool (for tests and diagnostics).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Ping answers when the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("pgstore: ping: %w", err)
	}
	return nil
}

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }
