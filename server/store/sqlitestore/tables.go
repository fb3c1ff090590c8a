package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore/internal/sqlitedb"
)

// TableCreate stores a new table and creates its storage and its indexes'
// storage in one transaction. It assigns t.ID and every Index.ID.
func (s *Store) TableCreate(ctx context.Context, t *store.Table) error {
	def := *t
	def.Indexes = slices.Clone(t.Indexes)
	err := s.inWrite(ctx, func(tx *sql.Tx) error {
		// The id is the row's: insert first with a placeholder def, then
		// store the def that carries the id.
		id, err := queries.TableInsert(ctx, tx, sqlitedb.TableInsertParams{Name: t.Name})
		if err != nil {
			return fmt.Errorf("create table %q: insert catalog: %w", t.Name, err) // ErrTableExists, by interpretError
		}
		def.ID = id
		if err := s.createDataTable(ctx, tx, id); err != nil {
			return fmt.Errorf("create table %q: %w", t.Name, err)
		}
		for i := range def.Indexes {
			if err := s.indexCreate(ctx, tx, &def, &def.Indexes[i], false); err != nil {
				return fmt.Errorf("create table %q: %w", t.Name, err)
			}
		}
		return s.storeDef(ctx, tx, &def)
	})
	if err != nil {
		return err
	}
	t.ID, t.Version = def.ID, def.Version
	for i := range t.Indexes {
		t.Indexes[i].ID = def.Indexes[i].ID
	}
	return nil
}

// storeDef writes a table's description to its catalog row and advances
// its version (t.Version is the new one): every change of a description
// goes through it, so that no item write uses the old one after it
// commits (currentDef).
func (s *Store) storeDef(ctx context.Context, tx *sql.Tx, t *store.Table) error {
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("encode table %q: %w", t.Name, err)
	}
	s.catalogChanged(t.Name)
	err = queries.TableUpdateDef(ctx, tx, sqlitedb.TableUpdateDefParams{Name: t.Name, Def: string(b), ID: t.ID})
	if err != nil {
		return fmt.Errorf("store table %q: %w", t.Name, err) // ErrTableExists for a taken name, by interpretError
	}
	if t.Version, err = queries.TableVersionBump(ctx, tx, sqlitedb.TableVersionBumpParams{TableID: t.ID}); err != nil {
		return fmt.Errorf("store table %q: version: %w", t.Name, err)
	}
	if err := queries.CatalogEpochBump(ctx, tx); err != nil {
		return fmt.Errorf("store table %q: catalog epoch: %w", t.Name, err)
	}
	return nil
}

// indexCreate assigns an index its id and creates its storage; with
// backfill it also indexes the table's existing items.
func (s *Store) indexCreate(ctx context.Context, tx *sql.Tx, t *store.Table, ix *store.Index, backfill bool) error {
	id, err := queries.IndexIDNext(ctx, tx, sqlitedb.IndexIDNextParams{TableID: t.ID})
	if err != nil {
		return fmt.Errorf("index %q: allocate id: %w", ix.Name, err)
	}
	ix.ID = id
	if err := s.createIndexTable(ctx, tx, ix); err != nil {
		return fmt.Errorf("index %q: %w", ix.Name, err)
	}
	if backfill {
		if err := s.backfillIndex(ctx, tx, t, ix); err != nil {
			return fmt.Errorf("index %q: %w", ix.Name, err)
		}
	}
	return nil
}

// TableGet reads one table's description.
func (s *Store) TableGet(ctx context.Context, name string) (*store.Table, error) {
	t, err := catalogByName(ctx, s.reader, name)
	if err != nil {
		return nil, interpretError(err)
	}
	return t, nil
}

// TableList returns up to limit table names in byte order after `after`
// (limit <= 0: all of them).
func (s *Store) TableList(ctx context.Context, after string, limit int) ([]string, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	names, err := queries.TableList(ctx, s.reader, sqlitedb.TableListParams{After: after, MaxNames: int64(limit)})
	if err != nil {
		return nil, fmt.Errorf("list tables: %w", interpretError(err))
	}
	return names, nil
}

// TableUpdate reads the table under the write lock, lets fn change it and
// stores the result. Indexes fn adds (ID 0) get their storage in the same
// transaction: empty for a CREATING index, which IndexBuildStart fills
// online (build.go) while every write from this commit on maintains it; an
// index added in any other status (the API never does) is filled from the
// table's items in this transaction. Indexes fn removes lose their storage,
// which also ends their build at its next page.
//
// fn runs under the single writer. An online build holds it for one page at
// a time, so a TableUpdate (and the API's refusals in fn) waits at most one
// page for a build.
func (s *Store) TableUpdate(ctx context.Context, name string, fn func(t *store.Table) error) (*store.Table, error) {
	var out *store.Table
	err := s.inWrite(ctx, func(tx *sql.Tx) error {
		before, err := catalogByName(ctx, tx, name)
		if err != nil {
			return err
		}
		t, err := catalogByName(ctx, tx, name) // fn's own copy
		if err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
		t.ID = before.ID
		for _, old := range before.Indexes {
			if indexByID(t, old.ID) == nil {
				if err := s.dropIndexTable(ctx, tx, old.ID); err != nil {
					return fmt.Errorf("update table %q: %w", name, err)
				}
			}
		}
		for i := range t.Indexes {
			ix := &t.Indexes[i]
			if ix.ID != 0 && indexByID(before, ix.ID) != nil {
				continue
			}
			if err := s.indexCreate(ctx, tx, t, ix, ix.Status != store.StatusCreating); err != nil {
				return fmt.Errorf("update table %q: %w", name, err)
			}
		}
		if err := s.storeDef(ctx, tx, t); err != nil {
			return err
		}
		out = t
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TableDelete drops the table's storage and its catalog row in one
// transaction, keeping the entry in deleted_tables if the table has a
// stream label, and returns the description as it was.
func (s *Store) TableDelete(ctx context.Context, name string) (*store.Table, error) {
	var out *store.Table
	err := s.inWrite(ctx, func(tx *sql.Tx) error {
		t, err := catalogByName(ctx, tx, name)
		if err != nil {
			return err
		}
		for _, ix := range t.Indexes {
			if err := s.dropIndexTable(ctx, tx, ix.ID); err != nil {
				return fmt.Errorf("delete table %q: %w", name, err)
			}
		}
		if err := s.dropDataTable(ctx, tx, t.ID); err != nil {
			return fmt.Errorf("delete table %q: %w", name, err)
		}
		if err := queries.TableDeleteRow(ctx, tx, sqlitedb.TableDeleteRowParams{ID: t.ID}); err != nil {
			return fmt.Errorf("delete table %q: catalog: %w", name, err)
		}
		s.catalogChanged(name)
		if err := queries.TableVersionDelete(ctx, tx, sqlitedb.TableVersionDeleteParams{TableID: t.ID}); err != nil {
			return fmt.Errorf("delete table %q: catalog version: %w", name, err)
		}
		if err := queries.CatalogEpochBump(ctx, tx); err != nil {
			return fmt.Errorf("delete table %q: catalog epoch: %w", name, err)
		}
		if err := queries.CollectionDeleteTable(ctx, tx, sqlitedb.CollectionDeleteTableParams{TableID: t.ID}); err != nil {
			return fmt.Errorf("delete table %q: item collections: %w", name, err)
		}
		if err := queries.QueueDeleteTable(ctx, tx, sqlitedb.QueueDeleteTableParams{TableID: t.ID}); err != nil {
			return fmt.Errorf("delete table %q: index queue: %w", name, err)
		}
		if err := recordDeleted(ctx, tx, t); err != nil {
			return fmt.Errorf("delete table %q: %w", name, err)
		}
		out = t
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TableStats counts the table's items and sums their sizes.
func (s *Store) TableStats(ctx context.Context, t *store.Table) (items, bytes int64, err error) {
	err = s.inRead(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, s.stmts.on("item_stats", t.ID)).Scan(&items, &bytes); err != nil {
			return explain(ctx, tx, t, nil, "table stats of", err)
		}
		return nil
	})
	return items, bytes, err
}
