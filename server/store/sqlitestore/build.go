package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// The online build of a global secondary index (store.IndexBuilds).
//
// TableUpdate commits the index to the catalog as CREATING together with its
// empty storage. The build then backfills it in pages: each page is one
// short write transaction under the single writer that re-reads the catalog
// definition (and stops when the index is gone or no longer CREATING),
// writes the current projected state of the next buildPage items in
// base-key order into the index (delete by base key, insert when
// indexable), and commits. Between pages the writer is released, so client
// writes, the queue workers and TableUpdate interleave with the build; the
// longest any of them waits on it is one page.
//
// No barrier is needed, unlike PostgreSQL's: every write (ItemWrite,
// ItemTransact, the queue apply, TableUpdate, TableDelete) holds the single
// writer (BEGIN IMMEDIATE) and reads the catalog inside that transaction. A
// write that commits after the CREATING row therefore sees the index and
// maintains it (sync in the transaction, async by enqueueing the item); a
// write that committed before it finished before the index existed, and its
// result is in the table, where a later page reads it. There is no write
// "in flight" across the catalog commit.
//
// No final sweep of index rows whose item is gone is needed either: an
// index row for base key K is only ever written, under the writer, by a
// write or queue apply or page that saw K present and indexable at that
// moment; every later write to K sees the index and removes K's row by base
// key (the sync path whenever K existed before the write, which it did; the
// queue apply always), and the index's storage was created empty in the
// catalog's transaction. So no write can leave a row behind its item, and a
// page, which rewrites K from K's state at the page's commit, cannot either.
//
// A build stops when the store closes (the index stays CREATING) and Open
// starts the build of every CREATING index again; pages are idempotent.
// Transient failures (a busy database, a failed statement) retry the page
// with backoff. An item that cannot be decoded is a permanent failure: the
// index is removed while it is still CREATING and the reason logged.

// defaultBuildPage is the number of items a build page indexes.
const defaultBuildPage = 256

// builds tracks the running builds of this process.
type builds struct {
	mu      sync.Mutex
	ctx     context.Context // ends at Close
	stop    context.CancelFunc
	running map[int64]bool // index id -> a build goroutine runs
	wg      sync.WaitGroup
}

// errUnindexable marks a build failure that would recur on retry.
var errUnindexable = errors.New("item cannot be indexed")

// IndexBuildStart starts the build of a CREATING index of t and returns at
// once. An index that is not CREATING (already built, or gone) needs none.
func (s *Store) IndexBuildStart(ctx context.Context, t *store.Table, indexName string) error {
	cur, err := catalogByID(ctx, s.reader, t.ID)
	if err != nil {
		return fmt.Errorf("index build of %q: %w", t.Name, err)
	}
	ix := cur.Index(indexName)
	if ix == nil {
		return fmt.Errorf("index build of %q index %q: %w", t.Name, indexName, store.ErrTableNotFound)
	}
	if ix.Status != store.StatusCreating {
		return nil
	}
	s.startBuild(cur.ID, ix.ID, cur.Name, ix.Name)
	return nil
}

// startBuild runs the build of one index unless this process runs it already.
func (s *Store) startBuild(tableID, indexID int64, table, index string) {
	b := &s.builds
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ctx == nil || b.ctx.Err() != nil || b.running[indexID] {
		return // closing, or running
	}
	b.running[indexID] = true
	b.wg.Go(func() {
		defer func() {
			b.mu.Lock()
			delete(b.running, indexID)
			b.mu.Unlock()
		}()
		s.runBuild(b.ctx, tableID, indexID, table, index)
	})
}

// startBuilds prepares the build registry and starts the build of every
// CREATING index in the catalog: those a crash or a Close left behind.
func (s *Store) startBuilds(ctx context.Context) error {
	b := &s.builds
	b.ctx, b.stop = context.WithCancel(context.Background())
	b.running = map[int64]bool{}
	raws, err := queries.TableDefs(ctx, s.reader)
	if err != nil {
		return fmt.Errorf("find index builds: %w", err)
	}
	var defs []*store.Table
	for _, raw := range raws {
		t, err := decodeDef(raw, 0)
		if err != nil {
			return fmt.Errorf("find index builds: %w", err)
		}
		defs = append(defs, t)
	}
	for _, t := range defs {
		for _, ix := range t.Indexes {
			if ix.Status == store.StatusCreating {
				s.log.InfoContext(ctx, "sqlite store: resuming index build", "table", t.Name, "index", ix.Name)
				s.startBuild(t.ID, ix.ID, t.Name, ix.Name)
			}
		}
	}
	return nil
}

// stopBuilds stops the running builds (their indexes stay CREATING) and
// waits for them.
func (s *Store) stopBuilds() {
	b := &s.builds
	b.mu.Lock()
	stop := b.stop
	b.mu.Unlock()
	if stop != nil {
		stop()
		b.wg.Wait()
	}
}

// runBuild backfills one index page by page and publishes it, retrying
// transient failures with backoff until ctx ends.
func (s *Store) runBuild(ctx context.Context, tableID, indexID int64, table, index string) {
	log := s.log.With("table", table, "index", index)
	start := time.Now()
	var after *rowKey // the last base key done; nil before the first page
	var rows, pages int
	backoff := 50 * time.Millisecond
	s.buildStats.started(indexID, table, index, s.buildTableRows(ctx, tableID))
	for {
		var n int
		var last *rowKey
		var done bool
		var held time.Time // when the page got the writer
		err := s.inWrite(ctx, func(tx *sql.Tx) error {
			held = time.Now()
			var err error
			n, last, done, err = s.buildOnePage(ctx, tx, tableID, indexID, after, s.buildPage)
			return err
		})
		switch {
		case err == nil:
			backoff = 50 * time.Millisecond
			rows += n
			pages++
			s.buildStats.rows(indexID, int64(rows))
			if last != nil {
				after = last
			}
			if done {
				s.buildStats.ended(indexID, s.buildOutcome(ctx, tableID, indexID))
				log.Info("sqlite store: index build ended", "rows", rows, "pages", pages, "took", time.Since(start))
				return
			}
			// Leave the writer to the others for as long as the page held
			// it: the writer's pool hands the connection to a random
			// waiter, so without a pause the build would take every other
			// turn and each write would wait a page.
			select {
			case <-ctx.Done():
			case <-time.After(time.Since(held)):
			}
			continue
		case ctx.Err() != nil:
			s.buildStats.ended(indexID, "")
			log.Info("sqlite store: index build stopped; it resumes at the next Open", "rows", rows)
			return
		case errors.Is(err, errUnindexable):
			log.Error("sqlite store: index build failed; removing the index", "err", err)
			s.buildStats.ended(indexID, "failed")
			if err := s.inWrite(ctx, func(tx *sql.Tx) error {
				return s.abandonIndex(ctx, tx, tableID, indexID)
			}); err != nil && ctx.Err() == nil {
				log.Error("sqlite store: remove failed index", "err", err)
			}
			return
		}
		log.Warn("sqlite store: index build page failed; retrying", "err", err, "after", backoff)
		select {
		case <-ctx.Done():
			s.buildStats.ended(indexID, "")
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// buildOnePage is one page of a build, in the write transaction tx. It reads
// the current definition; if the index is gone or no longer CREATING it
// reports done. The first page sets Backfilling; a page that finds no more
// items flips the index to ACTIVE and clears Backfilling. Otherwise it
// writes the current state of up to page items after `after` (base-key
// order) into the index and returns the last key it did.
func (s *Store) buildOnePage(ctx context.Context, tx *sql.Tx, tableID, indexID int64, after *rowKey, page int) (n int, last *rowKey, done bool, err error) {
	def, err := catalogByID(ctx, tx, tableID)
	if errors.Is(err, store.ErrTableNotFound) {
		return 0, nil, true, nil
	}
	if err != nil {
		return 0, nil, false, err
	}
	ix := indexByID(def, indexID)
	if ix == nil || ix.Status != store.StatusCreating {
		return 0, nil, true, nil
	}
	if !ix.Backfilling {
		ix.Backfilling = true
		if err := s.storeDef(ctx, tx, def); err != nil {
			return 0, nil, false, err
		}
	}
	got, err := s.itemPage(ctx, tx, tableID, after, page)
	if err != nil {
		return 0, nil, false, fmt.Errorf("backfill %q index %q: %w", def.Name, ix.Name, err)
	}
	for _, r := range got {
		it, err := decodeItem(r.raw)
		if err != nil {
			return 0, nil, false, fmt.Errorf("backfill %q index %q: %w: %w", def.Name, ix.Name, errUnindexable, err)
		}
		if err := s.indexRow(ctx, tx, def, ix, r.k, true, it); err != nil {
			return 0, nil, false, fmt.Errorf("backfill %q index %q: %w", def.Name, ix.Name, err)
		}
	}
	if len(got) > 0 {
		k := got[len(got)-1].k
		last = &k
	}
	if len(got) < page {
		ix.Status = store.StatusActive
		ix.Backfilling = false
		if err := s.storeDef(ctx, tx, def); err != nil {
			return 0, nil, false, err
		}
		return len(got), last, true, nil
	}
	return len(got), last, false, nil
}

// abandonIndex removes a failed index from its table, only while it is still
// CREATING, and drops its storage.
func (s *Store) abandonIndex(ctx context.Context, tx *sql.Tx, tableID, indexID int64) error {
	def, err := catalogByID(ctx, tx, tableID)
	if errors.Is(err, store.ErrTableNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	ix := indexByID(def, indexID)
	if ix == nil || ix.Status != store.StatusCreating {
		return nil
	}
	kept := def.Indexes[:0:0]
	for _, other := range def.Indexes {
		if other.ID != indexID {
			kept = append(kept, other)
		}
	}
	def.Indexes = kept
	pruneDefinitions(def)
	if err := s.dropIndexTable(ctx, tx, indexID); err != nil {
		return err
	}
	return s.storeDef(ctx, tx, def)
}

// pruneDefinitions drops attribute definitions no key of the table or of its
// indexes uses.
func pruneDefinitions(t *store.Table) {
	used := map[string]bool{}
	for _, k := range append([]*store.KeyAttr{&t.Hash, t.Range}, indexKeys(t)...) {
		if k != nil {
			used[k.Name] = true
		}
	}
	kept := t.AttributeDefinitions[:0:0]
	for _, d := range t.AttributeDefinitions {
		if used[d.Name] {
			kept = append(kept, d)
		}
	}
	t.AttributeDefinitions = kept
}

func indexKeys(t *store.Table) []*store.KeyAttr {
	var out []*store.KeyAttr
	for i := range t.Indexes {
		for _, k := range t.Indexes[i].KeyAttrs() {
			out = append(out, &k)
		}
	}
	return out
}
