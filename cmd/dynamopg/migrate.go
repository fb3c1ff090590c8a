package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/dynamopg/dynamopg/server/store/pgstore"
)

func migrate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	db := fs.String("db", envOr("DYNAMOPG_DB", ""), "PostgreSQL URL (env DYNAMOPG_DB)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	remember(*db)
	if !strings.HasPrefix(*db, "postgres://") && !strings.HasPrefix(*db, "postgresql://") {
		return fmt.Errorf("migrate: --db must be a postgres:// URL (SQLite applies its schema when it opens)")
	}
	st, err := pgstore.Open(ctx, *db, pgstore.Options{Migrate: true, Logger: newLogger("info", "text")})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	st.Close()
	fmt.Println("migrations applied")
	return nil
}
