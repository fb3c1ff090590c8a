package partiql

import (
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
)

func TestParseStatements(t *testing.T) {
	cases := []struct {
		in     string
		kind   Kind
		table  string
		index  string
		params int
	}{
		{`SELECT * FROM "t"`, Select, "t", "", 0},
		{`select * from "t"."ix" where pk = ?`, Select, "t", "ix", 1},
		{`SELECT a, b.c[1], "d" FROM t WHERE pk = 'x' AND sk BETWEEN 1 AND 2 ORDER BY sk DESC;`, Select, "t", "", 0},
		{`SELECT * FROM "t" WHERE pk IN ['a', 'b'] OR NOT x IS MISSING`, Select, "t", "", 0},
		{`INSERT INTO "t" VALUE {'pk': 'a', 'n': 1, 'l': [1, 'x'], 'm': {'k': true}, 's': <<'a', 'b'>>, 'z': null}`, Insert, "t", "", 0},
		{`UPDATE "t" SET a = 1, b = b + ? REMOVE c WHERE pk = 'x' RETURNING ALL NEW *`, Update, "t", "", 1},
		{`UPDATE "t" SET a = 1 SET b = 2 WHERE pk = 'x'`, Update, "t", "", 0},
		{`DELETE FROM "t" WHERE pk = 'x' AND a > 1 -- comment`, Delete, "t", "", 0},
		{`/* c */ EXISTS(SELECT * FROM "t" WHERE pk = ? AND a = ?)`, Exists, "t", "", 2},
	}
	for _, c := range cases {
		st, err := Parse(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if st.Kind != c.kind || st.Table != c.table || st.Index != c.index || st.Params != c.params {
			t.Errorf("%s: got %v %q %q %d", c.in, st.Kind, st.Table, st.Index, st.Params)
		}
	}
}

func TestParseErrors(t *testing.T) {
	nwf := MsgNotWellFormed
	cases := map[string]string{
		`SELECT * FROM "t" WHERE pk = 1 foo`:          nwf + "Unexpected token after expression",
		`SELECT * FROM "t" WHERE pk = 1)`:             nwf + "Unexpected token after expression",
		`SELECT * FROM "t" ORDER BY pk WHERE pk = 1`:  nwf + "Unexpected token after expression",
		`DELETE FROM "t" WHERE pk = 1 ORDER BY pk`:    nwf + "Unexpected token after expression",
		`SELECT * FROM "t" WHERE`:                     nwf + "Unexpected term",
		`SELECT * FROM "t" WHERE NOT`:                 nwf + "Unexpected term",
		`SELECT * FROM "t" WHERE (`:                   nwf + "Unexpected term",
		`SELECT * FROM`:                               nwf + "Unexpected term",
		`SELECT * FROM "t" WHERE pk = 'p1' AND`:       nwf + "Missing right-hand side expression of infix operator",
		`SELECT * FROM "t" WHERE pk = 'p1' OR`:        nwf + "Missing right-hand side expression of infix operator",
		`SELECT * FROM "t" WHERE ORDER BY pk`:         nwf + "Unexpected keyword",
		`SELECT * FROM "t" WHERE IS NULL`:             nwf + "Unexpected operator",
		`SELECT * FROM "t" WHERE pk = LIKE`:           nwf + "Unexpected operator",
		`DELETE FROM`:                                 nwf + "Expected identifier for simple path",
		`DELETE FROM WHERE pk = 'a'`:                  nwf + "Expected identifier for simple path",
		`SELECT * FROM "t" WHERE pk = 1 # note`:       nwf,
		`SELECT * FROM "t" WHERE pk = 1 /* note`:      nwf,
		`SELECT * FROM "t" WHERE pk = 'x`:             nwf,
		`SELECT * FROM "t" t WHERE pk = 'x'`:          MsgAliasing,
		`SELECT * FROM "t" AS t WHERE pk = 'x'`:       MsgAliasing,
		`DELETE FROM "t" t WHERE pk = 'x'`:            MsgAliasing,
		`SELECT *, a FROM "t"`:                        MsgStarAndOthers,
		`INSERT INTO "t" VALUES ('a')`:                MsgInsertMultiple,
		`INSERT INTO "t" VALUE {'pk': 'a'} RETURNING`: MsgReturningInsert,
		`UPDATE "t" SET a = 1`:                        MsgIncompleteKey,
		`FOO`:                                         nwf + "Expected data manipulation",
		``:                                            nwf + "Unexpected term",
		`SELECT * FROM "" WHERE pk = 'x'`:             MsgEmptyPathComponent,
		`SELECT * FROM "t"."" WHERE pk = 'x'`:         MsgEmptyPathComponent,
		`SELECT * FROM "t"."i"."x" WHERE pk = 'x'`:    MsgPathComponents,
	}
	for in, want := range cases {
		_, err := Parse(in)
		if err == nil {
			t.Errorf("%s: parsed", in)
			continue
		}
		if err.Error() != want {
			t.Errorf("%s:\n got  %s\n want %s", in, err.Error(), want)
		}
	}
}

func TestCompile(t *testing.T) {
	st, err := Parse(`SELECT a.b[2], c FROM "t" WHERE pk = ? AND (x > 3 OR begins_with(y, 'p')) AND z IS NOT MISSING AND w IN [1, 2] AND NOT v BETWEEN 'a' AND 'c'`)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCompiler([]attr.Value{attr.Str("k")})
	if got := c.Projection(st.Projection); got != "#n0.#n1[2], #n2" {
		t.Errorf("projection %q", got)
	}
	got, err := c.Condition(st.Where)
	if err != nil {
		t.Fatal(err)
	}
	want := "((((#n3 = :v0) AND ((#n4 > :v1) OR (begins_with(#n5, :v2)))) AND (attribute_exists(#n6))) AND (#n7 IN (:v3, :v4))) AND (NOT (#n8 BETWEEN :v5 AND :v6))"
	if got != want {
		t.Errorf("condition\n got  %s\n want %s", got, want)
	}
	kc, err := c.KeyConds(st.Where, "pk", "x")
	if err != nil || len(kc) != 1 || kc[0].Name != "pk" || kc[0].Values[0].S != "k" {
		t.Errorf("key conds %+v %v", kc, err)
	}
	u, err := Parse(`UPDATE "t" SET a = a + 1, s = set_add(s, <<'x'>>), l = list_append(l, [1]) REMOVE r WHERE pk = 'x'`)
	if err != nil {
		t.Fatal(err)
	}
	c = NewCompiler(nil)
	got, err = c.Update(u.Sets, u.Removes)
	if err != nil {
		t.Fatal(err)
	}
	if want := "SET #n0 = #n0 + :v0, #n2 = list_append(#n2, :v2) REMOVE #n3 ADD #n1 :v1"; got != want {
		t.Errorf("update\n got  %s\n want %s", got, want)
	}
}

func TestConstValues(t *testing.T) {
	st, err := Parse(`INSERT INTO "t" VALUE {'pk': 'a', 'n': -1.50, 'ns': <<3, 1>>, 'b': false, 'z': NULL, 'l': [?]}`)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCompiler([]attr.Value{attr.Num("7")})
	v, err := c.Const(st.Value)
	if err != nil {
		t.Fatal(err)
	}
	if v.M["n"].S != "-1.5" || v.M["ns"].T != attr.TypeNS || v.M["b"].T != attr.TypeBOOL || v.M["z"].T != attr.TypeNULL || v.M["l"].L[0].S != "7" {
		t.Errorf("value %+v", v)
	}
	bad := []string{`INSERT INTO "t" VALUE {'pk': <<>>}`, `INSERT INTO "t" VALUE {'pk': <<1, 'a'>>}`, `INSERT INTO "t" VALUE {'pk': ?}`}
	for _, s := range bad {
		st, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NewCompiler(nil).Const(st.Value); err == nil {
			t.Errorf("%s: no error", s)
		}
	}
	st, _ = Parse(`SELECT * FROM "t" WHERE a = ? AND b = ?`)
	if err := st.CheckParams(1); err == nil || err.Error() != MsgParamCount {
		t.Errorf("params: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`SELECT * FROM "t" WHERE a = 1`, `UPDATE t SET a = [1, {'b': <<'c'>>}] WHERE pk = ?`, `EXISTS(SELECT * FROM t WHERE ((((a))))`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := Parse(s)
		if err != nil || st == nil {
			return
		}
		c := NewCompiler(nil)
		if st.Where != nil {
			_, _ = c.Condition(st.Where)
		}
		_, _ = c.Update(st.Sets, st.Removes)
		if st.Value != nil {
			_, _ = c.Const(st.Value)
		}
	})
}

func TestCheckOrdering(t *testing.T) {
	const pre = "Incorrect operand type for operator or function; operator or function: "
	cases := []struct {
		in     string
		params []attr.Value
		want   string
	}{
		{`SELECT * FROM "t" WHERE pk = ? AND v < ?`, []attr.Value{attr.Str("a"), {T: attr.TypeBOOL}}, pre + "<, operand type: BOOL"},
		{`SELECT * FROM "t" WHERE v >= true`, nil, pre + ">=, operand type: BOOL"},
		{`SELECT * FROM "t" WHERE NOT (v > [1])`, nil, pre + ">, operand type: L"},
		{`SELECT * FROM "t" WHERE v BETWEEN 1 AND null`, nil, pre + "BETWEEN, operand type: NULL"},
		{`SELECT * FROM "t" WHERE v < 'a' OR v <= 1`, nil, ""},
		{`SELECT * FROM "t" WHERE v = true AND w <> [1]`, nil, ""},
		{`SELECT * FROM "t" WHERE v < w`, nil, ""},
	}
	for _, c := range cases {
		st, err := Parse(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		got := ""
		if err := st.CheckOrdering(c.params); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s:\n got  %q\n want %q", c.in, got, c.want)
		}
	}
}
