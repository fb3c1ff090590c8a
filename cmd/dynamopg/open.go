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
