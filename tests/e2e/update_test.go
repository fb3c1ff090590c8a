package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

type updateCase struct {
	name   string
	before Item // nil: the item does not exist
	expr   string
	names  map[string]string
	values Item
	after  Item // nil: the item does not exist afterwards
}

func runUpdateCases(t *testing.T, c *dynamodb.Client, table string, cases []updateCase) {
	t.Helper()
	ctx := harness.Ctx(t)
	for i, tc := range cases {
		pk := S("u" + string(rune('a'+i%26)) + tc.name)
		key := Item{"pk": pk}
		if tc.before != nil {
			b := Item{"pk": pk}
			for k, v := range tc.before {
				b[k] = v
			}
			put(t, c, table, b)
		}
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
			UpdateExpression: aws.String(tc.expr), ExpressionAttributeNames: tc.names, ExpressionAttributeValues: tc.values})
		if err != nil {
			t.Errorf("%s: UpdateItem %q: %v", tc.name, tc.expr, err)
			continue
		}
		var want Item
		if tc.after != nil {
			want = Item{"pk": pk}
			for k, v := range tc.after {
				want[k] = v
			}
		}
		assertItem(t, tc.name+" ("+tc.expr+")", get(t, c, table, key), want)
	}
}

func TestUpdateSet(t *testing.T) {
	t.Parallel()
	cases := []updateCase{
		{name: "plain", before: Item{"a": S("old")}, expr: "SET a = :a, b = :b",
			values: Item{":a": S("new"), ":b": L(N("1"), M(Item{"x": BOOL(false)}))},
			after:  Item{"a": S("new"), "b": L(N("1"), M(Item{"x": BOOL(false)}))}},
		{name: "names", before: Item{"status": S("old")}, expr: "SET #s = :v", names: map[string]string{"#s": "status"},
			values: Item{":v": S("new")}, after: Item{"status": S("new")}},
		{name: "arithmetic", before: Item{"n": N("10"), "f": N("0.1")}, expr: "SET n = n + :two, d = n - :one, f = f + :f",
			values: Item{":two": N("2"), ":one": N("1"), ":f": N("0.2")},
			// operands see the item as it was before the update
			after: Item{"n": N("12"), "d": N("9"), "f": N("0.3")}},
		{name: "arithmetic of two attributes", before: Item{"a": N("7"), "b": N("-3")}, expr: "SET c = a + b, a = b - a",
			after: Item{"a": N("-10"), "b": N("-3"), "c": N("4")}},
		{name: "arithmetic big precision", before: Item{"n": N("99999999999999999999999999999999999998")}, expr: "SET n = n + :one",
			values: Item{":one": N("1")}, after: Item{"n": N("99999999999999999999999999999999999999")}},
		{name: "list_append at end", before: Item{"l": L(S("a"))}, expr: "SET l = list_append(l, :more)",
			values: Item{":more": L(S("b"), S("c"))}, after: Item{"l": L(S("a"), S("b"), S("c"))}},
		{name: "list_append at front", before: Item{"l": L(S("a"))}, expr: "SET l = list_append(:more, l)",
			values: Item{":more": L(S("b"), S("c"))}, after: Item{"l": L(S("b"), S("c"), S("a"))}},
		{name: "list_append if_not_exists", before: Item{}, expr: "SET l = list_append(if_not_exists(l, :empty), :more)",
			values: Item{":empty": L(), ":more": L(N("1"))}, after: Item{"l": L(N("1"))}},
		{name: "if_not_exists missing", before: Item{}, expr: "SET a = if_not_exists(a, :d)",
			values: Item{":d": S("default")}, after: Item{"a": S("default")}},
		{name: "if_not_exists present", before: Item{"a": S("kept")}, expr: "SET a = if_not_exists(a, :d)",
			values: Item{":d": S("default")}, after: Item{"a": S("kept")}},
		{name: "if_not_exists plus", before: Item{}, expr: "SET n = if_not_exists(n, :zero) + :one",
			values: Item{":zero": N("0"), ":one": N("1")}, after: Item{"n": N("1")}},
		{name: "nested map path", before: Item{"m": M(Item{"x": N("1"), "in": M(Item{"y": S("a")})})},
			expr: "SET m.x = :v, m.added = :w, m.#in.y = :z", names: map[string]string{"#in": "in"},
			values: Item{":v": N("2"), ":w": S("w"), ":z": S("z")},
			after:  Item{"m": M(Item{"x": N("2"), "added": S("w"), "in": M(Item{"y": S("z")})})}},
		{name: "list element", before: Item{"l": L(S("a"), S("b"))}, expr: "SET l[1] = :v", values: Item{":v": S("B")},
			after: Item{"l": L(S("a"), S("B"))}},
		{name: "list element past the end appends", before: Item{"l": L(S("a"), S("b"))}, expr: "SET l[10] = :v", values: Item{":v": S("c")},
			after: Item{"l": L(S("a"), S("b"), S("c"))}},
		{name: "copy attribute", before: Item{"a": M(Item{"x": N("1")})}, expr: "SET b = a.x, c = a",
			after: Item{"a": M(Item{"x": N("1")}), "b": N("1"), "c": M(Item{"x": N("1")})}},
		{name: "empty string value", before: Item{}, expr: "SET e = :e", values: Item{":e": S("")}, after: Item{"e": S("")}},
	}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		runUpdateCases(t, c, createHashTable(t, c, "upset"), cases)
	})
}

func TestUpdateRemoveAddDelete(t *testing.T) {
	t.Parallel()
	cases := []updateCase{
		{name: "remove attributes", before: Item{"a": S("x"), "b": N("1"), "c": BOOL(true)}, expr: "REMOVE a, c, nope",
			after: Item{"b": N("1")}},
		{name: "remove list elements shifts", before: Item{"l": L(S("a"), S("b"), S("c"), S("d"))}, expr: "REMOVE l[0], l[2]",
			after: Item{"l": L(S("b"), S("d"))}},
		{name: "remove list element past end", before: Item{"l": L(S("a"))}, expr: "REMOVE l[5]",
			after: Item{"l": L(S("a"))}},
		{name: "remove nested", before: Item{"m": M(Item{"x": N("1"), "y": N("2")})}, expr: "REMOVE m.x",
			after: Item{"m": M(Item{"y": N("2")})}},
		{name: "add number", before: Item{"n": N("5")}, expr: "ADD n :v", values: Item{":v": N("-7.5")},
			after: Item{"n": N("-2.5")}},
		{name: "add number to missing", before: Item{}, expr: "ADD n :v", values: Item{":v": N("3")},
			after: Item{"n": N("3")}},
		{name: "add string set", before: Item{"ss": SS("a", "b")}, expr: "ADD ss :v", values: Item{":v": SS("b", "c")},
			after: Item{"ss": SS("a", "b", "c")}},
		{name: "add number set normalizes", before: Item{"ns": NS("1")}, expr: "ADD ns :v", values: Item{":v": NS("1.0", "2")},
			after: Item{"ns": NS("1", "2")}},
		{name: "add set to missing", before: Item{}, expr: "ADD bs :v", values: Item{":v": BS([]byte("x"))},
			after: Item{"bs": BS([]byte("x"))}},
		{name: "delete set member", before: Item{"ss": SS("a", "b", "c")}, expr: "DELETE ss :v", values: Item{":v": SS("b", "zz")},
			after: Item{"ss": SS("a", "c")}},
		{name: "delete last members removes attribute", before: Item{"ns": NS("1", "2"), "k": S("keep")}, expr: "DELETE ns :v",
			values: Item{":v": NS("1", "2")}, after: Item{"k": S("keep")}},
		{name: "delete from missing set", before: Item{"k": S("keep")}, expr: "DELETE ss :v", values: Item{":v": SS("a")},
			after: Item{"k": S("keep")}},
		{name: "all four clauses", before: Item{"a": N("1"), "r": S("x"), "ss": SS("a", "b")},
			expr:   "SET s = :s REMOVE r ADD a :one DELETE ss :a",
			values: Item{":s": S("set"), ":one": N("1"), ":a": SS("a")},
			after:  Item{"a": N("2"), "s": S("set"), "ss": SS("b")}},
		{name: "clauses in any order, lower case", before: Item{"a": N("1"), "r": S("x")},
			expr: "add a :one remove r set s = :s", values: Item{":s": S("set"), ":one": N("1")},
			after: Item{"a": N("2"), "s": S("set")}},
		{name: "upsert missing item", before: nil, expr: "SET a = :a", values: Item{":a": S("x")},
			after: Item{"a": S("x")}},
		// Removing from an item that does not exist creates nothing (issue 18).
		{name: "remove on missing item creates nothing", before: nil, expr: "REMOVE a",
			after: nil},
	}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		runUpdateCases(t, c, createHashTable(t, c, "upmisc"), cases)
	})
}

func TestUpdateReturnValues(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "uprv")
		cases := []struct {
			rv   types.ReturnValue
			want Item
		}{
			{types.ReturnValueNone, nil},
			{types.ReturnValueAllOld, Item{"pk": nil, "a": N("1"), "b": N("2"), "c": N("3"), "m": M(Item{"x": S("x0"), "y": S("y0")})}},
			{types.ReturnValueUpdatedOld, Item{"a": N("1"), "c": N("3"), "m": M(Item{"x": S("x0")})}},
			{types.ReturnValueAllNew, Item{"pk": nil, "a": N("10"), "b": N("2"), "d": N("4"), "m": M(Item{"x": S("x1"), "y": S("y0")})}},
			{types.ReturnValueUpdatedNew, Item{"a": N("10"), "d": N("4"), "m": M(Item{"x": S("x1")})}},
		}
		for _, tc := range cases {
			pk := S("rv-" + string(tc.rv))
			put(t, c, table, Item{"pk": pk, "a": N("1"), "b": N("2"), "c": N("3"), "m": M(Item{"x": S("x0"), "y": S("y0")})})
			out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": pk},
				UpdateExpression:          aws.String("SET a = :ten, d = :four, m.x = :x REMOVE c"),
				ExpressionAttributeValues: Item{":ten": N("10"), ":four": N("4"), ":x": S("x1")},
				ReturnValues:              tc.rv})
			if err != nil {
				t.Errorf("%s: %v", tc.rv, err)
				continue
			}
			want := tc.want
			if want != nil {
				if _, ok := want["pk"]; ok {
					want["pk"] = pk
				}
			}
			assertItem(t, "UpdateItem ReturnValues "+string(tc.rv), out.Attributes, want)
		}

		// On a missing item: ALL_OLD / UPDATED_OLD return nothing, ALL_NEW the new item.
		for _, rv := range []types.ReturnValue{types.ReturnValueAllOld, types.ReturnValueUpdatedOld} {
			out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("fresh-" + string(rv))},
				UpdateExpression: aws.String("SET a = :a"), ExpressionAttributeValues: Item{":a": N("1")}, ReturnValues: rv})
			must(t, err)
			if out.Attributes != nil {
				t.Errorf("%s on a new item returned %s", rv, show(canonItem(out.Attributes)))
			}
		}
		out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("fresh-new")},
			UpdateExpression: aws.String("SET a = :a"), ExpressionAttributeValues: Item{":a": N("1")}, ReturnValues: types.ReturnValueAllNew})
		must(t, err)
		assertItem(t, "ALL_NEW on a new item", out.Attributes, Item{"pk": S("fresh-new"), "a": N("1")})

		// UPDATED_NEW after removing everything that was updated: no attributes.
		put(t, c, table, Item{"pk": S("rm"), "a": N("1")})
		out, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("rm")},
			UpdateExpression: aws.String("REMOVE a"), ReturnValues: types.ReturnValueUpdatedNew})
		must(t, err)
		if len(out.Attributes) != 0 {
			t.Errorf("UPDATED_NEW after REMOVE returned %s", show(canonItem(out.Attributes)))
		}
	})
}

func TestUpdateErrors(t *testing.T) {
	t.Parallel()
	const operand = "An operand in the update expression has an incorrect data type"
	cases := []struct {
		name   string
		expr   string
		values Item
		msg    string
	}{
		{"set hash key", "SET pk = :v", Item{":v": S("other")},
			"One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
		{"remove hash key", "REMOVE pk", nil,
			"One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
		{"add to hash key", "ADD pk :v", Item{":v": N("1")},
			"One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
		{"arithmetic on a string", "SET n = s + :one", Item{":one": N("1")}, operand},
		{"ADD to a string attribute", "ADD s :one", Item{":one": N("1")}, operand},
		{"ADD a number to a set", "ADD ss :one", Item{":one": N("1")}, operand},
		{"ADD a number set to a string set", "ADD ss :ns", Item{":ns": NS("1")}, operand},
		{"DELETE a number set from a string set", "DELETE ss :ns", Item{":ns": NS("1")}, operand},
		{"DELETE from a number", "DELETE n :ss", Item{":ss": SS("a")}, operand},
		{"list_append to a string", "SET l2 = list_append(s, :l)", Item{":l": L(S("x"))}, operand},
		{"ADD with a string value", "ADD x :s", Item{":s": S("a")},
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING"},
		{"DELETE with a number value", "DELETE x :n", Item{":n": N("1")},
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER"},
		{"plus with a string value", "SET x = :s + :n", Item{":s": S("a"), ":n": N("1")},
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{"list_append with a number", "SET x = list_append(l, :n)", Item{":n": N("1")},
			"Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: N"},
		{"missing attribute in arithmetic", "SET x = nope + :n", Item{":n": N("1")},
			"The provided expression refers to an attribute that does not exist in the item"},
		{"path into a missing map", "SET nope.a = :n", Item{":n": N("1")},
			"The document path provided in the update expression is invalid for update"},
		{"path into a string", "SET s.a = :n", Item{":n": N("1")},
			"The document path provided in the update expression is invalid for update"},
		{"overlapping paths", "SET a = :n REMOVE a", Item{":n": N("1")},
			"Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"SET twice", "SET a = :n SET b = :n", Item{":n": N("1")},
			`Invalid UpdateExpression: The "SET" section can only be used once in an update expression;`},
		{"reserved word", "SET status = :n", Item{":n": N("1")},
			"Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{"unknown function", "SET a = no_such_fn(:n)", Item{":n": N("1")},
			"Invalid UpdateExpression: Invalid function name; function: no_such_fn"},
	}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "uperr")
		orig := Item{"pk": S("k"), "s": S("str"), "n": N("1"), "ss": SS("a"), "l": L(S("x"))}
		put(t, c, table, orig)
		for _, tc := range cases {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("k")},
				UpdateExpression: aws.String(tc.expr), ExpressionAttributeValues: tc.values})
			t.Run(tc.name, func(t *testing.T) { expectValidation(t, err, tc.msg) })
		}
		assertItem(t, "item after failed updates", get(t, c, table, Item{"pk": S("k")}), orig)

		// The range key is part of the key too.
		rt := createRangeTable(t, c, "uperrr", "S")
		put(t, c, rt, Item{"pk": S("k"), "sk": S("s")})
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(rt), Key: Item{"pk": S("k"), "sk": S("s")},
			UpdateExpression: aws.String("SET sk = :v"), ExpressionAttributeValues: Item{":v": S("t")}})
		expectValidation(t, err, "One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key")
		assertItem(t, "range item", get(t, c, rt, Item{"pk": S("k"), "sk": S("s")}), Item{"pk": S("k"), "sk": S("s")})
	})
}
