package sqlitestore_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore"
)

// legacyTable is the table TestOpenVersion5File writes into a version 5
// file: id 1, keys pk and sk (S), a global index on g (id 1, ALL).
func legacyTable() *store.Table {
	return &store.Table{
		ID: 1, Name: "legacy", Status: store.StatusActive, BillingMode: "PAY_PER_REQUEST",
		Hash:  store.KeyAttr{Name: "pk", Type: attr.TypeS},
		Range: &store.KeyAttr{Name: "sk", Type: attr.TypeS},
		AttributeDefinitions: []store.KeyAttr{
			{Name: "pk", Type: attr.TypeS}, {Name: "sk", Type: attr.TypeS}, {Name: "g", Type: attr.TypeS},
		},
		Indexes: []store.Index{{
			ID: 1, Name: "byG", Global: true, Status: store.StatusActive,
			Hash: store.KeyAttr{Name: "g", Type: attr.TypeS}, Projection: store.Projection{Type: "ALL"},
		}},
	}
}

// writeVersion5File builds, with the statements of the hand-versioned code
// (testdata: its schema.sql, its ddl.go, its lazily created tx_tokens), the
// file that code left: schema version 5, table "legacy" with three items
// and their index rows, and, withTokens, a live client token.
func writeVersion5File(t *testing.T, path string, withTokens bool, token []byte) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlitestore.OpenRaw(path, "busy_timeout = 5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	files := []string{"schema_v5.sql", "storage_v5.sql"}
	if withTokens {
		files = append(files, "tokens_v5.sql")
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		exec(string(b))
	}
	exec(`PRAGMA user_version = 5`)

	tbl := legacyTable()
	def, err := json.Marshal(tbl)
	if err != nil {
		t.Fatal(err)
	}
	exec(`INSERT INTO tables (id, name, def) VALUES (1, 'legacy', ?)`, string(def))
	exec(`INSERT INTO index_ids (id, table_id) VALUES (1, 1)`)
	for _, it := range legacyItems() {
		pk, sk, g := []byte(it["pk"].S), []byte(it["sk"].S), []byte(it["g"].S)
		exec(`INSERT INTO t_1 (hk, pk, sk, item, size) VALUES (?, ?, ?, ?, ?)`,
			int64(store.KeyHash(it["pk"])), pk, sk, it.AppendJSON(nil), it.Size())
		exec(`INSERT INTO i_1 (hk, ipk, isk, pk, sk, item) VALUES (?, ?, ?, ?, ?, ?)`,
			int64(store.KeyHash(it["g"])), g, []byte{}, pk, sk, it.AppendJSON(nil))
	}
	if withTokens {
		exec(`INSERT INTO tx_tokens (token, hash, created_at) VALUES ('tok', ?, ?)`, token, time.Now().UnixNano())
	}
}

func legacyItems() []attr.Item {
	return []attr.Item{
		{"pk": attr.Str("p"), "sk": attr.Str("1"), "g": attr.Str("x"), "v": attr.Num("1")},
		{"pk": attr.Str("p"), "sk": attr.Str("2"), "g": attr.Str("x"), "v": attr.Num("2")},
		{"pk": attr.Str("q"), "sk": attr.Str("1"), "g": attr.Str("x"), "v": attr.Num("3")},
	}
}

// A file the hand-versioned code wrote (schema version 5, with or without
// the tx_tokens table its token path created on first use) opens with the
// numbered migrations: its tables, items, index rows and tokens are all
// there, and it takes writes, transactions with tokens and new tables.
func TestOpenVersion5File(t *testing.T) {
	for _, withTokens := range []bool{false, true} {
		name := "without tx_tokens"
		if withTokens {
			name = "with tx_tokens"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "v5.db")
			hash := []byte("request hash")
			writeVersion5File(t, path, withTokens, hash)

			s := open(t, path)
			if err := s.SchemaCurrent(ctx); err != nil {
				t.Fatal(err)
			}
			tbl, err := s.TableGet(ctx, "legacy")
			if err != nil {
				t.Fatal(err)
			}
			if tbl.ID != 1 || tbl.Index("byG") == nil || tbl.Index("byG").ID != 1 {
				t.Fatalf("TableGet = %+v", tbl)
			}
			for _, want := range legacyItems() {
				got, err := s.ItemGet(ctx, tbl, tbl.KeyOf(want))
				if err != nil || got["v"].S != want["v"].S {
					t.Fatalf("ItemGet %v = %v, %v", tbl.KeyOf(want), got, err)
				}
			}
			if n, _, err := s.TableStats(ctx, tbl); err != nil || n != 3 {
				t.Fatalf("TableStats = %d, %v; want 3 items", n, err)
			}
			query := func() int {
				t.Helper()
				got, err := s.ItemQuery(ctx, tbl, store.QueryInput{Index: tbl.Index("byG"), Hash: attr.Str("x"), Forward: true})
				if err != nil {
					t.Fatal(err)
				}
				return len(got)
			}
			if n := query(); n != 3 {
				t.Fatalf("index query = %d items, want 3", n)
			}

			// Writes maintain the old index; a token transaction works,
			// and replays the token the old file recorded.
			putItem(t, s, tbl, attr.Item{"pk": attr.Str("r"), "sk": attr.Str("1"), "g": attr.Str("x")})
			if n := query(); n != 4 {
				t.Fatalf("index query after a write = %d items, want 4", n)
			}
			tok := store.TxToken{Token: "tok", Hash: hash, Now: time.Now(), TTL: 10 * time.Minute}
			key := attr.Item{"pk": attr.Str("s"), "sk": attr.Str("1")}
			replayed, err := s.ItemTransactToken(ctx, []store.TxTarget{{Table: tbl, Key: key}}, tok,
				func([]attr.Item) ([]store.TxWrite, error) {
					return []store.TxWrite{{Put: attr.Item{"pk": attr.Str("s"), "sk": attr.Str("1")}}}, nil
				})
			if err != nil || replayed != withTokens {
				t.Fatalf("ItemTransactToken = replayed %v, %v; want replayed %v", replayed, err, withTokens)
			}

			// Ids go on from the old file's.
			next := testTable("next")
			if err := s.TableCreate(ctx, next); err != nil || next.ID != 2 {
				t.Fatalf("TableCreate = id %d, %v; want id 2", next.ID, err)
			}
			s.Close()

			// Opening again applies nothing and keeps everything.
			s2 := open(t, path)
			if err := s2.SchemaCurrent(ctx); err != nil {
				t.Fatal(err)
			}
			names, err := s2.TableList(ctx, "", 0)
			if err != nil || len(names) != 2 {
				t.Fatalf("TableList = %v, %v", names, err)
			}
			if n, _, err := s2.TableStats(ctx, tbl); err != nil || n != 4+boolInt(!withTokens) {
				t.Fatalf("TableStats after reopen = %d, %v", n, err)
			}
		})
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// A file of a newer schema than this build's is refused, untouched.
func TestOpenNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "newer.db")
	open(t, path).Close()
	db, err := sqlitestore.OpenRaw(path, "busy_timeout = 5000")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `PRAGMA user_version = 1000`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if s, err := sqlitestore.Open(ctx, path, sqlitestore.Options{}); err == nil {
		s.Close()
		t.Fatal("Open of a schema version 1000 file succeeded")
	}
}
