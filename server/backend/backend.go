// Package backend opens the database a --db URL names (PostgreSQL, a
// SQLite file or an in-memory SQLite database) and runs the background
// loops of server/store/maintain over it: what `dynamopg serve` and the
// embedded test server (package dynamopgtest) share.
package backend

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/dynamopg/dynamopg/server/api"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/maintain"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore"
)

// The intervals of the background passes that have no setting: the stream
// trim (records are kept store.StreamRetention) and the purge of forgotten
// transaction tokens.
const (
	StreamTrimInterval = time.Hour
	TokenPurgeInterval = time.Minute
)

// DefaultTTLInterval is how often the TTL sweeper runs unless told
// otherwise (serve's --ttl-interval).
const DefaultTTLInterval = 30 * time.Second

// The drivers' background work Open starts: the drivers start none unless
// told (their options are plain values, 0 = off), so these are the one
// place its defaults live.
const (
	// DefaultWorkers is the number of PostgreSQL index queue workers
	// (pgstore.Options.Workers).
	DefaultWorkers = 2
	// DefaultSweepInterval is the PostgreSQL sweeper's interval
	// (pgstore.Options.SweepInterval).
	DefaultSweepInterval = 30 * time.Second
	// DefaultQueueWorkers is the number of SQLite index queue workers
	// (sqlitestore.Options.QueueWorkers).
	DefaultQueueWorkers = 1
)

// Options configure Open.
type Options struct {
	// Migrate applies the PostgreSQL schema at open (SQLite's is always
	// applied).
	Migrate bool
	// MaxConns caps the PostgreSQL pool; 0 is pgxpool's default.
	MaxConns int32
	// ItemCollectionLimit is the item collection size limit in bytes on
	// tables with local secondary indexes; 0 is the service's 10 GB.
	ItemCollectionLimit int64
	// TTLInterval is the TTL sweeper's interval; 0 runs no sweeper.
	TTLInterval time.Duration
	// Logger receives the store's and the loops' records; slog.Default()
	// when nil.
	Logger *slog.Logger
}

// Backend is an open store with its background loops running.
type Backend struct {
	Store store.Store
	loops *maintain.Loops
}

// Open opens db: postgres:// or postgresql:// for PostgreSQL, sqlite:PATH
// for a SQLite file, memory for a private in-memory SQLite database. Close
// stops the loops and closes the store.
func Open(ctx context.Context, db string, opts Options) (*Backend, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	var (
		st  store.Store
		err error
	)
	switch {
	case strings.HasPrefix(db, "postgres://"), strings.HasPrefix(db, "postgresql://"):
		st, err = pgstore.Open(ctx, db, pgstore.Options{Migrate: opts.Migrate, Logger: log, MaxConns: opts.MaxConns,
			ItemCollectionLimit: opts.ItemCollectionLimit,
			Workers:             DefaultWorkers, SweepInterval: DefaultSweepInterval, Recovery: true})
	case strings.HasPrefix(db, "sqlite:"):
		st, err = sqlitestore.Open(ctx, strings.TrimPrefix(db, "sqlite:"), sqlitestore.Options{Logger: log,
			ItemCollectionLimit: opts.ItemCollectionLimit, QueueWorkers: DefaultQueueWorkers})
	case db == "memory":
		st, err = sqlitestore.Open(ctx, sqlitestore.MemoryDSN, sqlitestore.Options{Logger: log,
			ItemCollectionLimit: opts.ItemCollectionLimit, QueueWorkers: DefaultQueueWorkers})
	default:
		// Only the scheme: the rest may hold a password.
		scheme, _, _ := strings.Cut(db, ":")
		return nil, fmt.Errorf("database %q…: want postgres://…, sqlite:PATH or memory", scheme)
	}
	if err != nil {
		return nil, err
	}
	loops := maintain.Start(st, maintain.Options{
		StreamTrim: StreamTrimInterval,
		TTLSweep:   opts.TTLInterval,
		TokenPurge: TokenPurgeInterval,
		TokenTTL:   api.TxTokenTTL,
		Logger:     log,
	})
	return &Backend{Store: st, loops: loops}, nil
}

// Close stops the background loops, then closes the store.
func (b *Backend) Close() {
	b.loops.Stop()
	b.Store.Close()
}
