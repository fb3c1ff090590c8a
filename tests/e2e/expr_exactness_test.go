package e2e

// Expressions and conditions as the service checks them (issue 18). Each
// refusal is a ValidationException with the service's text and nothing is
// written; before, most of these were a failed condition
// (ConditionalCheckFailedException) or were accepted.

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func TestExprOperandTypes(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "exprtypes")
		put(t, c, table, Item{"pk": S("k"), "n": N("5"), "s": S("abc"), "l": L(N("1"))})
		pre := "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: "
		for _, tc := range []struct {
			cond string
			vals Item
			msg  string
		}{
			{"n < :v", Item{":v": L(N("1"))}, pre + "<, operand type: L"},
			{"n <= :v", Item{":v": M(Item{"a": N("1")})}, pre + "<=, operand type: M"},
			{":v > n", Item{":v": NS("1", "2")}, pre + ">, operand type: NS"},
			{"n >= :v", Item{":v": BOOL(true)}, pre + ">=, operand type: BOOL"},
			{"n BETWEEN :a AND :b", Item{":a": NS("1"), ":b": NS("2")}, pre + "BETWEEN, operand type: NS"},
			{"n BETWEEN :a AND :b", Item{":a": N("1"), ":b": SS("x")}, pre + "BETWEEN, operand type: SS"},
			{"begins_with(s, :v)", Item{":v": N("1")}, pre + "begins_with, operand type: N"},
			{"if_not_exists(n, :v) = :v", Item{":v": N("1")}, "Invalid ConditionExpression: The function is not allowed in a condition expression; function: if_not_exists"},
			{"list_append(l, :v) = :v", Item{":v": L()}, "Invalid ConditionExpression: The function is not allowed in a condition expression; function: list_append"},
		} {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k"), "w": S("written")},
				ConditionExpression: aws.String(tc.cond), ExpressionAttributeValues: tc.vals})
			expectValidation(t, err, tc.msg)
			// The same in a FilterExpression.
			_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), FilterExpression: aws.String(tc.cond), ExpressionAttributeValues: tc.vals})
			expectValidation(t, err, strings.Replace(tc.msg, "ConditionExpression", "FilterExpression", 1))
		}
		// contains() takes any type as its second operand: a list is a failed
		// condition, not an error.
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k"), "w": S("written")},
			ConditionExpression: aws.String("contains(l, :v)"), ExpressionAttributeValues: Item{":v": L(N("2"))}})
		expectCCF(t, err)

		// The legacy forms: Expected, QueryFilter and ScanFilter.
		cond := func(op types.ComparisonOperator, vs ...types.AttributeValue) types.ExpectedAttributeValue {
			return types.ExpectedAttributeValue{ComparisonOperator: op, AttributeValueList: vs}
		}
		for _, tc := range []struct {
			e   types.ExpectedAttributeValue
			msg string
		}{
			{cond(types.ComparisonOperatorLe, L()), "One or more parameter values were invalid: ComparisonOperator LE is not valid for L AttributeValue type"},
			{cond(types.ComparisonOperatorGt, M(nil)), "One or more parameter values were invalid: ComparisonOperator GT is not valid for M AttributeValue type"},
			{cond(types.ComparisonOperatorIn, L(N("1")), L(N("2"))), "One or more parameter values were invalid: ComparisonOperator IN is not valid for L AttributeValue type"},
			{cond(types.ComparisonOperatorBetween, NS("1"), NS("2")), "One or more parameter values were invalid: ComparisonOperator BETWEEN is not valid for NS AttributeValue type"},
			{cond(types.ComparisonOperatorContains, L(N("1"))), "One or more parameter values were invalid: ComparisonOperator CONTAINS is not valid for L AttributeValue type"},
			{cond(types.ComparisonOperatorBeginsWith, N("1")), "One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"},
		} {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k"), "w": S("written")},
				Expected: map[string]types.ExpectedAttributeValue{"n": tc.e}})
			expectValidation(t, err, tc.msg)
			_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table),
				ScanFilter: map[string]types.Condition{"n": {ComparisonOperator: tc.e.ComparisonOperator, AttributeValueList: tc.e.AttributeValueList}}})
			expectValidation(t, err, tc.msg)
			_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table),
				KeyConditions: map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{S("k")}}},
				QueryFilter:   map[string]types.Condition{"n": {ComparisonOperator: tc.e.ComparisonOperator, AttributeValueList: tc.e.AttributeValueList}}})
			expectValidation(t, err, tc.msg)
		}
		if it := get(t, c, table, Item{"pk": S("k")}); it["w"] != nil {
			t.Error("a refused PutItem wrote its item")
		}
	})
}

func TestExprLimits(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "exprlimits")
		put(t, c, table, Item{"pk": S("k"), "a": N("1"), "b": N("2")})
		for _, tc := range []struct{ cond, msg string }{
			{strings.Repeat("not ", 1000) + "a<b", "Invalid ConditionExpression: The expression contains too many operators; operator count: 301"},
			{"a<b " + strings.Repeat("or (a<b ", 454) + strings.Repeat(")", 454), "Invalid ConditionExpression: The expression contains too many operators; operator count: 301"},
			{"a" + strings.Repeat(".b", 32) + " = b", "Invalid ConditionExpression: The document path has too many nesting levels; nesting levels: 33"},
			{"a[2147483648] = b", "Invalid ConditionExpression: List index is not within the allowable range; index: [2147483648]"},
			{"a[99999999999999999999] = b", "Invalid ConditionExpression: List index is not within the allowable range; index: [99999999999999999999]"},
		} {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k"), "w": S("written")},
				ConditionExpression: aws.String(tc.cond)})
			expectValidation(t, err, tc.msg)
		}
		// At the limits: accepted (and evaluated: a<b holds).
		for _, cond := range []string{
			strings.Repeat("not ", 298) + "a<b",
			"a<b " + strings.Repeat("or (a<b ", 149) + strings.Repeat(")", 149),
			"attribute_not_exists(a" + strings.Repeat(".b", 31) + ")",
			"attribute_not_exists(a[2147483647])",
		} {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k"), "a": N("1"), "b": N("2")},
				ConditionExpression: aws.String(cond)})
			must(t, err)
		}
		// The path limits hold in every kind of expression.
		_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("k")}, ProjectionExpression: aws.String("a" + strings.Repeat(".b", 32))})
		expectValidation(t, err, "Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels: 33")
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("k")}, UpdateExpression: aws.String("REMOVE a[3000000000]")})
		expectValidation(t, err, "Invalid UpdateExpression: List index is not within the allowable range; index: [3000000000]")
		if it := get(t, c, table, Item{"pk": S("k")}); it["w"] != nil || it["a"] == nil {
			t.Errorf("refused requests changed the item: %s", show(canonItem(it)))
		}
	})
}
