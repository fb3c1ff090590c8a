package sqlitestore

import (
	"context"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// The table cache keeps the descriptions item operations read
// (TableGetCached), so that a request neither reads nor decodes the
// catalog's JSON: that was 14-22% of a PutItem or GetItem. What keeps it
// exact:
//
//   - Every description carries its catalog version (table_versions,
//     migration 008, advanced by storeDef in the transaction of every
//     change). An item write checks the version of the description it was
//     given in its write transaction (currentDef, item_get_checked), which
//     holds the database write lock, so no change can commit between the
//     check and the write's commit: a description that is out of date,
//     whichever process changed the table, fails with store.ErrStaleTable
//     before anything is written, and the API runs the request again on a
//     fresh one. A write never lands on a table generation it was not
//     validated against: a table deleted and created again has a new id
//     (AUTOINCREMENT), whose version row the old description cannot match.
//   - This process's own changes drop the entry after they commit
//     (storeDef and TableDelete call catalogChanged; inWrite forgets).
//     Every change also advances the catalog's epoch (catalog_epoch, in
//     its transaction), which a poller reads every catalogPoll: when it
//     moved (another process changed a table), the cache is emptied, so
//     another process's change reaches this cache by itself within about
//     catalogPoll, as pgstore's NOTIFY does. The cache serves only while
//     the poller runs, and a generation counter keeps a description read
//     while the cache was emptied from being stored.
//
// Reads are not version-checked, as on PostgreSQL: a read on an entry that
// another process's change has just made out of date reads the storage the
// entry names (ids are never reused, so it is that table's or gone), and
// fails with ErrTableNotFound (or the API's ValidationException for an
// index it lacks) when it is gone, which the API answers by dropping the
// entry and reading the catalog again.

// catalogPoll is how often the poller reads the catalog's epoch.
const catalogPoll = 100 * time.Millisecond

// startCatalogPoller starts the goroutine that empties the cache whenever
// the catalog's epoch moves, until stopCatalogPoller. The cache serves
// from the poller's first read on, and not after a failed one.
func (s *Store) startCatalogPoller() {
	ctx, cancel := context.WithCancel(context.Background())
	s.pollStop = cancel
	s.pollDone.Go(func() {
		defer s.tables.Reset(false)
		last, live := int64(0), false
		tick := time.NewTicker(catalogPoll)
		defer tick.Stop()
		for {
			epoch, err := queries.CatalogEpochGet(ctx, s.reader)
			switch {
			case ctx.Err() != nil:
				return
			case err != nil:
				if live {
					s.log.WarnContext(ctx, "sqlite store: table cache off: cannot read the catalog epoch", "err", err)
				}
				s.tables.Reset(false)
				live = false
			case !live || epoch != last:
				s.tables.Reset(true)
				last, live = epoch, true
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
}

// stopCatalogPoller stops the poller (Close, which may run twice).
func (s *Store) stopCatalogPoller() {
	if s.pollStop != nil {
		s.pollStop()
		s.pollDone.Wait()
	}
}

// TableGetCached returns a table's description for an item operation, from
// the cache when it holds it (cached), with its catalog version set. The
// caller must not modify it.
func (s *Store) TableGetCached(ctx context.Context, name string) (*store.Table, bool, error) {
	return s.tables.Get(ctx, name, s.TableGet)
}

// TableForget drops name's description from the cache.
func (s *Store) TableForget(name string) { s.tables.Forget(name) }

// catalogChanged records, inside a write transaction, that the table
// named name changes in it: inWrite drops its description from the cache
// once the transaction has ended (takeChanged, forgetChanged).
func (s *Store) catalogChanged(name string) {
	s.changed = append(s.changed, name)
}

// takeChanged returns and clears the names catalogChanged recorded in the
// open write transaction; inWrite calls it before Commit or Rollback,
// while no other transaction can run, and forgets them after.
func (s *Store) takeChanged() []string {
	c := s.changed
	s.changed = nil
	return c
}

// forgetChanged drops the descriptions of the tables a write transaction
// that has ended changed (or tried to).
func (s *Store) forgetChanged(names []string) {
	if len(names) > 0 {
		s.tables.Forget(names...)
	}
}
