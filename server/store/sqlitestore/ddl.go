package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/dynamopg/dynamopg/server/store"
)

// The storage of a table (t_<id>) and of a secondary index (i_<id>): names
// come from catalog ids only, never from user-supplied names. The
// statements are data_create, index_create, data_drop and index_drop of
// sql/storage.sql.

// createDataTable creates a table's item storage.
func (s *Store) createDataTable(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, s.stmts.on("data_create", id)); err != nil {
		return fmt.Errorf("create storage of table id %d: %w", id, err)
	}
	return nil
}

// createIndexTable creates a secondary index's storage.
func (s *Store) createIndexTable(ctx context.Context, tx *sql.Tx, ix *store.Index) error {
	if _, err := tx.ExecContext(ctx, s.stmts.get("index_create", indexVars(ix))); err != nil {
		return fmt.Errorf("create storage of index id %d: %w", ix.ID, err)
	}
	return nil
}

// dropDataTable drops a table's item storage (its indexes go with it).
func (s *Store) dropDataTable(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, s.stmts.on("data_drop", id)); err != nil {
		return fmt.Errorf("drop storage of table id %d: %w", id, err)
	}
	s.stmts.forget(id)
	return nil
}

// dropIndexTable drops a secondary index's storage.
func (s *Store) dropIndexTable(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, s.stmts.on("index_drop", id)); err != nil {
		return fmt.Errorf("drop storage of index id %d: %w", id, err)
	}
	s.stmts.forget(id)
	return nil
}
