package sqlitestore

import (
	"context"
	"strings"
	"testing"
)

// Every section of sql/storage.sql renders, in every variant the code asks
// for, to SQL that SQLite prepares against the storage the templates create.
func TestStorageTemplatesPrepare(t *testing.T) {
	ctx := context.Background()
	db, err := openDB(MemoryDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one in-memory database
	var st stmts
	for _, name := range []string{"data_create", "index_create"} {
		if _, err := db.ExecContext(ctx, st.on(name, 7)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if err := migrate(ctx, db, &st); err != nil {
		t.Fatal(err)
	}

	ops := []string{"", "EQ", "LT", "LE", "GT", "GE", "BETWEEN", "BEGINS_WITH", "BEGINS_WITH_OPEN"}
	variants := map[string][]stmtVars{}
	for _, op := range ops {
		for _, after := range []bool{false, true} {
			for _, desc := range []bool{false, true} {
				for _, name := range []string{"item_query", "index_query"} {
					variants[name] = append(variants[name], stmtVars{ID: 7, Op: op, After: after, Desc: desc})
				}
			}
		}
	}
	for _, name := range []string{"item_scan", "index_scan", "item_page"} {
		variants[name] = []stmtVars{{ID: 7}, {ID: 7, After: true}}
	}
	variants["user_version_set"] = []stmtVars{{Version: schemaVersion}}
	skip := map[string]bool{
		"data_create": true, "index_create": true, // run above
		"sort_key_condition": true,                        // a fragment of the queries
		"write_rollback":     true, "write_release": true, // need their savepoint
	}
	seen := 0
	for _, tmpl := range storageTemplates.Templates() {
		name := tmpl.Name()
		if name == storageTemplates.Name() || skip[name] {
			continue
		}
		seen++
		vs := variants[name]
		if vs == nil {
			vs = []stmtVars{{ID: 7}}
		}
		for _, v := range vs {
			q := st.get(name, v)
			if strings.Contains(q, "<no value>") || strings.Contains(q, "--") {
				t.Errorf("%s %+v renders a stray value or comment:\n%s", name, v, q)
			}
			p, err := db.PrepareContext(ctx, q)
			if err != nil {
				t.Errorf("%s %+v: %v\n%s", name, v, err, q)
				continue
			}
			p.Close()
		}
	}
	if all := len(storageTemplates.Templates()); seen+len(skip) != all || seen < 15 {
		t.Fatalf("checked %d of the %d sections of sql/storage.sql", seen+len(skip), all)
	}

	// The drops run last, and forget the texts of their storage.
	for _, name := range []string{"index_drop", "data_drop"} {
		if _, err := db.ExecContext(ctx, st.on(name, 7)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	st.forget(7)
	for k := range st.texts {
		if k.vars.ID == 7 {
			t.Fatalf("forget(7) kept %s", k.name)
		}
	}
}

// The sort key condition of a Query: one comparison per operator, on the
// column the query names.
func TestSortKeyCondition(t *testing.T) {
	var st stmts
	for op, want := range map[string]string{
		"":                 "WHERE ipk = ?\n ORDER BY",
		"EQ":               "AND isk = ?\n",
		"LE":               "AND isk <= ?\n",
		"BETWEEN":          "AND isk BETWEEN ? AND ?\n",
		"BEGINS_WITH":      "AND isk >= ? AND isk < ?\n",
		"BEGINS_WITH_OPEN": "AND isk >= ?\n",
	} {
		if q := st.get("index_query", stmtVars{ID: 3, Op: op}); !strings.Contains(q, want) {
			t.Errorf("index_query with Op %q:\n%s\nwant it to contain %q", op, q, want)
		}
	}
	q := st.get("item_query", stmtVars{ID: 3, Op: "GT", After: true, Desc: true})
	for _, want := range []string{"FROM t_3", "AND sk > ?\n   AND sk < ?\n", "ORDER BY sk DESC"} {
		if !strings.Contains(q, want) {
			t.Errorf("item_query:\n%s\nwant it to contain %q", q, want)
		}
	}
}
