package pgstore

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/store"
)

// ddlLockTimeout bounds how long TableUpdate and TableDelete wait for the
// locks of DDL on data tables (readers in flight); they then fail with
// store.ErrConflict rather than queue every later request behind them.
const ddlLockTimeout = "5s"

// TableCreate assigns t.ID and the IDs of its indexes, stores the catalog row
// and creates the storage, in one transaction; it sets t.Version to the new
// row's catalog version, so that t can be written through at once.
func (s *Store) TableCreate(ctx context.Context, t *store.Table) error {
	c := *t
	c.Indexes = slices.Clone(t.Indexes)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		id, err := s.q.TableIDNext(ctx, tx)
		if err != nil {
			return err
		}
		c.ID = id
		for i := range c.Indexes {
			if c.Indexes[i].ID, err = s.q.IndexIDNext(ctx, tx); err != nil {
				return err
			}
		}
		def, err := encodeTable(&c)
		if err != nil {
			return err
		}
		if c.Version, err = s.q.TableInsert(ctx, tx, gen.TableInsertParams{ID: c.ID, Name: c.Name, Status: c.Status, Def: def}); err != nil {
			return err
		}
		return s.q.TableStorageCreate(ctx, tx, gen.TableStorageCreateParams{TableID: c.ID})
	})
	if err != nil {
		return wrap("table create", err)
	}
	t.ID = c.ID
	t.Version = c.Version
	t.Indexes = c.Indexes
	return nil
}

// TableGet reads a table's description by name, with its catalog version
// (Table.Version): an item write given it fails with store.ErrStaleTable,
// writing nothing, once the catalog has moved on, and the caller reads the
// table again.
func (s *Store) TableGet(ctx context.Context, name string) (*store.Table, error) {
	row, err := s.q.TableGet(ctx, s.pool, gen.TableGetParams{Name: name})
	if err != nil {
		return nil, wrap("table get", err)
	}
	t, err := decodeTable(row.Def)
	if err != nil {
		return nil, err
	}
	t.Version = row.Version
	return t, nil
}

// TableList returns up to limit table names in byte order after `after`.
func (s *Store) TableList(ctx context.Context, after string, limit int) ([]string, error) {
	if limit <= 0 || limit > math.MaxInt32 {
		limit = math.MaxInt32
	}
	names, err := s.q.TableList(ctx, s.pool, gen.TableListParams{After: after, MaxNames: int32(limit)})
	if err != nil {
		return nil, wrap("table list", err)
	}
	return names, nil
}

// TableUpdate locks the catalog row FOR NO KEY UPDATE, lets fn change the
// description, stores it and creates the storage of added indexes, in one
// transaction; then it drops the storage of removed indexes in the
// background. fn must not change the table's ID or name; new indexes get
// IDs here. The description it returns carries the new catalog version. A
// DELETING table is store.ErrTableNotFound.
//
// The row lock conflicts with other catalog changes (TableUpdate,
// DeleteTable's mark, a build's index removal), not with item writes, which
// read the row without locking it, nor with the queue's FOR KEY SHARE:
// TableUpdate never waits for writes and writes never wait for it
// (docs/index-build.md). It waits at
// most catalog_lock_timeout_ms (a setting), then it is store.ErrConflict.
// The barrier that waits out the writes that read the old definition runs
// after the commit, blocking nobody: in the build of an added index (its
// "barrier" phase), and before the deferred drop of a removed index's
// storage, so that a write still about to write to it does not fail.
// A deadlock is retried, so fn may run more than once.
func (s *Store) TableUpdate(ctx context.Context, name string, fn func(t *store.Table) error) (*store.Table, error) {
	for attempt := 1; ; attempt++ {
		t, removed, fnErr, err := s.tableUpdateOnce(ctx, name, fn)
		if fnErr != nil {
			return nil, fnErr
		}
		if err == nil {
			s.tables.Forget(name)
			s.dropIndexesDeferred(name, removed)
			return t, nil
		}
		if !retryable(err) || attempt >= 3 {
			return nil, wrap("table update", err)
		}
		s.log.WarnContext(ctx, "table update: retrying", "table", name, "attempt", attempt, "err", err)
	}
}

// tableUpdateOnce is one transaction of TableUpdate; removed lists the
// indexes the change removed (their storage is still there).
func (s *Store) tableUpdateOnce(ctx context.Context, name string, fn func(t *store.Table) error) (out *store.Table, removed []int64, fnErr, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := s.q.CatalogLockTimeout(ctx, tx); err != nil {
			return err
		}
		def, err := s.q.TableGetForUpdate(ctx, tx, gen.TableGetForUpdateParams{Name: name})
		if err != nil {
			return err
		}
		old, err := decodeTable(def)
		if err != nil {
			return err
		}
		t, err := decodeTable(def)
		if err != nil {
			return err
		}
		if fnErr = fn(t); fnErr != nil {
			return fnErr
		}
		t.ID, t.Name = old.ID, old.Name
		had := map[int64]bool{}
		for _, ix := range old.Indexes {
			had[ix.ID] = true
		}
		var added []int64
		kept := map[int64]bool{}
		for i := range t.Indexes {
			ix := &t.Indexes[i]
			if ix.ID != 0 && had[ix.ID] && !kept[ix.ID] {
				kept[ix.ID] = true
				continue
			}
			if ix.ID, err = s.q.IndexIDNext(ctx, tx); err != nil {
				return err
			}
			added = append(added, ix.ID)
		}
		if def, err = encodeTable(t); err != nil {
			return err
		}
		if t.Version, err = s.q.TableUpdateDef(ctx, tx, gen.TableUpdateDefParams{ID: t.ID, Status: t.Status, Def: def}); err != nil {
			return err
		}
		for _, id := range added {
			if err := s.q.IndexStorageCreate(ctx, tx, gen.IndexStorageCreateParams{TableID: t.ID, IndexID: id}); err != nil {
				return err
			}
		}
		for _, ix := range t.Indexes {
			if ix.Status == store.StatusCreating && slices.Contains(added, ix.ID) {
				if err := s.q.BuildRecord(ctx, tx, gen.BuildRecordParams{IndexID: ix.ID, TableID: t.ID, IndexName: ix.Name}); err != nil {
					return err
				}
			}
		}
		removed = nil
		for _, ix := range old.Indexes {
			if !kept[ix.ID] {
				// Not dropped here: a write that read the old definition
				// may still write to it. dropIndexesDeferred drops it
				// after the catalog barrier.
				removed = append(removed, ix.ID)
			}
		}
		out = t
		return nil
	})
	return out, removed, fnErr, err
}

// TableDelete deletes a table in two steps (drop.go, sql/functions/drop.sql).
// First, in a short transaction, it marks the catalog row DELETING: from
// that commit on, item operations get store.ErrTableNotFound and the queue
// stops applying the table's rows. Then it drops the storage at once through
// dynamopg.drop_table_storage, which waits out the writers and the queue
// batches in flight, deletes the queued rows, drops the data tables and
// deletes the catalog row. If that step fails (a lock timeout), the table
// stays DELETING and the sweeper finishes it; the delete has still
// succeeded. It returns the description as it was. A table already DELETING
// is store.ErrTableNotFound (the sweeper finishes it). A lock
// timeout of the first step is retried a few times, then reported as
// store.ErrConflict.
func (s *Store) TableDelete(ctx context.Context, name string) (*store.Table, error) {
	const attempts = 3
	var err error
	for range attempts {
		var t *store.Table
		var deleting bool
		t, deleting, err = s.tableMarkDeleting(ctx, name)
		if err == nil {
			s.tables.Forget(name)
			if deleting {
				return nil, store.ErrTableNotFound // the sweeper finishes it
			}
			s.dropStorageInline(ctx, t.ID, name)
			return t, nil
		}
		if !errors.Is(err, store.ErrConflict) {
			return nil, err
		}
		s.log.WarnContext(ctx, "table delete: lock timeout, retrying", "table", name)
	}
	return nil, err
}

// tableMarkDeleting marks the table DELETING and returns its description as
// it was; deleting reports that it already was DELETING (nothing changed).
// A table with a stream label is kept in dynamopg.deleted_tables by the
// same transaction (store.DeletedTable).
func (s *Store) tableMarkDeleting(ctx context.Context, name string) (t *store.Table, deleting bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := s.q.LockTimeoutSet(ctx, tx, gen.LockTimeoutSetParams{Timeout: ddlLockTimeout}); err != nil {
			return err
		}
		row, err := s.q.TableMarkDeleting(ctx, tx, gen.TableMarkDeletingParams{Name: name})
		if err != nil {
			return err
		}
		if t, err = decodeTable(row.Def); err != nil {
			return err
		}
		if row.Status == store.StatusDeleting {
			deleting = true
			return nil
		}
		if labels := store.StreamLabels(t); len(labels) > 0 {
			if err := s.q.DeletedTableRecord(ctx, tx, gen.DeletedTableRecordParams{
				TableID: row.ID, Name: name, Labels: labels, Def: row.Def,
			}); err != nil {
				return err
			}
		}
		return s.q.TableSetDeleting(ctx, tx, gen.TableSetDeletingParams{ID: row.ID})
	})
	if err != nil {
		return nil, false, wrap("table delete", err)
	}
	return t, deleting, nil
}

// TableStats counts the table's items and sums their sizes (a full count).
func (s *Store) TableStats(ctx context.Context, t *store.Table) (items, bytes int64, err error) {
	row, err := s.q.TableStats(ctx, s.pool, gen.TableStatsParams{TableID: t.ID})
	if err != nil {
		return 0, 0, wrap("table stats", err)
	}
	return row.Items, row.Bytes, nil
}
