package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dynamopg/dynamopg/server/store"
)

// Options configure Open.
type Options struct {
	// Logger receives the store's log records; nil discards them.
	Logger *slog.Logger
	// BusyTimeoutMillis is how long a connection waits for a lock held by
	// another connection (or process) before failing; 0 means 5000.
	BusyTimeoutMillis int
	// MaxReaders caps the read pool of a file database; 0 means 8.
	MaxReaders int
	// QueueWorkers is the number of goroutines applying the asynchronous
	// index queue; 0 starts none: QueueWait then applies the queue itself.
	// Workers apply under the single writer, so more than one rarely helps
	// (`dynamopg serve` runs backend.DefaultQueueWorkers).
	QueueWorkers int
	// BuildPageSize is how many items one page of an online index build
	// indexes in one write transaction (build.go); 0 means 256.
	BuildPageSize int
	// ReadOnly opens an existing file for reports (`dynamopg status`): no
	// migration (its schema must be current), no writer, no queue workers,
	// no builds resumed. Writes fail.
	ReadOnly bool
	// ItemCollectionLimit is the item collection size limit in bytes on
	// tables with local secondary indexes (store/collections.go): 0 is the
	// service's 10 GB (store.DefaultCollectionLimit).
	ItemCollectionLimit int64
}

// Store is the SQLite store. It is safe for concurrent use.
type Store struct {
	log *slog.Logger
	// writer has exactly one connection whose transactions begin with BEGIN
	// IMMEDIATE: every write of the process goes through it, one at a time.
	writer *sql.DB
	// reader is the read pool. For an in-memory database it is writer.
	reader *sql.DB

	// The asynchronous index queue (queue.go, worker.go).
	workers  int           // how many run; 0 when disabled
	enqueued atomic.Bool   // the open write transaction enqueued a row
	wake     chan struct{} // capacity 1: a pending wake-up of the workers
	progress notifier      // broadcast after every applied batch
	stop     context.CancelFunc
	done     sync.WaitGroup

	// The online index builds (build.go).
	builds     builds
	buildPage  int
	buildStats buildStats // their progress, for Status

	// The group committer of item writes (group.go).
	groups writeGroups

	// stmts are the rendered per-table statements (template.go).
	stmts stmts

	// tables are the descriptions item operations use (tablecache.go);
	// changed names the tables the open write transaction changes.
	tables   store.TableCache
	changed  []string
	pollStop context.CancelFunc // the table cache's poller (tablecache.go)
	pollDone sync.WaitGroup

	// collLimit is Options.ItemCollectionLimit (collections.go).
	collLimit int64
}

var _ store.Store = (*Store)(nil)

// MemoryDSN opens a private in-memory database.
const MemoryDSN = ":memory:"

// Open opens (creating if needed) the database at dsn, a file path or
// ":memory:", and applies the catalog schema.
//
// A file database runs in WAL mode with synchronous=NORMAL: one write
// connection and a pool of readers. An in-memory database lives in one
// connection (SQLite's :memory: is private to its connection), used for reads
// and writes alike, so it behaves as a file would, only without concurrent
// readers.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	busy := opts.BusyTimeoutMillis
	if busy <= 0 {
		busy = 5000
	}
	readers := opts.MaxReaders
	if readers <= 0 {
		readers = 8
	}
	if dsn == "" {
		return nil, errors.New("sqlitestore: empty dsn")
	}
	if opts.ReadOnly {
		return openReadOnly(ctx, dsn, busy, log)
	}
	s := &Store{log: log, wake: make(chan struct{}, 1), buildPage: opts.BuildPageSize, collLimit: opts.ItemCollectionLimit}
	if s.buildPage <= 0 {
		s.buildPage = defaultBuildPage
	}
	s.workers = max(opts.QueueWorkers, 0)

	memory := dsn == MemoryDSN
	pragmas := []string{fmt.Sprintf("busy_timeout = %d", busy), "synchronous = NORMAL"}
	if !memory {
		pragmas = append(pragmas, "journal_mode = WAL", mmapPragma, walAutoCheckpointPragma)
	}
	writer, err := openDB(withParams(dsn, "_txlock=immediate"), pragmas...)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: open %s: %w", dsn, err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	writer.SetConnMaxIdleTime(0)
	s.writer = writer
	s.reader = writer

	if err := migrate(ctx, writer, &s.stmts); err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlitestore: %s: %w", dsn, err)
	}

	if !memory {
		// Readers never write: query_only makes an accidental write fail
		// instead of racing the writer.
		reader, err := openDB(dsn, fmt.Sprintf("busy_timeout = %d", busy), "query_only = 1", mmapPragma)
		if err != nil {
			writer.Close()
			return nil, fmt.Errorf("sqlitestore: open readers %s: %w", dsn, err)
		}
		reader.SetMaxOpenConns(readers)
		reader.SetMaxIdleConns(readers)
		s.reader = reader
	}
	if err := s.Ping(ctx); err != nil {
		s.Close()
		return nil, err
	}
	s.startWorkers()
	s.startCatalogPoller()
	// Builds a crash or a Close left CREATING are finished now.
	if err := s.startBuilds(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlitestore: %s: %w", dsn, err)
	}
	log.InfoContext(ctx, "sqlite store open", "dsn", dsn, "memory", memory, "driver", DriverName, "queueWorkers", s.workers)
	return s, nil
}

// mmapPragma maps up to 256 MiB of a file database into memory: its pages
// are then read without a pread system call each (a connection's own page
// cache is 2 MB, and a WAL reader's is emptied whenever another connection
// has committed, so most page reads of a GetItem were system calls).
// Pages still in the WAL are read from it as before, and writes are
// unchanged (SQLite writes through write(2), never through the map), so
// durability is what it was.
const mmapPragma = "mmap_size = 268435456"

// walAutoCheckpointPragma lets the WAL grow to 10,000 pages (40 MiB)
// before the commit that reaches it checkpoints, where SQLite's default is
// 1,000. The checkpoint runs in the writer, so every write queued behind
// it waits for the copy of the WAL into the database file and its two
// fsyncs: at 16 clients on one CPU (dynamobench, a write dirtying ~3
// pages) that was a checkpoint every ~0.1 s and the SQLite mode's write
// p99 (12-21 ms against a p50 of 1.3). At 10,000 pages a checkpoint is
// rarer and copies each page once however often the window rewrote it:
// p99 3.1-4.3 ms, throughput 5-30% up. 4,000 pages gave a p99 of 5-6 ms;
// a checkpointer goroutine on its own connection (PASSIVE, every 10 or
// 100 ms) kept the p99 at 8-17 ms, its copies and fsyncs stalling the
// writer's appends as much. After a checkpoint that copied every frame the
// next write starts the WAL over (once no reader still needs it), so it
// stays near 40 MiB, and recovery after a crash replays about that.
const walAutoCheckpointPragma = "wal_autocheckpoint = 10000"

// openReadOnly opens the file at dsn with one read-only handle that
// serves as reader and writer.
func openReadOnly(ctx context.Context, dsn string, busy int, log *slog.Logger) (*Store, error) {
	if dsn == MemoryDSN {
		return nil, errors.New("sqlitestore: a private in-memory database cannot be opened read-only")
	}
	db, err := openDB(withParams("file:"+dsn, "mode=ro"), fmt.Sprintf("busy_timeout = %d", busy), "query_only = 1")
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: open %s read-only: %w", dsn, err)
	}
	s := &Store{log: log, wake: make(chan struct{}, 1), writer: db, reader: db}
	if err := s.SchemaCurrent(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlitestore: %s: %w (is this a dynamopg SQLite file?)", dsn, err)
	}
	return s, nil
}

// withParams appends DSN query parameters to a path that may already have some.
func withParams(dsn, params string) string {
	if strings.Contains(dsn, "?") {
		return dsn + "&" + params
	}
	return dsn + "?" + params
}

// Ping answers when both handles answer.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.writer.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlitestore: ping writer: %w", err)
	}
	if s.reader != s.writer {
		if _, err := queries.Ping(ctx, s.reader); err != nil {
			return fmt.Errorf("sqlitestore: ping reader: %w", err)
		}
	}
	return nil
}

// Close stops the index builds (their indexes stay CREATING and resume at
// the next Open) and the queue workers (rows they did not apply stay queued
// for the next Open), and releases the database handles.
func (s *Store) Close() {
	s.stopGroups()
	s.stopBuilds()
	s.stopWorkers()
	s.stopCatalogPoller()
	if s.reader != s.writer {
		if err := s.reader.Close(); err != nil {
			s.log.Warn("sqlite store: close readers", "err", err)
		}
	}
	if err := s.writer.Close(); err != nil {
		s.log.Warn("sqlite store: close writer", "err", err)
	}
}
