package e2e

import (
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

const pqNotWellFormed = "Statement wasn't well formed, can't be processed: "

// pq runs one statement and returns its output.
func pq(t *testing.T, c *dynamodb.Client, stmt string, params ...types.AttributeValue) *dynamodb.ExecuteStatementOutput {
	t.Helper()
	out, err := pqTry(t, c, stmt, params...)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return out
}

func pqTry(t *testing.T, c *dynamodb.Client, stmt string, params ...types.AttributeValue) (*dynamodb.ExecuteStatementOutput, error) {
	t.Helper()
	in := &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt)}
	if len(params) > 0 {
		in.Parameters = params
	}
	return c.ExecuteStatement(harness.Ctx(t), in)
}

// pqKeys returns the "pk/sk" of items, in order.
func pqKeys(items []Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		s := ""
		if v, ok := it["pk"].(*types.AttributeValueMemberS); ok {
			s = v.Value
		}
		switch v := it["sk"].(type) {
		case *types.AttributeValueMemberN:
			s += "/" + v.Value
		case *types.AttributeValueMemberS:
			s += "/" + v.Value
		}
		out[i] = s
	}
	return out
}

func TestPartiQLStatements(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		tbl := createRangeTable(t, c, "pq", "N")
		q := `"` + tbl + `"`

		// INSERT with literals of every kind and with parameters.
		pq(t, c, `INSERT INTO `+q+` VALUE {'pk': 'a', 'sk': 1, 'n': 1.50, 'b': true, 'z': null, 'l': [1, 'x'], 'm': {'k': 'v'}, 'ss': <<'q', 'p'>>}`)
		for i := 2; i <= 5; i++ {
			pq(t, c, `INSERT INTO `+q+` VALUE {'pk': ?, 'sk': ?, 'n': ?}`, S("a"), N(fmt.Sprint(i)), N(fmt.Sprint(i*10)))
		}
		pq(t, c, `INSERT INTO `+q+` VALUE {'pk': 'b', 'sk': 1, 'tag': 'red'}`)
		assertItem(t, "inserted", get(t, c, tbl, Item{"pk": S("a"), "sk": N("1")}), Item{
			"pk": S("a"), "sk": N("1"), "n": N("1.5"), "b": BOOL(true), "z": NULL(),
			"l": L(N("1"), S("x")), "m": M(Item{"k": S("v")}), "ss": SS("p", "q"),
		})

		// INSERT of a key that exists.
		_, err := pqTry(t, c, `INSERT INTO `+q+` VALUE {'pk': 'a', 'sk': 1}`)
		expectAPIError(t, err, "DuplicateItemException", "Duplicate primary key exists in table")

		// SELECT: a Query on the partition key, in sort key order.
		out := pq(t, c, `SELECT * FROM `+q+` WHERE pk = 'a'`)
		if got := pqKeys(out.Items); fmt.Sprint(got) != "[a/1 a/2 a/3 a/4 a/5]" {
			t.Errorf("select by pk: %v", got)
		}
		out = pq(t, c, `SELECT * FROM `+q+` WHERE pk = ? AND sk BETWEEN 2 AND 4 ORDER BY sk DESC`, S("a"))
		if got := pqKeys(out.Items); fmt.Sprint(got) != "[a/4 a/3 a/2]" {
			t.Errorf("select between desc: %v", got)
		}
		out = pq(t, c, `SELECT pk, sk FROM `+q+` WHERE pk = 'a' AND sk > 3 AND n >= 50`)
		if len(out.Items) != 1 {
			t.Fatalf("select with filter: %d items", len(out.Items))
		}
		assertItem(t, "projected", out.Items[0], Item{"pk": S("a"), "sk": N("5")})
		out = pq(t, c, `SELECT m.k, l[1] FROM `+q+` WHERE pk = 'a' AND sk = 1`)
		if len(out.Items) != 1 {
			t.Fatalf("select by full key: %d items", len(out.Items))
		}
		// A nested path's column is named by its last name (PartiQL's shape,
		// measured); a path ending in a list index keeps the list.
		assertItem(t, "document paths", out.Items[0], Item{"k": S("v"), "l": L(S("x"))})

		// Scans with filters.
		out = pq(t, c, `SELECT * FROM `+q+` WHERE tag IS NOT MISSING OR begins_with(pk, 'zz')`)
		if got := pqKeys(out.Items); fmt.Sprint(got) != "[b/1]" {
			t.Errorf("scan filter: %v", got)
		}
		out = pq(t, c, `SELECT * FROM `+q+` WHERE pk IN ['a', 'b'] AND sk = 1`)
		got := pqKeys(out.Items)
		sort.Strings(got)
		if fmt.Sprint(got) != "[a/1 b/1]" {
			t.Errorf("scan IN: %v", got)
		}
		out = pq(t, c, `SELECT * FROM `+q+` WHERE pk = 'a' AND NOT (n < 30) AND tag IS MISSING`)
		if got := pqKeys(out.Items); fmt.Sprint(got) != "[a/3 a/4 a/5]" {
			t.Errorf("NOT and IS MISSING: %v", got)
		}

		// UPDATE with SET, arithmetic, REMOVE and RETURNING.
		out = pq(t, c, `UPDATE `+q+` SET n = n + ?, extra = 'e' REMOVE z WHERE pk = 'a' AND sk = 1 RETURNING ALL NEW *`, N("1"))
		if len(out.Items) != 1 {
			t.Fatalf("update returning: %d items", len(out.Items))
		}
		want := Item{"pk": S("a"), "sk": N("1"), "n": N("2.5"), "b": BOOL(true), "l": L(N("1"), S("x")), "m": M(Item{"k": S("v")}), "ss": SS("p", "q"), "extra": S("e")}
		assertItem(t, "update returning", out.Items[0], want)
		assertItem(t, "updated", get(t, c, tbl, Item{"pk": S("a"), "sk": N("1")}), want)
		out = pq(t, c, `UPDATE `+q+` SET ss = set_add(ss, <<'r'>>) WHERE pk = 'a' AND sk = 1`)
		if len(out.Items) != 0 {
			t.Errorf("update without RETURNING: %d items", len(out.Items))
		}
		if it := get(t, c, tbl, Item{"pk": S("a"), "sk": N("1")}); show(canon(it["ss"])) != `{"SS":["p","q","r"]}` {
			t.Errorf("set_add: %s", show(canon(it["ss"])))
		}

		// UPDATE of a missing item, and a WHERE that does not hold.
		_, err = pqTry(t, c, `UPDATE `+q+` SET n = 1 WHERE pk = 'nope' AND sk = 1`)
		expectCCF(t, err)
		_, err = pqTry(t, c, `UPDATE `+q+` SET n = 1 WHERE pk = 'a' AND sk = 2 AND n = 999`)
		expectCCF(t, err)

		// DELETE: a condition that fails, one that holds, a missing item.
		_, err = pqTry(t, c, `DELETE FROM `+q+` WHERE pk = 'a' AND sk = 2 AND n > 100`)
		expectCCF(t, err)
		out = pq(t, c, `DELETE FROM `+q+` WHERE pk = 'a' AND sk = 2 AND n = 20 RETURNING ALL OLD *`)
		if len(out.Items) != 1 {
			t.Errorf("delete returning: %d items", len(out.Items))
		}
		if it := get(t, c, tbl, Item{"pk": S("a"), "sk": N("2")}); it != nil {
			t.Errorf("deleted item still there: %s", show(canonItem(it)))
		}
		pq(t, c, `DELETE FROM `+q+` WHERE pk = 'a' AND sk = 2`)
	})
}

func TestPartiQLPaging(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		tbl := createHashTable(t, c, "pqpage")
		for i := 0; i < 23; i++ {
			put(t, c, tbl, Item{"pk": S(fmt.Sprintf("k%02d", i)), "v": N(fmt.Sprint(i))})
		}
		// What NoSQL Workbench and JetBrains' tools send: SELECT * and NextToken.
		for _, limit := range []int32{0, 5} {
			seen := map[string]bool{}
			var token *string
			pages := 0
			for {
				in := &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "` + tbl + `"`), NextToken: token}
				if limit > 0 {
					in.Limit = aws.Int32(limit)
				}
				out, err := c.ExecuteStatement(harness.Ctx(t), in)
				if err != nil {
					t.Fatal(err)
				}
				pages++
				if limit > 0 && len(out.Items) > int(limit) {
					t.Errorf("page of %d items with Limit %d", len(out.Items), limit)
				}
				for _, k := range pqKeys(out.Items) {
					if seen[k] {
						t.Errorf("item %s twice", k)
					}
					seen[k] = true
				}
				if out.NextToken == nil {
					break
				}
				token = out.NextToken
				if pages > 50 {
					t.Fatal("paging does not end")
				}
			}
			if len(seen) != 23 {
				t.Errorf("Limit %d: %d items over %d pages, want 23", limit, len(seen), pages)
			}
			if limit == 5 && pages < 5 {
				t.Errorf("Limit 5: %d pages", pages)
			}
		}
		// A token of another statement.
		out, err := c.ExecuteStatement(harness.Ctx(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "` + tbl + `"`), Limit: aws.Int32(2)})
		must(t, err)
		_, err = c.ExecuteStatement(harness.Ctx(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT pk FROM "` + tbl + `"`), NextToken: out.NextToken})
		expectValidation(t, err, "NextToken does not match request")
		_, err = c.ExecuteStatement(harness.Ctx(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "` + tbl + `"`), NextToken: aws.String("garbage!")})
		expectValidation(t, err, "Invalid NextToken")
	})
}

func TestPartiQLIndex(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		tbl := ixCreate(t, c, "pqix")
		put(t, c, tbl, Item{"pk": S("p1"), "sk": S("a"), "g3": S("x"), "v": N("1")})
		put(t, c, tbl, Item{"pk": S("p2"), "sk": S("b"), "g3": S("x"), "v": N("2")})
		put(t, c, tbl, Item{"pk": S("p3"), "sk": S("c"), "g3": S("y"), "v": N("3")})
		out := pq(t, c, `SELECT pk, v FROM "`+tbl+`"."gax" WHERE g3 = 'x'`)
		got := pqKeys(out.Items)
		sort.Strings(got)
		if fmt.Sprint(got) != "[p1 p2]" {
			t.Errorf("index query: %v", got)
		}
		out = pq(t, c, `SELECT * FROM "`+tbl+`"."gax"`)
		if len(out.Items) != 3 {
			t.Errorf("index scan: %d items", len(out.Items))
		}
		_, err := c.ExecuteStatement(harness.Ctx(t), &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT * FROM "` + tbl + `"."gax"`), ConsistentRead: aws.Bool(true)})
		expectValidation(t, err, "Strongly consistent read is not supported on Global Secondary Indexes")
	})
}

func TestPartiQLErrors(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		tbl := createRangeTable(t, c, "pqerr", "S")
		q := `"` + tbl + `"`
		cases := map[string]string{
			`SELECT * FROM ` + q + ` WHERE pk = 'a' foo`:  pqNotWellFormed + "Unexpected token after expression",
			`SELECT * FROM ` + q + ` WHERE`:               pqNotWellFormed + "Unexpected term",
			`SELECT * FROM ` + q + ` WHERE pk = 'p1' AND`: pqNotWellFormed + "Missing right-hand side expression of infix operator",
			`SELECT * FROM ` + q + ` WHERE ORDER BY pk`:   pqNotWellFormed + "Unexpected keyword",
			`DELETE FROM`: pqNotWellFormed + "Expected identifier for simple path",
			`SELECT * FROM ` + q + ` t WHERE pk = 'x'`:                    "Aliasing is not supported",
			`SELECT * FROM ` + q + ` WHERE pk = ?`:                        "Number of parameters in request and statement don't match.",
			`UPDATE ` + q + ` SET a = 1 WHERE pk = 'x'`:                   "Where clause does not contain a mandatory equality on all key attributes",
			`DELETE FROM ` + q + ` WHERE pk = 'x' OR sk = 'y'`:            "Where clause does not contain a mandatory equality on all key attributes",
			`SELECT * FROM ` + q + ` ORDER BY sk`:                         "Must have WHERE clause in the statement when using ORDER BY clause.",
			`SELECT * FROM ` + q + ` WHERE pk = 'a' ORDER BY other`:       "Variable reference other in ORDER BY clause must be part of the primary key",
			`SELECT * FROM ` + q + ` WHERE sk = 'a' ORDER BY sk`:          "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.",
			`INSERT INTO ` + q + ` VALUE {'pk': 'a'}`:                     "One or more parameter values were invalid: Missing the key sk in the item",
			`EXISTS(SELECT * FROM ` + q + ` WHERE pk = 'a' AND sk = 'b')`: "EXISTS can only be used in ExecuteTransaction write requests.",
			`UPDATE ` + q + ` SET pk = 'b' WHERE pk = 'a' AND sk = 'b'`:   "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key",
		}
		for stmt, msg := range cases {
			_, err := pqTry(t, c, stmt)
			if err == nil {
				t.Errorf("%s: succeeded", stmt)
				continue
			}
			expectValidation(t, err, msg)
		}
		_, err := pqTry(t, c, `SELECT * FROM "pq_no_such_table"`)
		expectNotFound(t, err)
		_, err = pqTry(t, c, `INSERT INTO "pq_no_such_table" VALUE {'pk': 'a'}`)
		expectNotFound(t, err)
		expectRawValidation(t, s, "ExecuteStatement", `{}`, "1 validation error detected: Value null at 'statement' failed to satisfy constraint: Member must not be null")
	})
}

func TestPartiQLBatch(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		tbl := createHashTable(t, c, "pqbatch")
		q := `"` + tbl + `"`
		put(t, c, tbl, Item{"pk": S("dup"), "v": N("0")})
		st := func(stmt string, params ...types.AttributeValue) types.BatchStatementRequest {
			r := types.BatchStatementRequest{Statement: aws.String(stmt)}
			if len(params) > 0 {
				r.Parameters = params
			}
			return r
		}
		out, err := c.BatchExecuteStatement(harness.Ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
			st(`INSERT INTO ` + q + ` VALUE {'pk': 'a', 'v': 1}`),
			st(`INSERT INTO ` + q + ` VALUE {'pk': 'dup'}`),
			st(`INSERT INTO `+q+` VALUE {'pk': ?, 'v': ?}`, S("b"), N("2")),
			st(`UPDATE ` + q + ` SET v = 5 WHERE pk = 'missing'`),
			st(`SELEC * FROM ` + q),
			st(`DELETE FROM ` + q + ` WHERE pk = 'dup'`),
		}})
		must(t, err)
		if len(out.Responses) != 6 {
			t.Fatalf("%d responses", len(out.Responses))
		}
		wantCodes := []string{"", "DuplicateItem", "", "ConditionalCheckFailed", "ValidationError", ""}
		for i, r := range out.Responses {
			code := ""
			if r.Error != nil {
				code = string(r.Error.Code)
			}
			if code != wantCodes[i] {
				t.Errorf("response %d: code %q, want %q (%+v)", i, code, wantCodes[i], r.Error)
			}
		}
		if e := out.Responses[1].Error; e != nil && aws.ToString(e.Message) != "Duplicate primary key exists in table" {
			t.Errorf("duplicate message %q", aws.ToString(e.Message))
		}
		if e := out.Responses[4].Error; e != nil && aws.ToString(e.Message) != pqNotWellFormed+"Expected data manipulation" {
			t.Errorf("syntax message %q", aws.ToString(e.Message))
		}
		if get(t, c, tbl, Item{"pk": S("dup")}) != nil || get(t, c, tbl, Item{"pk": S("b")}) == nil {
			t.Error("batch writes not applied")
		}

		// Reads: by full key, one missing.
		rout, err := c.BatchExecuteStatement(harness.Ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
			st(`SELECT * FROM ` + q + ` WHERE pk = 'a'`),
			st(`SELECT v FROM `+q+` WHERE pk = ?`, S("b")),
			st(`SELECT * FROM ` + q + ` WHERE pk = 'nope'`),
		}})
		must(t, err)
		if len(rout.Responses) != 3 {
			t.Fatalf("%d responses", len(rout.Responses))
		}
		assertItem(t, "read 0", rout.Responses[0].Item, Item{"pk": S("a"), "v": N("1")})
		assertItem(t, "read 1", rout.Responses[1].Item, Item{"v": N("2")})
		assertItem(t, "read 2", rout.Responses[2].Item, nil)
		if aws.ToString(rout.Responses[0].TableName) != tbl {
			t.Errorf("TableName %q", aws.ToString(rout.Responses[0].TableName))
		}

		_, err = c.BatchExecuteStatement(harness.Ctx(t), &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
			st(`SELECT * FROM ` + q + ` WHERE pk = 'a'`),
			st(`DELETE FROM ` + q + ` WHERE pk = 'a'`),
		}})
		expectValidation(t, err, "Read and write requests together in the same batch is not supported.")
	})
}

func TestPartiQLTransaction(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		tbl := createHashTable(t, c, "pqtx")
		q := `"` + tbl + `"`
		put(t, c, tbl, Item{"pk": S("acct1"), "bal": N("100")})
		put(t, c, tbl, Item{"pk": S("acct2"), "bal": N("0")})
		ps := func(stmt string, params ...types.AttributeValue) types.ParameterizedStatement {
			r := types.ParameterizedStatement{Statement: aws.String(stmt)}
			if len(params) > 0 {
				r.Parameters = params
			}
			return r
		}
		transfer := []types.ParameterizedStatement{
			ps(`UPDATE `+q+` SET bal = bal - ? WHERE pk = 'acct1' AND bal >= ?`, N("60"), N("60")),
			ps(`UPDATE `+q+` SET bal = bal + ? WHERE pk = 'acct2'`, N("60")),
			ps(`INSERT INTO ` + q + ` VALUE {'pk': 'log1'}`),
			ps(`EXISTS(SELECT * FROM ` + q + ` WHERE pk = 'acct2' AND bal = 0)`),
		}
		// EXISTS on acct2 conflicts with its update: one item, two operations.
		_, err := c.ExecuteTransaction(harness.Ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: transfer})
		expectValidation(t, err, "Transaction request cannot include multiple operations on one item")
		transfer = transfer[:3]
		_, err = c.ExecuteTransaction(harness.Ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: transfer, ClientRequestToken: aws.String("tok-1")})
		must(t, err)
		// The same token again replays: nothing runs twice.
		_, err = c.ExecuteTransaction(harness.Ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: transfer, ClientRequestToken: aws.String("tok-1")})
		must(t, err)
		if b := balanceOf(t, get(t, c, tbl, Item{"pk": S("acct1")}), "bal"); b != 40 {
			t.Errorf("acct1 balance %d, want 40", b)
		}
		if b := balanceOf(t, get(t, c, tbl, Item{"pk": S("acct2")}), "bal"); b != 60 {
			t.Errorf("acct2 balance %d, want 60", b)
		}
		_, err = c.ExecuteTransaction(harness.Ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: transfer[:1], ClientRequestToken: aws.String("tok-1")})
		var ipm *types.IdempotentParameterMismatchException
		if !errors.As(err, &ipm) {
			t.Errorf("token reuse: %v", err)
		}

		// A failing transaction changes nothing: reasons per statement.
		_, err = c.ExecuteTransaction(harness.Ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
			ps(`UPDATE ` + q + ` SET bal = bal - 60 WHERE pk = 'acct1' AND bal >= 60`),
			ps(`INSERT INTO ` + q + ` VALUE {'pk': 'log1'}`),
			ps(`DELETE FROM ` + q + ` WHERE pk = 'acct2'`),
			ps(`EXISTS(SELECT * FROM ` + q + ` WHERE pk = 'nobody')`),
		}})
		expectCanceled(t, err, "ConditionalCheckFailed", "DuplicateItem", "None", "ConditionalCheckFailed")
		if get(t, c, tbl, Item{"pk": S("acct2")}) == nil {
			t.Error("cancelled transaction deleted acct2")
		}

		// Reads.
		out, err := c.ExecuteTransaction(harness.Ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
			ps(`SELECT bal FROM ` + q + ` WHERE pk = 'acct1'`),
			ps(`SELECT * FROM ` + q + ` WHERE pk = 'nobody'`),
		}})
		must(t, err)
		if len(out.Responses) != 2 {
			t.Fatalf("%d responses", len(out.Responses))
		}
		assertItem(t, "tx read 0", out.Responses[0].Item, Item{"bal": N("40")})
		assertItem(t, "tx read 1", out.Responses[1].Item, nil)

		// Refusals.
		_, err = c.ExecuteTransaction(harness.Ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
			ps(`SELECT * FROM ` + q + ` WHERE pk = 'acct1'`),
			ps(`DELETE FROM ` + q + ` WHERE pk = 'acct2'`),
		}})
		expectValidation(t, err, "ExecuteTransaction API does not support both read and write operations in the same request.")
		_, err = c.ExecuteTransaction(harness.Ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
			ps(`SELECT * FROM ` + q),
		}})
		expectValidation(t, err, "Select statements within ExecuteTransaction must specify the primary key in the where clause.")
		_, err = c.ExecuteTransaction(harness.Ctx(t), &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
			ps(`SELECT * FROM ` + q + ` WHERE`),
		}})
		expectValidation(t, err, "Validation failed in TransactStatements[0]: "+pqNotWellFormed+"Unexpected term")
	})
}
