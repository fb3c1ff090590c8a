package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
)

// Storage names come from catalog ids only, never from user-supplied names.
func dataTable(id int64) string  { return fmt.Sprintf("t_%d", id) }
func indexTable(id int64) string { return fmt.Sprintf("i_%d", id) }

// createDataTable creates a table's item storage.
//
//	hk   KeyHash of the partition key: scan segments are hk ranges
//	pk   partition key, sk sort key (empty BLOB without one), see keys.go
//	item the item's wire JSON
//	size the item's size as the service counts it (TableStats)
func createDataTable(ctx context.Context, tx *sql.Tx, id int64) error {
	name := dataTable(id)
	ddl := fmt.Sprintf(`
CREATE TABLE %[1]s (
    hk   INTEGER NOT NULL,
    pk   BLOB    NOT NULL,
    sk   BLOB    NOT NULL,
    item BLOB    NOT NULL,
    size INTEGER NOT NULL,
    PRIMARY KEY (pk, sk)
) WITHOUT ROWID;
-- Scan order: hash, then key.
CREATE INDEX %[1]s_scan ON %[1]s (hk, pk, sk);`, name)
	if _, err := tx.ExecContext(ctx, ddl); err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	return nil
}

// createIndexTable creates a secondary index's storage: the index key
// (ipk, isk), the base key (pk, sk) as tie-break, and the projected item.
func createIndexTable(ctx context.Context, tx *sql.Tx, id int64) error {
	name := indexTable(id)
	ddl := fmt.Sprintf(`
CREATE TABLE %[1]s (
    hk   INTEGER NOT NULL,
    ipk  BLOB    NOT NULL,
    isk  BLOB    NOT NULL,
    pk   BLOB    NOT NULL,
    sk   BLOB    NOT NULL,
    item BLOB    NOT NULL,
    PRIMARY KEY (ipk, isk, pk, sk)
) WITHOUT ROWID;
-- Maintenance: find an item's row by its base key.
CREATE INDEX %[1]s_base ON %[1]s (pk, sk);
-- Scan order: hash of the index partition key, then the full key.
CREATE INDEX %[1]s_scan ON %[1]s (hk, ipk, isk, pk, sk);`, name)
	if _, err := tx.ExecContext(ctx, ddl); err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	return nil
}

// dropStorage drops a data or index table (its indexes go with it).
func dropStorage(ctx context.Context, tx *sql.Tx, name string) error {
	if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+name); err != nil {
		return fmt.Errorf("drop %s: %w", name, err)
	}
	return nil
}
