package pgstore

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/tern/v2/migrate"

	"github.com/dynamopg/dynamopg"
)

// versionTable is tern's version table, beside the catalog.
const versionTable = "dynamopg.schema_version"

// bootstrapLock serializes the bootstrap below across processes; tern's own
// advisory lock then covers migrations and the code package.
const bootstrapLock = int64(0x64796e616d6f7067) // "dynamopg"

// Migrate brings the database schema up to date: it applies the pending tern
// migrations of migrations/ and reinstalls the functions of sql/ (a tern
// code package), all under tern's advisory lock, on one connection of the
// pool. It is idempotent and safe to run from several processes at once.
func Migrate(ctx context.Context, pool *pgxpool.Pool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	defer conn.Release()
	pc := conn.Conn()

	var encoding string
	if err := pc.QueryRow(ctx, "SHOW server_encoding").Scan(&encoding); err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	if encoding != "UTF8" {
		return fmt.Errorf("pgstore: migrate: database encoding is %s, want UTF8", encoding)
	}

	// tern creates its version table before its first migration, so the
	// schema holding it must exist; CREATE SCHEMA IF NOT EXISTS races
	// without a lock.
	if _, err := pc.Exec(ctx, "SELECT pg_advisory_lock($1)", bootstrapLock); err != nil {
		return fmt.Errorf("pgstore: migrate: lock: %w", err)
	}
	defer pc.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", bootstrapLock)
	if _, err := pc.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS dynamopg"); err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}

	migrations, err := fs.Sub(dynamopg.Migrations, "migrations")
	if err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	m, err := migrate.NewMigrator(ctx, pc, versionTable)
	if err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	if err := m.LoadMigrations(migrations); err != nil {
		return fmt.Errorf("pgstore: migrate: load: %w", err)
	}
	if err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}

	functions, err := fs.Sub(dynamopg.Functions, "sql")
	if err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	pkg, err := migrate.LoadCodePackage(functions)
	if err != nil {
		return fmt.Errorf("pgstore: migrate: load functions: %w", err)
	}
	if err := migrate.InstallCodePackage(ctx, pc, nil, pkg); err != nil {
		return fmt.Errorf("pgstore: migrate: install functions: %w", err)
	}
	return nil
}
