package e2e

// Multi-attribute keys of global secondary indexes (issue 19): a GSI's
// KeySchema may name up to four HASH and then up to four RANGE attributes.
// A Query on such an index needs an equality on every partition attribute
// and, on the sort attributes, a left-to-right prefix of equalities,
// optionally ending with one range condition on the next one. The texts of
// the refusals that the service does not document (more than four of a
// kind, HASH after RANGE, duplicates among more than two elements, and
// which of its two Query texts each wrong key condition gets) are ours.

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// mkKeySchema is a KeySchema of the given HASH then RANGE attributes.
func mkKeySchema(hash []string, rng ...string) []types.KeySchemaElement {
	var ks []types.KeySchemaElement
	for _, h := range hash {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(h), KeyType: types.KeyTypeHash})
	}
	for _, r := range rng {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(r), KeyType: types.KeyTypeRange})
	}
	return ks
}

// mkKeySchemaText renders a KeySchema as DescribeTable returned it.
func mkKeySchemaText(ks []types.KeySchemaElement) string {
	var parts []string
	for _, k := range ks {
		parts = append(parts, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
	}
	return strings.Join(parts, ",")
}

func TestMultiKeyCreateValidation(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		defs := attrDefs("pk", "S", "h1", "S", "h2", "N", "h3", "B", "h4", "S", "h5", "S",
			"r1", "S", "r2", "N", "r3", "B", "r4", "S", "r5", "S")
		all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
		create := func(name string, defs []types.AttributeDefinition, ks []types.KeySchemaElement) error {
			_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
				TableName: aws.String(name), AttributeDefinitions: defs, KeySchema: keySchema("pk"),
				BillingMode:            types.BillingModePayPerRequest,
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("mkx"), KeySchema: ks, Projection: all}},
			})
			return err
		}
		// Valid: 4 + 4 (every scalar type), and 2 + 0; DescribeTable shows
		// the KeySchema as created.
		for _, tc := range []struct {
			hash, rng []string
		}{
			{[]string{"h1", "h2", "h3", "h4"}, []string{"r1", "r2", "r3", "r4"}},
			{[]string{"h2", "h1"}, nil},
			{[]string{"h1"}, []string{"r2", "r1"}},
		} {
			name := harness.TableName("mkok")
			var used []string
			for _, n := range append(append([]string{"pk"}, tc.hash...), tc.rng...) {
				used = append(used, n, map[string]string{"pk": "S", "h1": "S", "h2": "N", "h3": "B", "h4": "S", "r1": "S", "r2": "N", "r3": "B", "r4": "S"}[n])
			}
			ks := mkKeySchema(tc.hash, tc.rng...)
			must(t, create(name, attrDefs(used...), ks))
			d := waitActive(t, c, name)
			if len(d.GlobalSecondaryIndexes) != 1 || mkKeySchemaText(d.GlobalSecondaryIndexes[0].KeySchema) != mkKeySchemaText(ks) {
				t.Errorf("DescribeTable KeySchema %v, want %s", d.GlobalSecondaryIndexes, mkKeySchemaText(ks))
			}
		}

		member := func(path string, ks []types.KeySchemaElement, max int) string {
			var parts []string
			for _, k := range ks {
				parts = append(parts, fmt.Sprintf("KeySchemaElement(attributeName=%s, keyType=%s)", aws.ToString(k.AttributeName), k.KeyType))
			}
			return fmt.Sprintf("1 validation error detected: Value '[%s]' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d",
				strings.Join(parts, ", "), path, max)
		}
		nine := mkKeySchema([]string{"h1", "h2", "h3", "h4"}, "r1", "r2", "r3", "r4", "r5")
		for _, tc := range []struct {
			what string
			ks   []types.KeySchemaElement
			msg  string
		}{
			{"5 HASH", mkKeySchema([]string{"h1", "h2", "h3", "h4", "h5"}),
				"Invalid KeySchema: A global secondary index KeySchema can have at most 4 HASH KeySchemaElements"},
			{"5 RANGE", mkKeySchema([]string{"h1"}, "r1", "r2", "r3", "r4", "r5"),
				"Invalid KeySchema: A global secondary index KeySchema can have at most 4 RANGE KeySchemaElements"},
			{"9 elements", nine, member("globalSecondaryIndexes.1.member.keySchema", nine, 8)},
			{"HASH after RANGE", append(mkKeySchema([]string{"h1"}, "r1"), mkKeySchema([]string{"h2"})...),
				"Invalid KeySchema: HASH KeySchemaElements must precede RANGE KeySchemaElements"},
			{"RANGE first", append(mkKeySchema(nil, "r1"), mkKeySchema([]string{"h1", "h2"})...),
				"Invalid KeySchema: The first KeySchemaElement is not a HASH key type"},
			{"duplicate", mkKeySchema([]string{"h1", "h2"}, "h1"),
				"Invalid KeySchema: Duplicate KeySchemaElement attribute name: h1"},
			{"two HASH of one name", mkKeySchema([]string{"h1", "h1"}),
				"Both the Hash Key and the Range Key element in the KeySchema have the same name"},
			{"undefined", mkKeySchema([]string{"h1", "zz"}),
				"One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [h1, zz], AttributeDefinitions: [pk, h1, h2, h3, h4, h5, r1, r2, r3, r4, r5]"},
		} {
			err := create(harness.TableName("mkbad"), defs, tc.ks)
			if err == nil {
				t.Errorf("%s: created", tc.what)
				continue
			}
			expectValidation(t, err, tc.msg)
		}

		// Local indexes and the table keep one HASH and at most one RANGE.
		lsi := func(ks []types.KeySchemaElement) error {
			_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
				TableName: aws.String(harness.TableName("mklsi")), AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "r1", "S", "r2", "S"),
				KeySchema: keySchema("pk", "sk"), BillingMode: types.BillingModePayPerRequest,
				LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi"), KeySchema: ks, Projection: all}},
			})
			return err
		}
		three := mkKeySchema([]string{"pk"}, "r1", "r2")
		expectValidation(t, lsi(three), member("localSecondaryIndexes.1.member.keySchema", three, 2))
		expectValidation(t, lsi(mkKeySchema([]string{"pk", "r1"})), "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
		tableKS := mkKeySchema([]string{"pk", "h1"}, "r1")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(harness.TableName("mktab")),
			AttributeDefinitions: attrDefs("pk", "S", "h1", "S", "r1", "S"), KeySchema: tableKS, BillingMode: types.BillingModePayPerRequest})
		expectValidation(t, err, member("keySchema", tableKS, 2))

		// UpdateTable's Create: the same rules; a refused one changes nothing.
		name := harness.TableName("mkupd")
		must(t, create(name, attrDefs("pk", "S", "h1", "S"), mkKeySchema([]string{"h1"})))
		waitActive(t, c, name)
		upd := func(ks []types.KeySchemaElement) error {
			_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), AttributeDefinitions: defs,
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
					IndexName: aws.String("mkx2"), KeySchema: ks, Projection: all}}}})
			return err
		}
		expectValidation(t, upd(mkKeySchema([]string{"h1", "h2", "h3", "h4", "h5"})),
			"Invalid KeySchema: A global secondary index KeySchema can have at most 4 HASH KeySchemaElements")
		expectValidation(t, upd(nine), member("globalSecondaryIndexUpdates.1.member.create.keySchema", nine, 8))
		expectValidation(t, upd(append(mkKeySchema([]string{"h1"}, "r1"), mkKeySchema([]string{"h2"})...)),
			"Invalid KeySchema: HASH KeySchemaElements must precede RANGE KeySchemaElements")
		if d := describeTable(t, c, name); len(d.GlobalSecondaryIndexes) != 1 || len(d.AttributeDefinitions) != 2 {
			t.Errorf("refused UpdateTable changed the table: %d indexes, %d definitions", len(d.GlobalSecondaryIndexes), len(d.AttributeDefinitions))
		}
		// An attribute of the table's schema under another type.
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("h1", "N", "x", "S"),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("mkx2"), KeySchema: mkKeySchema([]string{"x", "h1"}), Projection: all}}}})
		expectValidation(t, err, "One or more parameter values were invalid: Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. Existing schema: Schema:[SchemaElement: key{h1:S:HASH}] New schema: Schema:[SchemaElement: key{x:S:HASH}, SchemaElement: key{h1:N:HASH}]")
	})
}

// mkItem is item i of the Query test's table: pk "p<i>", sk i%3, and the
// index key a (S), b (N) + c (S), d (N), one of them missing now and then
// (such items are not in the index: the sparse rule, per attribute).
func mkItem(i int) Item {
	it := Item{
		"pk": S(fmt.Sprintf("p%02d", i)), "sk": N(fmt.Sprint(i % 3)),
		"a": S([]string{"x", "y"}[i%2]), "b": N(fmt.Sprint((i / 2) % 2)),
		"c": S([]string{"c", "ca", "cb", "d"}[(i/4)%4]), "d": N(fmt.Sprint(i % 5)),
		"x": N(fmt.Sprint(i)), "other": S("not projected"),
	}
	switch {
	case i%9 == 8:
		delete(it, "c")
	case i%13 == 12:
		delete(it, "d")
	case i%17 == 16:
		delete(it, "b")
	}
	return it
}

// mkCond is one condition of the model: an attribute, an operator (=, <,
// <=, >, >=, between, begins_with) and its values (strings, numbers as
// decimal text).
type mkCond struct {
	name, op string
	vals     []string
}

// mkModel lists, in Query order (c, d, pk, sk), the pk of the indexed items
// matching every condition.
func mkModel(n int, conds []mkCond, forward bool) []string {
	type row struct {
		pk, c string
		d, sk int
	}
	var rows []row
	for i := range n {
		it := mkItem(i)
		cv, okc := it["c"].(*types.AttributeValueMemberS)
		dv, okd := it["d"].(*types.AttributeValueMemberN)
		_, okb := it["b"]
		if !okc || !okd || !okb {
			continue
		}
		vals := map[string]string{"a": it["a"].(*types.AttributeValueMemberS).Value, "b": it["b"].(*types.AttributeValueMemberN).Value,
			"c": cv.Value, "d": dv.Value}
		ok := true
		for _, k := range conds {
			v := vals[k.name]
			cmp := func(w string) int {
				if k.name == "b" || k.name == "d" {
					var x, y int
					fmt.Sscan(v, &x)
					fmt.Sscan(w, &y)
					return x - y
				}
				return strings.Compare(v, w)
			}
			switch k.op {
			case "=":
				ok = ok && cmp(k.vals[0]) == 0
			case "<":
				ok = ok && cmp(k.vals[0]) < 0
			case "<=":
				ok = ok && cmp(k.vals[0]) <= 0
			case ">":
				ok = ok && cmp(k.vals[0]) > 0
			case ">=":
				ok = ok && cmp(k.vals[0]) >= 0
			case "between":
				ok = ok && cmp(k.vals[0]) >= 0 && cmp(k.vals[1]) <= 0
			case "begins_with":
				ok = ok && strings.HasPrefix(v, k.vals[0])
			}
		}
		if ok {
			var d int
			fmt.Sscan(dv.Value, &d)
			rows = append(rows, row{pk: fmt.Sprintf("p%02d", i), c: cv.Value, d: d, sk: i % 3})
		}
	}
	slices.SortFunc(rows, func(x, y row) int {
		if c := strings.Compare(x.c, y.c); c != 0 {
			return c
		}
		if x.d != y.d {
			return x.d - y.d
		}
		return strings.Compare(x.pk, y.pk)
	})
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.pk
	}
	if !forward {
		slices.Reverse(out)
	}
	return out
}

// mkExpr renders conditions as a KeyConditionExpression with its values.
func mkExpr(conds []mkCond) (string, Item) {
	var parts []string
	vals := Item{}
	for i, k := range conds {
		var refs []string
		for j, v := range k.vals {
			ref := fmt.Sprintf(":v%d_%d", i, j)
			refs = append(refs, ref)
			if k.name == "b" || k.name == "d" {
				vals[ref] = N(v)
			} else {
				vals[ref] = S(v)
			}
		}
		switch k.op {
		case "between":
			parts = append(parts, fmt.Sprintf("%s BETWEEN %s AND %s", k.name, refs[0], refs[1]))
		case "begins_with":
			parts = append(parts, fmt.Sprintf("begins_with(%s, %s)", k.name, refs[0]))
		default:
			parts = append(parts, fmt.Sprintf("%s %s %s", k.name, k.op, refs[0]))
		}
	}
	return strings.Join(parts, " AND "), vals
}

func TestMultiKeyQuery(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := harness.TableName("mkq")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S", "sk", "N", "a", "S", "b", "N", "c", "S", "d", "N"),
			KeySchema: keySchema("pk", "sk"), BillingMode: types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("mkx"),
				KeySchema:  mkKeySchema([]string{"a", "b"}, "c", "d"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"x"}}}},
		})
		must(t, err)
		waitActive(t, c, name)
		const n = 80
		for i := range n {
			put(t, c, name, mkItem(i))
		}
		// Each key attribute is typed: a write giving one another type is
		// refused.
		bad := mkItem(0)
		bad["d"] = S("not a number")
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: bad})
		expectValidation(t, err, ibMismatch("d", "N", "S", "mkx"))
		query := func(conds []mkCond, forward bool, limit int32) ([]string, error) {
			kce, vals := mkExpr(conds)
			var got []string
			var start Item
			for pages := 0; ; pages++ {
				in := &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("mkx"), KeyConditionExpression: aws.String(kce),
					ExpressionAttributeValues: vals, ScanIndexForward: aws.Bool(forward), ExclusiveStartKey: start}
				if limit > 0 {
					in.Limit = aws.Int32(limit)
				}
				out, err := c.Query(ctx, in)
				if err != nil {
					return nil, err
				}
				for _, it := range out.Items {
					got = append(got, it["pk"].(*types.AttributeValueMemberS).Value)
					if _, ok := it["other"]; ok {
						t.Errorf("INCLUDE projection returned %s", show(canonItem(it)))
					}
				}
				if out.LastEvaluatedKey == nil {
					return got, nil
				}
				if len(out.LastEvaluatedKey) != 6 {
					t.Errorf("LastEvaluatedKey %s: want the table and index key attributes", show(canonItem(out.LastEvaluatedKey)))
				}
				start = out.LastEvaluatedKey
				if pages > n {
					t.Fatalf("Query paging does not end")
				}
			}
		}
		part := []mkCond{{"a", "=", []string{"x"}}, {"b", "=", []string{"1"}}}
		with := func(more ...mkCond) []mkCond { return append(append([]mkCond{}, part...), more...) }
		cEq := mkCond{"c", "=", []string{"ca"}}
		cases := [][]mkCond{
			part,
			{{"b", "=", []string{"0"}}, {"a", "=", []string{"y"}}}, // any order
			with(cEq),
			with(cEq, mkCond{"d", "=", []string{"2"}}),
			with(mkCond{"c", "<", []string{"cb"}}),
			with(mkCond{"c", "<=", []string{"ca"}}),
			with(mkCond{"c", ">", []string{"ca"}}),
			with(mkCond{"c", ">=", []string{"ca"}}),
			with(mkCond{"c", "between", []string{"ca", "d"}}),
			with(mkCond{"c", "begins_with", []string{"c"}}),
			with(cEq, mkCond{"d", "<", []string{"2"}}),
			with(cEq, mkCond{"d", "<=", []string{"2"}}),
			with(cEq, mkCond{"d", ">", []string{"2"}}),
			with(cEq, mkCond{"d", ">=", []string{"2"}}),
			with(cEq, mkCond{"d", "between", []string{"1", "3"}}),
			{{"a", "=", []string{"z"}}, {"b", "=", []string{"1"}}}, // no such partition
		}
		nonEmpty := 0
		for _, conds := range cases {
			kce, _ := mkExpr(conds)
			for _, fwd := range []bool{true, false} {
				want := mkModel(n, conds, fwd)
				if len(want) > 0 {
					nonEmpty++
				}
				for _, limit := range []int32{0, 1, 3} {
					got, err := query(conds, fwd, limit)
					if err != nil {
						t.Errorf("Query %s: %v", kce, err)
						continue
					}
					if !slices.Equal(got, want) {
						t.Errorf("Query %s forward %v limit %d:\n  got  %v\n  want %v", kce, fwd, limit, got, want)
					}
				}
			}
		}
		if nonEmpty < 20 {
			t.Errorf("only %d of the queries return items", nonEmpty)
		}

		// The legacy KeyConditions follow the same rules.
		legacy := map[string]types.Condition{
			"a": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{S("x")}},
			"b": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{N("1")}},
			"c": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{S("ca")}},
			"d": {ComparisonOperator: types.ComparisonOperatorGe, AttributeValueList: []types.AttributeValue{N("2")}},
		}
		lo, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("mkx"), KeyConditions: legacy})
		must(t, err)
		var lgot []string
		for _, it := range lo.Items {
			lgot = append(lgot, it["pk"].(*types.AttributeValueMemberS).Value)
		}
		if want := mkModel(n, with(cEq, mkCond{"d", ">=", []string{"2"}}), true); !slices.Equal(lgot, want) || len(want) == 0 {
			t.Errorf("Query with KeyConditions: %v, want %v", lgot, want)
		}
		delete(legacy, "c")
		_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("mkx"), KeyConditions: legacy})
		expectValidation(t, err, "Query condition missed key schema element: c")
		_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), KeyConditions: legacy})
		expectValidation(t, err, "Conditions can be of length 1 or 2 only")

		// Refused key conditions.
		for _, tc := range []struct {
			conds []mkCond
			msg   string
		}{
			{[]mkCond{{"a", "=", []string{"x"}}}, "Query condition missed key schema element: b"},
			{[]mkCond{{"b", "=", []string{"1"}}, {"c", "=", []string{"c"}}}, "Query condition missed key schema element: a"},
			{with(mkCond{"d", "=", []string{"1"}}), "Query condition missed key schema element: c"},
			{[]mkCond{{"a", "=", []string{"x"}}, {"b", ">", []string{"1"}}}, "Query key condition not supported"},
			{with(mkCond{"c", ">", []string{"c"}}, mkCond{"d", "=", []string{"1"}}), "Query key condition not supported"},
			{with(mkCond{"x", "=", []string{"1"}}), "Query condition missed key schema element: c"},
			{with(cEq, mkCond{"d", "begins_with", []string{"1"}}), "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		} {
			kce, vals := mkExpr(tc.conds)
			if tc.conds[len(tc.conds)-1].name == "x" {
				vals[":v2_0"] = N("1")
			}
			_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("mkx"),
				KeyConditionExpression: aws.String(kce), ExpressionAttributeValues: vals})
			expectValidation(t, err, tc.msg)
		}
		_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("mkx"),
			KeyConditionExpression: aws.String("a = :a AND b = :b"), ExpressionAttributeValues: Item{":a": S("x"), ":b": S("1")}})
		expectValidation(t, err, "One or more parameter values were invalid: Condition parameter type does not match schema type")
		_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("mkx"),
			KeyConditionExpression: aws.String("a = :a AND b = :b"), FilterExpression: aws.String("d > :b"),
			ExpressionAttributeValues: Item{":a": S("x"), ":b": N("1")}})
		expectValidation(t, err, "Filter Expression can only contain non-primary key attributes: Primary key attribute: d")
		_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("mkx"),
			KeyConditionExpression: aws.String("a = :a AND b = :b"), ExpressionAttributeValues: Item{":a": S("x"), ":b": N("1")},
			ExclusiveStartKey: Item{"pk": S("p01"), "sk": N("1"), "a": S("x"), "b": N("1"), "c": S("c")}})
		expectValidation(t, err, "The provided starting key is invalid: The provided key element does not match the schema")

		// Scan and parallel Scan of the index hold exactly the indexed items.
		want := mkModel(n, nil, true)
		slices.Sort(want)
		for _, total := range []int32{1, 3} {
			var got []string
			for seg := range total {
				var start Item
				for {
					in := &dynamodb.ScanInput{TableName: aws.String(name), IndexName: aws.String("mkx"), Limit: aws.Int32(7), ExclusiveStartKey: start}
					if total > 1 {
						in.Segment, in.TotalSegments = aws.Int32(seg), aws.Int32(total)
					}
					out, err := c.Scan(ctx, in)
					must(t, err)
					for _, it := range out.Items {
						got = append(got, it["pk"].(*types.AttributeValueMemberS).Value)
					}
					if start = out.LastEvaluatedKey; start == nil {
						break
					}
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("Scan of the index in %d segments: %v, want %v", total, got, want)
			}
		}

		// Writes move items: an update of a key attribute, a removal
		// (sparse), a transaction, a delete.
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: Item{"pk": S("p02"), "sk": N("2")},
			UpdateExpression: aws.String("SET b = :b, c = :c"), ExpressionAttributeValues: Item{":b": N("7"), ":c": S("moved")}})
		must(t, err)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: Item{"pk": S("p03"), "sk": N("0")},
			UpdateExpression: aws.String("SET b = :b REMOVE d"), ExpressionAttributeValues: Item{":b": N("7")}})
		must(t, err)
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(name), Item: Item{"pk": S("t1"), "sk": N("0"), "a": S("x"), "b": N("7"), "c": S("moved"), "d": N("0")}}},
			{Put: &types.Put{TableName: aws.String(name), Item: Item{"pk": S("t2"), "sk": N("0"), "a": S("x"), "b": N("7"), "c": S("moved")}}},
		}})
		must(t, err)
		moved, err := query([]mkCond{{"a", "=", []string{"x"}}, {"b", "=", []string{"7"}}, {"c", "=", []string{"moved"}}}, true, 0)
		must(t, err)
		if !slices.Equal(moved, []string{"t1", "p02"}) {
			t.Errorf("after the writes the partition (x, 7) holds %v, want [t1 p02] (d 0 then 2)", moved)
		}
		// PartiQL: a SELECT on the index keyed on every partition attribute.
		pq, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{
			Statement:  aws.String(fmt.Sprintf(`SELECT pk FROM "%s"."mkx" WHERE a = ? AND b = ? AND c = ?`, name)),
			Parameters: []types.AttributeValue{S("x"), N("7"), S("moved")}})
		must(t, err)
		if len(pq.Items) != 2 {
			t.Errorf("PartiQL SELECT on the index: %d items, want 2", len(pq.Items))
		}
		pq, err = c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{
			Statement:  aws.String(fmt.Sprintf(`SELECT pk FROM "%s"."mkx" WHERE a = ? AND b = ? ORDER BY d DESC`, name)),
			Parameters: []types.AttributeValue{S("x"), N("7")}})
		must(t, err)
		var order []string
		for _, it := range pq.Items {
			order = append(order, it["pk"].(*types.AttributeValueMemberS).Value)
		}
		if !slices.Equal(order, []string{"p02", "t1"}) {
			t.Errorf("PartiQL SELECT on the index ORDER BY d DESC: %v, want [p02 t1]", order)
		}
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: Item{"pk": S("t1"), "sk": N("0")}})
		must(t, err)
		moved, err = query([]mkCond{{"a", "=", []string{"x"}}, {"b", "=", []string{"7"}}}, true, 0)
		must(t, err)
		if !slices.Equal(moved, []string{"p02"}) {
			t.Errorf("after the delete the partition (x, 7) holds %v, want [p02]", moved)
		}
	})
}

// TestMultiKeyIndexBuild adds an index with a 2 + 2 key (g, h + r, sk: two
// attributes the writers change, one they keep) under 4 writers, with
// synchronous and asynchronous propagation; the index equals its table
// once ACTIVE, Queries on it work, and UpdateTable deletes it again,
// pruning the definitions only it used.
func TestMultiKeyIndexBuild(t *testing.T) {
	t.Parallel()
	g := ibGSI{Name: "byMK", Hash: "g", HashType: "S", MoreHash: []string{"h", "S"},
		Range: "r", RangeType: "N", MoreRange: []string{"sk", "N"}, Projection: types.ProjectionTypeKeysOnly}
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			for _, prop := range []string{"sync", "async"} {
				t.Run(prop, func(t *testing.T) {
					s := ibServer(t, backend, "--index-propagation", prop)
					c := s.Client()
					table := ibCreateTrafficTable(t, c)
					tr := ibStartTraffic([]*dynamodb.Client{c}, table, 4, 7)
					stopped := false
					defer func() {
						if !stopped {
							tr.Stop()
						}
					}()
					time.Sleep(300 * time.Millisecond)
					start := time.Now()
					out, _, err := ibCreateIndex(harness.Ctx(t), c, table, g)
					must(t, err)
					if st := ibIndexStatus(out.TableDescription, g.Name); st != "CREATING" {
						t.Errorf("UpdateTable answer: %s is %s, want CREATING", g.Name, st)
					}
					ibCheckLifecycle(t, ibWatch(c, table, g.Name, start, 10*time.Millisecond, 90*time.Second))
					time.Sleep(200 * time.Millisecond)
					tr.Stop()
					stopped = true
					if len(tr.failures) > 0 {
						t.Errorf("%d writes failed during the build; first: %s", len(tr.failures), tr.failures[0])
					}
					ibExpectIndexEqualsTable(t, c, table, ibTrafficTableKey, g, prop == "async")
					d := ibDescribe(t, c, table)
					if gd := ibFindGSI(d, g.Name); gd == nil || mkKeySchemaText(gd.KeySchema) != "g:HASH,h:HASH,r:RANGE,sk:RANGE" {
						t.Errorf("DescribeTable: %v", gd)
					}
					if defs := strings.Join(ibDefs(d), ","); defs != "g:S,h:S,pk:S,r:N,sk:N" {
						t.Errorf("AttributeDefinitions %s", defs)
					}
					// A Query on the built index returns what a scan of the
					// table says it must: the partition (g, h) of an indexed
					// item, r up to that item's.
					items := ibScanAll(t, c, table, "")
					var pick Item
					for _, it := range items {
						if ibProject(it, ibTrafficTableKey, g) != nil {
							pick = it
							break
						}
					}
					if pick == nil {
						t.Fatal("no indexed item in the table")
					}
					num := func(v types.AttributeValue) int {
						var n int
						fmt.Sscan(v.(*types.AttributeValueMemberN).Value, &n)
						return n
					}
					wantN := 0
					for _, it := range items {
						if ibProject(it, ibTrafficTableKey, g) != nil && show(canon(it["g"])) == show(canon(pick["g"])) &&
							show(canon(it["h"])) == show(canon(pick["h"])) && num(it["r"]) <= num(pick["r"]) {
							wantN++
						}
					}
					qo, err := c.Query(harness.Ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(g.Name),
						KeyConditionExpression:    aws.String("g = :g AND h = :h AND r BETWEEN :lo AND :hi"),
						ExpressionAttributeValues: Item{":g": pick["g"], ":h": pick["h"], ":lo": N("0"), ":hi": pick["r"]}})
					must(t, err)
					if int(qo.Count) != wantN || wantN == 0 {
						t.Errorf("Query of the built index: %d items, the table has %d", qo.Count, wantN)
					}

					must(t, ibDeleteIndex(harness.Ctx(t), c, table, g.Name))
					d = ibDescribe(t, c, table)
					if ibFindGSI(d, g.Name) != nil {
						t.Errorf("index %s still described after its Delete", g.Name)
					}
					if defs := strings.Join(ibDefs(d), ","); defs != "pk:S,sk:N" {
						t.Errorf("AttributeDefinitions after the Delete: %s, want pk:S,sk:N", defs)
					}
					_, err = c.Query(harness.Ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(g.Name),
						KeyConditionExpression: aws.String("g = :g AND h = :h"), ExpressionAttributeValues: Item{":g": S("g01"), ":h": S("h1")}})
					expectValidation(t, err, ibNoIndex(g.Name))
				})
			}
		})
	}
}
