package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// The catalog schema: the numbered migrations of sql/migrations, applied at
// Open. PRAGMA user_version counts them: it is the number of the last
// migration applied, and a file with a larger one was written by a newer
// dynamopg. The numbers continue the versions of the files written before
// the migrations existed (1 the catalog, 2 index_queue, 3 stream_records,
// 4 index_queue.enqueued_at, 5 deleted_tables), which the migrations of the
// same numbers reproduce, so such a file takes only the migrations it lacks.

//go:embed sql/migrations/*.sql
var migrationFiles embed.FS

// migration is one file of sql/migrations, NNN_name.sql.
type migration struct {
	version int
	name    string
	sql     string
}

// schemaMigrations are the migrations in order, numbered 1, 2, 3, ...
var schemaMigrations = loadMigrations(migrationFiles)

// schemaVersion is the version of a file with every migration applied.
var schemaVersion = len(schemaMigrations)

// loadMigrations reads the embedded migrations; misnumbered files fail
// every test.
func loadMigrations(fsys embed.FS) []migration {
	files, err := fs.Glob(fsys, "sql/migrations/*.sql")
	if err != nil {
		panic(err)
	}
	var out []migration // Glob sorts, and the numbers have three digits
	for i, f := range files {
		base := path.Base(f)
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if err != nil || v != i+1 || len(num) != 3 {
			panic(fmt.Sprintf("sqlitestore: migration %s: want the number %03d", base, i+1))
		}
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			panic(err)
		}
		out = append(out, migration{version: v, name: strings.TrimSuffix(base, ".sql"), sql: string(b)})
	}
	return out
}

// migrate applies the migrations the file lacks, in one transaction on the
// write connection. Its BEGIN IMMEDIATE takes the write lock before the
// version is read, so processes opening one file migrate it one at a time.
func migrate(ctx context.Context, db *sql.DB, st *stmts) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin schema: %w", interpretError(err))
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, st.get("user_version_get", stmtVars{})).Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v > schemaVersion {
		return fmt.Errorf("database schema version %d is newer than this server's %d", v, schemaVersion)
	}
	if v == schemaVersion {
		return nil
	}
	for _, m := range schemaMigrations[v:] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, st.get("user_version_set", stmtVars{Version: schemaVersion})); err != nil {
		return fmt.Errorf("set schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit schema: %w", interpretError(err))
	}
	return nil
}
