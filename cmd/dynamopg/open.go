package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore"
)

// openStore selects the backend from the --db URL: postgres:// or
// postgresql:// for PostgreSQL, sqlite:PATH for a SQLite file, memory for an
// in-memory SQLite database. collLimit is --item-collection-limit.
func openStore(ctx context.Context, db string, migrate bool, maxConns int32, collLimit int64, log *slog.Logger) (store.Store, error) {
	switch {
	case strings.HasPrefix(db, "postgres://"), strings.HasPrefix(db, "postgresql://"):
		return pgstore.Open(ctx, db, pgstore.Options{Migrate: migrate, Logger: log, MaxConns: maxConns, ItemCollectionLimit: collLimit})
	case strings.HasPrefix(db, "sqlite:"):
		return sqlitestore.Open(ctx, strings.TrimPrefix(db, "sqlite:"), sqlitestore.Options{Logger: log, ItemCollectionLimit: collLimit})
	case db == "memory":
		return sqlitestore.Open(ctx, ":memory:", sqlitestore.Options{Logger: log, ItemCollectionLimit: collLimit})
	}
	return nil, fmt.Errorf("--db %q: want postgres://…, sqlite:PATH or memory", maskDB(db))
}

// openStatusStore opens the store at db read-only, with no background
// work, for `dynamopg status`.
func openStatusStore(ctx context.Context, db string) (store.Store, error) {
	switch {
	case strings.HasPrefix(db, "postgres://"), strings.HasPrefix(db, "postgresql://"):
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		st, err := pgstore.Open(cctx, db, pgstore.Options{ReadOnly: true, ApplicationName: "dynamopg status",
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			return nil, fmt.Errorf("connect %s: %w", maskDB(db), err)
		}
		if err := st.SchemaCurrent(cctx); err != nil {
			st.Close()
			return nil, fmt.Errorf("%w (is the schema installed? run dynamopg migrate)", err)
		}
		return st, nil
	case strings.HasPrefix(db, "sqlite:"):
		path := strings.TrimPrefix(db, "sqlite:")
		if _, err := os.Stat(path); err != nil {
			return nil, err
		}
		return sqlitestore.Open(ctx, path, sqlitestore.Options{ReadOnly: true})
	}
	return nil, fmt.Errorf("--db %q: want postgres://… or sqlite:PATH", maskDB(db))
}

// The intervals of the background passes that have no flag: the stream
// trim (records are kept store.StreamRetention) and the purge of forgotten
// transaction tokens.
const (
	streamTrimInterval = time.Hour
	tokenPurgeInterval = time.Minute
)
