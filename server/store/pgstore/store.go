package pgstore

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

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
	// Workers is the number of index queue workers (each with its own
	// connection, outside the pool); 0 starts none (another process drains
	// the queue). `dynamopg serve` runs backend.DefaultWorkers.
	Workers int
	// SweepInterval is the interval of the sweeper, which finishes tables
	// left DELETING and drops data tables no catalog row owns (drop.go); it
	// also runs once at Open. 0 starts no sweeper. `dynamopg serve` runs
	// it every backend.DefaultSweepInterval.
	SweepInterval time.Duration
	// Recovery starts the index build recovery worker, which looks for
	// CREATING indexes no build runs (build_recovery.go): a pass as soon as
	// Open starts it, then every recovery_interval_ms (a database setting,
	// default 60 s). `dynamopg serve` runs it.
	Recovery bool
	// ReadOnly opens a session for reports (`dynamopg status`): its
	// connections have default_transaction_read_only and a 30 s
	// statement_timeout, and Open starts no background work at all (no
	// queue workers, sweeper, recovery worker or catalog listener).
	ReadOnly bool
	// ApplicationName is the connections' application_name unless the URL
	// sets one; ApplicationName (the constant) when empty.
	ApplicationName string
	// ItemCollectionLimit is the item collection size limit in bytes on
	// tables with local secondary indexes (store/collections.go): 0 is the
	// service's 10 GB (store.DefaultCollectionLimit).
	ItemCollectionLimit int64
}

// Store is a store.Store on a PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
	q    *gen.Queries
	log  *slog.Logger

	// The queue workers Open started (see worker.go); Close stops them.
	stopWorkers context.CancelFunc
	// wake is the writers' signal to this process's workers (nil without
	// workers): a write that queued an item sends on it after its commit.
	wake chan struct{}
	// poll is the idle workers' wait, in ns (pollInterval; tests change it).
	poll    atomic.Int64
	workers sync.WaitGroup
	// queued counts this process's writes that queued an item; stepping
	// the workers not waiting; backlog says the last step claimed a full
	// batch (worker.go).
	queued   atomic.Uint64
	stepping atomic.Int32
	backlog  atomic.Bool

	// The sweeper Open started (see drop.go); Close stops it. sweepMu
	// serializes passes; orphansSeen holds the orphaned index tables the
	// last pass saw, orphanLockers the transactions that held a lock on
	// dynamopg.tables at the end of that pass (its catalog barrier).
	stopSweeper   context.CancelFunc
	sweeper       sync.WaitGroup
	sweepMu       sync.Mutex
	orphansSeen   map[string]bool
	orphanLockers []string

	// The online index builds and their recovery worker (build.go,
	// build_recovery.go); Close stops them.
	builds builds

	// The table cache and its catalog listener (tablecache.go); Close stops
	// the listener.
	tables       store.TableCache
	stopListener context.CancelFunc
	listener     sync.WaitGroup

	// reads and writes pipeline the item statements in flight at once:
	// ItemGet's and ItemQuery's, the optimistic writes' and the blind
	// writes' but those that queue for async indexes (coalesce.go).
	reads, writes coalescer
	// getStmts is ItemGet's statement text by table id (items.go), and
	// getManyStmts ItemGetMany's (transact.go).
	getStmts, getManyStmts sync.Map
	// readStmts is the Query and Scan statement texts by readShape (read.go).
	readStmts sync.Map
	// dataStmts and indexStmts are the writes' statement texts, by table id
	// and by index id (prepared.go).
	dataStmts  sync.Map
	indexStmts sync.Map
	// queueStmts is the queue workers' set-based statement texts, by table
	// id (queue_apply.go).
	queueStmts sync.Map
	// guardStmts is the optimistic write's statement text by table id, and
	// images the items it believes are there (guarded.go).
	guardStmts sync.Map
	images     itemImages
	flights    keyFlights // the optimistic writes in flight, by item (flights.go)

	// collLimit is Options.ItemCollectionLimit (collections.go).
	collLimit int64
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
		cfg.ConnConfig.RuntimeParams["application_name"] = cmp.Or(opts.ApplicationName, ApplicationName)
	}
	if opts.ReadOnly {
		cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = "30000"
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	cancelOnDone(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: open: %w", err)
	}
	s := New(pool, opts.Logger)
	s.collLimit = opts.ItemCollectionLimit
	if err := s.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if opts.ReadOnly {
		return s, nil
	}
	if opts.Migrate {
		if err := Migrate(ctx, pool); err != nil {
			pool.Close()
			return nil, err
		}
	}
	if opts.Workers > 0 {
		s.startWorkers(cfg.ConnConfig, opts.Workers)
	}
	if opts.SweepInterval > 0 {
		s.startSweeper(opts.SweepInterval)
	}
	if opts.Recovery {
		s.startRecovery()
	}
	s.startCatalogListener(cfg.ConnConfig)
	return s, nil
}

// New wraps a pool the caller configured (and closes with Close). The
// schema must be migrated already. It starts no queue workers.
func New(pool *pgxpool.Pool, log *slog.Logger) *Store {
	if log == nil {
		log = slog.Default()
	}
	s := &Store{pool: pool, q: gen.New(), log: log.With("component", "pgstore")}
	lanes := coalescerLanes(pool.Config().MaxConns)
	s.reads = coalescer{pool: pool, lanes: lanes, reads: true}
	s.writes = coalescer{pool: pool, lanes: lanes}
	s.builds.init()
	return s
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

// Close stops the queue workers and the sweeper (waiting for them) and
// closes the pool.
//
// The index builds stop first: their indexes stay CREATING, due at once for
// the recovery worker of this or another process.
func (s *Store) Close() {
	if s.stopListener != nil {
		s.stopListener()
		s.listener.Wait()
	}
	s.awaitBuildLocks(s.builds.stop())
	if s.stopSweeper != nil {
		s.stopSweeper()
		s.sweeper.Wait()
	}
	if s.stopWorkers != nil {
		s.stopWorkers()
		s.workers.Wait()
	}
	s.pool.Close()
}
