package pgstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// TestExplain checks the statements item_query and item_scan run: a Query
// of one partition and a Scan segment are index scans, never Seq Scans.
func TestExplain(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	gsi := store.Index{Name: "g", Global: true, Hash: store.KeyAttr{Name: "g", Type: attr.TypeS},
		Range: &store.KeyAttr{Name: "sk", Type: attr.TypeS}, Projection: store.Projection{Type: "ALL"}}
	tb := newTable(t, s, "explain", attr.TypeS, attr.TypeS, gsi)
	pool := s.Pool()
	// 2000 items in 20 partitions, written in one pipeline for speed.
	ops := make([]store.WriteOp, 2000)
	for i := range ops {
		it := attr.Item{"pk": attr.Str(fmt.Sprintf("p%d", (i+1)%20)), "sk": attr.Str(fmt.Sprintf("s%d", i+1)),
			"g": attr.Str(fmt.Sprintf("g%d", (i+1)%20))}
		ops[i] = store.WriteOp{Table: tb, Key: tb.KeyOf(it), Put: it}
	}
	if _, err := s.ItemWriteMany(ctx, ops); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, fmt.Sprintf("ANALYZE dynamopg_data.t_%d, dynamopg_data.i_%d", tb.ID, tb.Indexes[0].ID)); err != nil {
		t.Fatal(err)
	}
	hash, v1, v2 := `{"S":"p3"}`, `{"S":"s1"}`, `{"S":"s5"}`
	after := `{"pk":{"S":"p3"},"sk":{"S":"s100"},"g":{"S":"g3"}}`
	cases := []struct {
		name string
		sql  string // the builder call
		args []any  // the statement's parameters
	}{
		{"query between forward after", `SELECT dynamopg.item_query_sql(dynamopg.table_def($1, false), 0, 'BETWEEN', true, true)`,
			[]any{hash, v1, v2, after, 10}},
		{"query begins_with reverse", `SELECT dynamopg.item_query_sql(dynamopg.table_def($1, false), 0, 'BEGINS_WITH', false, false)`,
			[]any{hash, v1, v2, nil, 10}},
		{"query index lt after", fmt.Sprintf(`SELECT dynamopg.item_query_sql(dynamopg.table_def($1, false), %d, 'LT', true, true)`, tb.Indexes[0].ID),
			[]any{`{"S":"g3"}`, v2, nil, after, 10}},
		{"scan after", `SELECT dynamopg.item_scan_sql(dynamopg.table_def($1, false), 0, true)`,
			[]any{0, 1 << 30, after, 10}},
		{"scan index", fmt.Sprintf(`SELECT dynamopg.item_scan_sql(dynamopg.table_def($1, false), %d, false)`, tb.Indexes[0].ID),
			[]any{1 << 30, 1 << 31, nil, 10}},
	}
	for _, c := range cases {
		var stmt string
		if err := pool.QueryRow(ctx, c.sql, tb.ID).Scan(&stmt); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// The statement types the parameters it leaves unused itself.
		rows, err := pool.Query(ctx, "EXPLAIN "+stmt, c.args...)
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, stmt)
		}
		var plan []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, line)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		text := strings.Join(plan, "\n")
		if strings.Contains(text, "Seq Scan") || !strings.Contains(text, "Index") {
			t.Errorf("%s: not an index scan:\n%s\n%s", c.name, stmt, text)
		}
		t.Logf("%s:\n%s\n%s", c.name, stmt, text)
	}
}
