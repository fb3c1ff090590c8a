package sqlitestore

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
)

// schemaSQL is the catalog schema, applied at every Open.
//
//go:embed schema.sql
var schemaSQL string

// schemaVersion is stored in PRAGMA user_version once schema.sql is applied.
// A database with a newer version was written by a newer dynamopg.
//
// Versions:
//
//	1  the catalog (tables, index_ids)
//	2  index_queue, the asynchronous index queue
//	3  stream_records, the DynamoDB Streams change log
//	4  index_queue.enqueued_at, the queue's lag
//	5  deleted_tables, the deleted tables whose streams are still readable
//
// Every statement of schema.sql is idempotent, so applying it whole upgrades
// any older version (and re-applies the current one): the upgrade from 1 to
// 2 is the CREATE TABLE IF NOT EXISTS of index_queue, from 2 to 3 that of
// stream_records (and its indexes), from 4 to 5 that of deleted_tables. A
// column added to an existing table is in the table's CREATE TABLE and in
// addedColumns, which adds it to a file whose table lacks it (SQLite has no
// ADD COLUMN IF NOT EXISTS). A later
// change that cannot be written idempotently goes in upgrades, keyed by the
// version it upgrades from.
const schemaVersion = 5

// addedColumns are the columns added to tables after their creation:
// table, column, declaration.
var addedColumns = [][3]string{
	{"index_queue", "enqueued_at", "INTEGER"},
}

// upgrades holds the non-idempotent steps from a version to the next, run
// before schema.sql in the same transaction. None so far.
var upgrades = map[int]string{}

// migrate applies the embedded schema in one transaction on the write handle.
func migrate(ctx context.Context, db *sql.DB) error {
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v > schemaVersion {
		return fmt.Errorf("database schema version %d is newer than this server's %d", v, schemaVersion)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin schema: %w", err)
	}
	defer tx.Rollback()
	for from := v; from > 0 && from < schemaVersion; from++ {
		if step, ok := upgrades[from]; ok {
			if _, err := tx.ExecContext(ctx, step); err != nil {
				return fmt.Errorf("upgrade schema from version %d: %w", from, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
		return fmt.Errorf("apply schema: %w", err)
	}
	for _, c := range addedColumns {
		if err := addColumn(ctx, tx, c[0], c[1], c[2]); err != nil {
			return fmt.Errorf("apply schema: %w", err)
		}
	}
	// PRAGMA takes no bind parameters; the value is a constant.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
		return fmt.Errorf("set schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit schema: %w", err)
	}
	return nil
}

// addColumn adds the column to the table unless it has it.
func addColumn(ctx context.Context, tx *sql.Tx, table, column, decl string) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, table, column).Scan(&n); err != nil {
		return fmt.Errorf("columns of %s: %w", table, err)
	}
	if n > 0 {
		return nil
	}
	// Names and declaration are constants of addedColumns.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`ALTER TABLE %s ADD COLUMN %s %s`, table, column, decl)); err != nil {
		return fmt.Errorf("add column %s.%s: %w", table, column, err)
	}
	return nil
}
