package pgstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// TestExplainMultiKey checks that a Query of an index with a multi-attribute
// key (2 + 2 attributes) is an index scan of i_<id>'s primary key, whose
// columns are one per key attribute, for every length of the equality
// prefix, with and without a range condition on the next column.
func TestExplainMultiKey(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	gsi := store.Index{Name: "g", Global: true, Hash: store.KeyAttr{Name: "a", Type: attr.TypeS},
		MoreHash: []store.KeyAttr{{Name: "b", Type: attr.TypeN}},
		Range:    &store.KeyAttr{Name: "c", Type: attr.TypeS}, MoreRange: []store.KeyAttr{{Name: "d", Type: attr.TypeN}},
		Projection: store.Projection{Type: "KEYS_ONLY"}}
	tb := newTable(t, s, "explain_mk", attr.TypeS, attr.TypeS, gsi)
	pool := s.Pool()
	ops := make([]store.WriteOp, 2000)
	for i := range ops {
		it := attr.Item{"pk": attr.Str(fmt.Sprintf("p%d", i)), "sk": attr.Str("s"),
			"a": attr.Str(fmt.Sprintf("a%d", i%10)), "b": attr.Num(fmt.Sprint(i % 7)),
			"c": attr.Str(fmt.Sprintf("c%d", i%13)), "d": attr.Num(fmt.Sprint(i))}
		ops[i] = store.WriteOp{Table: tb, Key: tb.KeyOf(it), Put: it}
	}
	if _, err := s.ItemWriteMany(ctx, ops); err != nil {
		t.Fatal(err)
	}
	ix := tb.Indexes[0].ID
	var cols string
	if err := pool.QueryRow(ctx, `SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute
	                              WHERE attrelid = $1::regclass AND attnum > 0`, fmt.Sprintf("dynamopg_data.i_%d", ix)).Scan(&cols); err != nil {
		t.Fatal(err)
	}
	if cols != "hk,ipk,ipk2,isk,isk2,pk,sk,item" {
		t.Errorf("i_%d columns %s, want one per key attribute", ix, cols)
	}
	if _, err := pool.Exec(ctx, fmt.Sprintf("ANALYZE dynamopg_data.i_%d", ix)); err != nil {
		t.Fatal(err)
	}
	after := `{"pk":{"S":"p3"},"sk":{"S":"s"},"a":{"S":"a3"},"b":{"N":"3"},"c":{"S":"c3"},"d":{"N":"3"}}`
	cases := []struct {
		eq   int
		op   string
		args []any
	}{
		{2, "", []any{`[{"S":"a3"},{"N":"3"}]`, nil, nil, after, 10}},
		{2, "BETWEEN", []any{`[{"S":"a3"},{"N":"3"}]`, `{"S":"c1"}`, `{"S":"c5"}`, nil, 10}},
		{3, "", []any{`[{"S":"a3"},{"N":"3"},{"S":"c3"}]`, nil, nil, nil, 10}},
		{3, "GT", []any{`[{"S":"a3"},{"N":"3"},{"S":"c3"}]`, `{"N":"100"}`, nil, after, 10}},
		{4, "", []any{`[{"S":"a3"},{"N":"3"},{"S":"c3"},{"N":"3"}]`, nil, nil, nil, 10}},
	}
	for _, c := range cases {
		var stmt string
		if err := pool.QueryRow(ctx, `SELECT dynamopg.item_query_sql(dynamopg.table_def($1, false), $2, $3, true, $4, $5)`,
			tb.ID, ix, c.op, c.args[3] != nil, c.eq).Scan(&stmt); err != nil {
			t.Fatalf("eq %d %s: %v", c.eq, c.op, err)
		}
		rows, err := pool.Query(ctx, "EXPLAIN "+stmt, c.args...)
		if err != nil {
			t.Fatalf("eq %d %s: %v\n%s", c.eq, c.op, err, stmt)
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
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		if !strings.Contains(text, fmt.Sprintf("i_%d_pkey", ix)) || strings.Contains(text, "Seq Scan") {
			t.Errorf("eq %d %s: not a scan of the primary key:\n%s\n%s", c.eq, c.op, stmt, text)
		}
		t.Logf("eq %d %s:\n%s\n%s", c.eq, c.op, stmt, text)
	}
	// A prefix that skips a partition attribute, or a range condition with
	// no column after the equalities, is refused.
	for _, bad := range []struct {
		eq int
		op string
	}{{1, ""}, {4, "GT"}, {5, ""}} {
		var stmt string
		err := pool.QueryRow(ctx, `SELECT dynamopg.item_query_sql(dynamopg.table_def($1, false), $2, $3, true, false, $4)`,
			tb.ID, ix, bad.op, bad.eq).Scan(&stmt)
		if err == nil || !strings.Contains(err.Error(), "equalities") {
			t.Errorf("eq %d %q: %v, want refused", bad.eq, bad.op, err)
		}
	}
}
