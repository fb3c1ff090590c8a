package sqlitestore

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore/internal/sqlitedb"
)

// interpretError on the errors SQLite really returns: a taken table name
// is ErrTableExists, another UNIQUE violation is not, and a lock that
// busy_timeout did not get is ErrConflict; each keeps SQLite's message.
func TestInterpretError(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "errors.db")
	db, err := openDB(path+"?_txlock=immediate", "busy_timeout = 0", "journal_mode = WAL")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var st stmts
	if err := migrate(ctx, db, &st); err != nil {
		t.Fatal(err)
	}
	if _, err := queries.TableInsert(ctx, db, sqlitedb.TableInsertParams{Name: "a"}); err != nil {
		t.Fatal(err)
	}
	_, err = queries.TableInsert(ctx, db, sqlitedb.TableInsertParams{Name: "a"})
	if got := interpretError(err); !errors.Is(got, store.ErrTableExists) || got.Error() == store.ErrTableExists.Error() {
		t.Errorf("taken name: interpretError(%v) = %v, want ErrTableExists with SQLite's message", err, got)
	}
	if once, twice := interpretError(err), interpretError(interpretError(err)); once.Error() != twice.Error() {
		t.Errorf("interpreted twice: %v", twice)
	}

	// The same index row twice: a PRIMARY KEY violation, not a table name.
	if _, err := db.ExecContext(ctx, st.on("index_create", 1)); err != nil {
		t.Fatal(err)
	}
	row := []any{int64(0), []byte("g"), []byte{}, []byte("p"), []byte{}, []byte(`{}`)}
	if _, err := db.ExecContext(ctx, st.on("index_insert", 1), row...); err != nil {
		t.Fatal(err)
	}
	_, err = db.ExecContext(ctx, st.on("index_insert", 1), row...)
	if err == nil {
		t.Fatal("inserting an index row twice succeeded")
	}
	if got := interpretError(err); got != err {
		t.Errorf("another UNIQUE violation: interpretError(%v) = %v, want it unchanged", err, got)
	}

	// One connection holds the write lock; another cannot get it.
	holder, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback()
	_, err = db.BeginTx(ctx, nil)
	if err == nil {
		t.Fatal("a second BEGIN IMMEDIATE got the write lock")
	}
	if got := interpretError(err); !errors.Is(got, store.ErrConflict) {
		t.Errorf("busy: interpretError(%v) = %v, want ErrConflict", err, got)
	}

	if plain := errors.New("x"); interpretError(plain) != plain {
		t.Error("a non-SQLite error was changed")
	}
}
