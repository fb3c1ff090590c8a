package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// condItem is the item every condition case is evaluated against.
func condItem(pk string) Item {
	return Item{
		"pk":     S(pk),
		"s":      S("hello"),
		"n":      N("5"),
		"ss":     SS("a", "b"),
		"ns":     NS("1", "2"),
		"l":      L(N("1"), N("2"), N("3")),
		"m":      M(Item{"x": N("1"), "y": S("why")}),
		"nul":    NULL(),
		"flag":   BOOL(true),
		"bin":    B([]byte("abc")),
		"status": S("open"),
	}
}

var condValues = Item{
	":one": N("1"), ":two": N("2"), ":three": N("3"), ":five": N("5"), ":six": N("6"), ":ten": N("10"),
	":sfive": S("5"), ":hello": S("hello"), ":z": S("z"), ":he": S("he"), ":lo": S("lo"), ":ell": S("ell"),
	":a": S("a"), ":b": S("b"), ":c": S("c"), ":open": S("open"), ":why": S("why"), ":true": BOOL(true),
	":tS": S("S"), ":tN": S("N"), ":tNULL": S("NULL"), ":tSS": S("SS"), ":tM": S("M"), ":tL": S("L"),
	":ab": B([]byte("ab")),
}

// usedValues keeps only the placeholders the expression uses (the service
// rejects unused ones).
func usedValues(expr string) Item {
	out := Item{}
	for k, v := range condValues {
		if containsToken(expr, k) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func containsToken(expr, tok string) bool {
	for i := 0; i+len(tok) <= len(expr); i++ {
		if expr[i:i+len(tok)] != tok {
			continue
		}
		end := i + len(tok)
		if end == len(expr) || !isNameChar(expr[end]) {
			return true
		}
	}
	return false
}

func isNameChar(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

var conditionCases = []struct {
	expr  string
	names map[string]string
	want  bool
}{
	{"attribute_exists(s)", nil, true},
	{"attribute_exists(nope)", nil, false},
	{"attribute_not_exists(nope)", nil, true},
	{"attribute_not_exists(pk)", nil, false},
	{"attribute_exists(m.x)", nil, true},
	{"attribute_exists(m.zz)", nil, false},
	{"attribute_exists(l[2])", nil, true},
	{"attribute_exists(l[3])", nil, false},
	{"n = :five", nil, true},
	{"n <> :five", nil, false},
	{"n < :ten", nil, true},
	{"n <= :five", nil, true},
	{"n > :five", nil, false},
	{"n >= :five", nil, true},
	{"n = :sfive", nil, false}, // a number never equals a string
	{"n <> :sfive", nil, true},
	{"s = :hello", nil, true},
	{"s < :z", nil, true},
	{"s > :z", nil, false},
	{"n < :z", nil, false}, // comparing different types is false, not an error
	{"nope = :five", nil, false},
	{"nope <> :five", nil, true},
	{"begins_with(s, :he)", nil, true},
	{"begins_with(s, :lo)", nil, false},
	{"begins_with(bin, :ab)", nil, true},
	{"contains(s, :ell)", nil, true},
	{"contains(s, :z)", nil, false},
	{"contains(ss, :a)", nil, true},
	{"contains(ss, :c)", nil, false},
	{"contains(l, :two)", nil, true},
	{"contains(l, :ten)", nil, false},
	{"contains(ns, :one)", nil, true},
	{"size(s) = :five", nil, true},
	{"size(ss) = :two", nil, true},
	{"size(l) > :two", nil, true},
	{"size(m) = :two", nil, true},
	{"size(bin) = :three", nil, true},
	{"size(nope) = :one", nil, false},
	{"n BETWEEN :one AND :ten", nil, true},
	{"n BETWEEN :five AND :five", nil, true},
	{"n BETWEEN :six AND :ten", nil, false},
	{"s BETWEEN :a AND :z", nil, true},
	{"n IN (:one, :five)", nil, true},
	{"n IN (:one, :two, :three)", nil, false},
	{"s IN (:a, :b)", nil, false},
	{"attribute_type(s, :tS)", nil, true},
	{"attribute_type(n, :tS)", nil, false},
	{"attribute_type(nul, :tNULL)", nil, true},
	{"attribute_type(ss, :tSS)", nil, true},
	{"attribute_type(m, :tM)", nil, true},
	{"attribute_type(l, :tL)", nil, true},
	{"m.x = :one", nil, true},
	{"m.y = :why", nil, true},
	{"l[0] = :one", nil, true},
	{"l[2] = :three", nil, true},
	{"flag = :true", nil, true},
	{"#st = :open", map[string]string{"#st": "status"}, true},
	{"#m.#x = :one", map[string]string{"#m": "m", "#x": "x"}, true},
	{"NOT attribute_exists(nope)", nil, true},
	{"NOT (n = :five)", nil, false},
	{"n = :five AND s = :hello", nil, true},
	{"n = :ten AND s = :hello", nil, false},
	{"n = :ten OR s = :hello", nil, true},
	{"n = :ten OR s = :z", nil, false},
	{"(n = :ten OR s = :hello) AND NOT contains(ss, :c)", nil, true},
	{"n = :ten OR s = :hello AND n = :one", nil, false},               // AND binds tighter than OR
	{"not n = :ten and (attribute_exists(m) or n = :one)", nil, true}, // keywords are case-insensitive
}

func TestConditionExpressions(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "cond")
		item := condItem("c")
		put(t, c, table, item)
		for _, tc := range conditionCases {
			vals := usedValues(tc.expr)
			// PutItem of the identical item.
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item,
				ConditionExpression: aws.String(tc.expr), ExpressionAttributeNames: tc.names, ExpressionAttributeValues: vals})
			checkCond(t, "PutItem", tc.expr, tc.want, err)
			// UpdateItem with no update expression: nothing changes either way.
			_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("c")},
				ConditionExpression: aws.String(tc.expr), ExpressionAttributeNames: tc.names, ExpressionAttributeValues: vals})
			checkCond(t, "UpdateItem", tc.expr, tc.want, err)
		}
		assertItem(t, "item after all conditions", get(t, c, table, Item{"pk": S("c")}), item)

		// DeleteItem with a false then a true condition.
		_, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("c")},
			ConditionExpression: aws.String("n > :five"), ExpressionAttributeValues: Item{":five": N("5")}})
		expectCCF(t, err)
		assertItem(t, "after failed conditional delete", get(t, c, table, Item{"pk": S("c")}), item)
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("c")},
			ConditionExpression: aws.String("n = :five AND contains(ss, :a)"), ExpressionAttributeValues: Item{":five": N("5"), ":a": S("a")}})
		must(t, err)
		assertItem(t, "after conditional delete", get(t, c, table, Item{"pk": S("c")}), nil)
	})
}

func checkCond(t *testing.T, op, expr string, want bool, err error) {
	t.Helper()
	if want {
		if err != nil {
			t.Errorf("%s %q: want success, got %v", op, expr, err)
		}
		return
	}
	if err == nil {
		t.Errorf("%s %q: want ConditionalCheckFailedException, got success", op, expr)
		return
	}
	expectCCF(t, err)
}

func TestConditionOnMissingItem(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "condmiss")

		// attribute_not_exists(pk) creates once, then fails.
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("new"), "v": N("1")},
			ConditionExpression: aws.String("attribute_not_exists(pk)")})
		must(t, err)
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("new"), "v": N("2")},
			ConditionExpression: aws.String("attribute_not_exists(pk)")})
		expectCCF(t, err)
		assertItem(t, "after failed create", get(t, c, table, Item{"pk": S("new")}), Item{"pk": S("new"), "v": N("1")})

		// attribute_exists on a missing item fails for every operation and creates nothing.
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("ghost")},
			ConditionExpression: aws.String("attribute_exists(pk)")})
		expectCCF(t, err)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("ghost")},
			UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: Item{":v": N("1")},
			ConditionExpression: aws.String("attribute_exists(pk)")})
		expectCCF(t, err)
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("ghost")},
			ConditionExpression: aws.String("attribute_exists(pk)")})
		expectCCF(t, err)
		// A comparison against a missing item is false; <> is true.
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("ghost")},
			UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: Item{":v": N("1")},
			ConditionExpression: aws.String("v = :v")})
		expectCCF(t, err)
		assertItem(t, "ghost after failed conditions", get(t, c, table, Item{"pk": S("ghost")}), nil)

		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("ghost")},
			UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: Item{":v": N("1")},
			ConditionExpression: aws.String("v <> :v")})
		must(t, err)
		assertItem(t, "ghost after upsert with true condition", get(t, c, table, Item{"pk": S("ghost")}), Item{"pk": S("ghost"), "v": N("1")})
	})
}

func TestConditionFailureChangesNothing(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "condnc")
		orig := Item{"pk": S("k"), "v": N("1"), "l": L(S("a"))}
		put(t, c, table, orig)
		key := Item{"pk": S("k")}
		cond := aws.String("v = :two")

		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k"), "other": S("x")},
			ConditionExpression: cond, ExpressionAttributeValues: Item{":two": N("2")}})
		expectCCF(t, err)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
			UpdateExpression:          aws.String("SET v = v + :two, w = :two REMOVE l ADD cnt :two"),
			ConditionExpression:       cond,
			ExpressionAttributeValues: Item{":two": N("2")}, ReturnValues: types.ReturnValueAllNew})
		expectCCF(t, err)
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key,
			ConditionExpression: cond, ExpressionAttributeValues: Item{":two": N("2")}, ReturnValues: types.ReturnValueAllOld})
		expectCCF(t, err)
		assertItem(t, "after three failed conditional writes", get(t, c, table, key), orig)
	})
}

func TestReturnValuesOnConditionCheckFailure(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "rvccf")
		orig := Item{"pk": S("k"), "v": N("1"), "ss": SS("x", "y"), "m": M(Item{"a": L(S("b"))})}
		put(t, c, table, orig)
		key := Item{"pk": S("k")}
		vals := Item{":two": N("2")}
		all := types.ReturnValuesOnConditionCheckFailureAllOld

		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k")},
			ConditionExpression: aws.String("v = :two"), ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: all})
		if ccf := expectCCF(t, err); ccf != nil {
			assertItem(t, "PutItem CCF Item", ccf.Item, orig)
		}
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key, UpdateExpression: aws.String("SET v = :two"),
			ConditionExpression: aws.String("v = :two"), ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: all})
		if ccf := expectCCF(t, err); ccf != nil {
			assertItem(t, "UpdateItem CCF Item", ccf.Item, orig)
		}
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key,
			ConditionExpression: aws.String("v = :two"), ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: all})
		if ccf := expectCCF(t, err); ccf != nil {
			assertItem(t, "DeleteItem CCF Item", ccf.Item, orig)
		}

		// Without the option (or with NONE) the exception carries no item.
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k")},
			ConditionExpression: aws.String("v = :two"), ExpressionAttributeValues: vals})
		if ccf := expectCCF(t, err); ccf != nil && ccf.Item != nil {
			t.Errorf("CCF without ReturnValuesOnConditionCheckFailure carries Item %s", show(canonItem(ccf.Item)))
		}
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k")},
			ConditionExpression: aws.String("v = :two"), ExpressionAttributeValues: vals,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureNone})
		if ccf := expectCCF(t, err); ccf != nil && ccf.Item != nil {
			t.Errorf("CCF with NONE carries Item %s", show(canonItem(ccf.Item)))
		}
		// A missing item: ALL_OLD has nothing to return.
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("missing")},
			UpdateExpression: aws.String("SET v = :two"), ConditionExpression: aws.String("attribute_exists(pk)"),
			ExpressionAttributeValues: vals, ReturnValuesOnConditionCheckFailure: all})
		if ccf := expectCCF(t, err); ccf != nil && len(ccf.Item) != 0 {
			t.Errorf("CCF for a missing item carries Item %s", show(canonItem(ccf.Item)))
		}
		assertItem(t, "item unchanged", get(t, c, table, key), orig)
	})
}
