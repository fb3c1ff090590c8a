package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore/internal/sqlitedb"
)

// The catalog rows: the whole store.Table as JSON in tables.def.

// queries are the sqlc wrappers of sql/queries (they hold no state).
var queries = sqlitedb.New()

// catalogByName reads a table's id, description and version by name.
func catalogByName(ctx context.Context, q querier, name string) (*store.Table, error) {
	row, err := queries.TableGet(ctx, q, sqlitedb.TableGetParams{Name: name})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("table %q: %w", name, store.ErrTableNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read catalog of %q: %w", name, err)
	}
	return decodeDef(row.Def, row.Version)
}

// catalogByID reads a table's description by id: the current definition
// (indexes included) of the table a possibly stale *store.Table names.
func catalogByID(ctx context.Context, q querier, id int64) (*store.Table, error) {
	row, err := queries.TableGetByID(ctx, q, sqlitedb.TableGetByIDParams{ID: id})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("table id %d: %w", id, store.ErrTableNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read catalog of table id %d: %w", id, err)
	}
	return decodeDef(row.Def, row.Version)
}

// decodeDef decodes a catalog entry of the given version.
func decodeDef(def string, version int64) (*store.Table, error) {
	t := new(store.Table)
	if err := json.Unmarshal([]byte(def), t); err != nil {
		return nil, fmt.Errorf("decode catalog entry: %w", err)
	}
	t.Version = version
	return t, nil
}

// currentDef is the current description of the table t names, inside a
// write transaction (which holds the database write lock, so it stays
// current until the transaction ends): t itself when its Version is the
// catalog's, read from table_versions alone, without the catalog's JSON.
// ErrStaleTable when the table changed since t was read (the caller reads
// it again, see Tables.TableGetCached), ErrTableNotFound when it is gone.
// A description without a version (0: built by hand, or of a table from
// before migration 008 that has not changed since) is read from the
// catalog.
func currentDef(ctx context.Context, tx querier, t *store.Table) (*store.Table, error) {
	if t.Version == 0 {
		return catalogByID(ctx, tx, t.ID)
	}
	v, err := queries.TableVersionGet(ctx, tx, sqlitedb.TableVersionGetParams{TableID: t.ID})
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("table %q: %w", t.Name, store.ErrTableNotFound)
	case err != nil:
		return nil, fmt.Errorf("read catalog version of %q: %w", t.Name, err)
	case v != t.Version:
		return nil, fmt.Errorf("table %q is at catalog version %d, not %d: %w", t.Name, v, t.Version, store.ErrStaleTable)
	}
	return t, nil
}

// querier is what *sql.DB and *sql.Tx have in common (sqlc's DBTX).
type querier = sqlitedb.DBTX

// explain turns the error of a statement on a table's (or index's) storage
// into store.ErrTableNotFound when the storage is gone: SQLite's "no such
// table" has no result code of its own, so the catalog (read in the same
// transaction as the failed statement) decides. Other errors are wrapped.
func explain(ctx context.Context, q querier, t *store.Table, ix *store.Index, what string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s %q: %w", what, t.Name, err)
	}
	cur, cerr := catalogByID(ctx, q, t.ID)
	switch {
	case errors.Is(cerr, store.ErrTableNotFound):
		return fmt.Errorf("%s %q: %w", what, t.Name, store.ErrTableNotFound)
	case cerr == nil && ix != nil && indexByID(cur, ix.ID) == nil:
		return fmt.Errorf("%s %q index %q: %w", what, t.Name, ix.Name, store.ErrTableNotFound)
	}
	return fmt.Errorf("%s %q: %w", what, t.Name, err)
}

// indexByID finds an index of a table by its storage id.
func indexByID(t *store.Table, id int64) *store.Index {
	for i := range t.Indexes {
		if t.Indexes[i].ID == id {
			return &t.Indexes[i]
		}
	}
	return nil
}
