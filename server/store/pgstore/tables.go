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
// and creates the storage, in one transaction.
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
		if err := s.q.TableInsert(ctx, tx, gen.TableInsertParams{ID: c.ID, Name: c.Name, Status: c.Status, Def: def}); err != nil {
			return err
		}
		return s.q.TableStorageCreate(ctx, tx, gen.TableStorageCreateParams{TableID: c.ID})
	})
	if err != nil {
		return wrap("table create", err)
	}
	t.ID = c.ID
	t.Indexes = c.Indexes
	return nil
}

// TableGet reads a table's description by name.
func (s *Store) TableGet(ctx context.Context, name string) (*store.Table, error) {
	def, err := s.q.TableGet(ctx, s.pool, gen.TableGetParams{Name: name})
	if err != nil {
		return nil, wrap("table get", err)
	}
	return decodeTable(def)
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

// TableUpdate locks the catalog row (waiting for item writers in flight),
// lets fn change the description, stores it, and creates or drops the
// storage of added or removed indexes, in one transaction. fn must not
// change the table's ID or name; new indexes get IDs here.
func (s *Store) TableUpdate(ctx context.Context, name string, fn func(t *store.Table) error) (*store.Table, error) {
	var out *store.Table
	var fnErr error
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := s.q.LockTimeoutSet(ctx, tx, gen.LockTimeoutSetParams{Timeout: ddlLockTimeout}); err != nil {
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
		if err := s.q.TableUpdateDef(ctx, tx, gen.TableUpdateDefParams{ID: t.ID, Status: t.Status, Def: def}); err != nil {
			return err
		}
		for _, id := range added {
			if err := s.q.IndexStorageCreate(ctx, tx, gen.IndexStorageCreateParams{TableID: t.ID, IndexID: id}); err != nil {
				return err
			}
		}
		for _, ix := range old.Indexes {
			if !kept[ix.ID] {
				if err := s.q.IndexStorageDrop(ctx, tx, gen.IndexStorageDropParams{IndexID: ix.ID}); err != nil {
					return err
				}
			}
		}
		out = t
		return nil
	})
	if fnErr != nil {
		return nil, fnErr
	}
	if err != nil {
		return nil, wrap("table update", err)
	}
	return out, nil
}

// TableDelete removes the catalog row and drops the storage in one
// transaction. Deleting the row waits for item writers in flight (they hold
// it FOR KEY SHARE); writers arriving later find no row and get
// store.ErrTableNotFound. A lock timeout is retried a few times, then
// reported as store.ErrConflict.
func (s *Store) TableDelete(ctx context.Context, name string) (*store.Table, error) {
	const attempts = 3
	var err error
	for range attempts {
		var t *store.Table
		t, err = s.tableDeleteOnce(ctx, name)
		if err == nil {
			return t, nil
		}
		if !errors.Is(err, store.ErrConflict) {
			return nil, err
		}
		s.log.WarnContext(ctx, "table delete: lock timeout, retrying", "table", name)
	}
	return nil, err
}

func (s *Store) tableDeleteOnce(ctx context.Context, name string) (*store.Table, error) {
	var t *store.Table
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := s.q.LockTimeoutSet(ctx, tx, gen.LockTimeoutSetParams{Timeout: ddlLockTimeout}); err != nil {
			return err
		}
		def, err := s.q.TableDeleteRow(ctx, tx, gen.TableDeleteRowParams{Name: name})
		if err != nil {
			return err
		}
		if t, err = decodeTable(def); err != nil {
			return err
		}
		return s.q.TableStorageDrop(ctx, tx, gen.TableStorageDropParams{Def: def})
	})
	if err != nil {
		return nil, wrap("table delete", err)
	}
	return t, nil
}

// TableStats counts the table's items and sums their sizes (a full count).
func (s *Store) TableStats(ctx context.Context, t *store.Table) (items, bytes int64, err error) {
	row, err := s.q.TableStats(ctx, s.pool, gen.TableStatsParams{TableID: t.ID})
	if err != nil {
		return 0, 0, wrap("table stats", err)
	}
	return row.Items, row.Bytes, nil
}
