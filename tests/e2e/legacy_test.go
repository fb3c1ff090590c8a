package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// The legacy (non-expression) parameters: Expected, AttributeUpdates,
// AttributesToGet, KeyConditions, QueryFilter, ScanFilter and
// ConditionalOperator.

func cond(op types.ComparisonOperator, vals ...types.AttributeValue) types.ExpectedAttributeValue {
	return types.ExpectedAttributeValue{ComparisonOperator: op, AttributeValueList: vals}
}

func filt(op types.ComparisonOperator, vals ...types.AttributeValue) types.Condition {
	return types.Condition{ComparisonOperator: op, AttributeValueList: vals}
}

func TestLegacyExpected(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "legacy_exp")
		key := Item{"pk": S("k")}
		base := Item{"pk": S("k"), "n": N("5"), "s": S("hello"), "ss": SS("a", "b")}
		put(t, c, table, base)

		// Operators that hold: the write goes through.
		holds := map[string]types.ExpectedAttributeValue{
			"EQ":           cond(types.ComparisonOperatorEq, N("5")),
			"NE":           cond(types.ComparisonOperatorNe, N("6")),
			"LT":           cond(types.ComparisonOperatorLt, N("6")),
			"LE":           cond(types.ComparisonOperatorLe, N("5")),
			"GT":           cond(types.ComparisonOperatorGt, N("4")),
			"GE":           cond(types.ComparisonOperatorGe, N("5")),
			"IN":           cond(types.ComparisonOperatorIn, N("1"), N("5")),
			"BETWEEN":      cond(types.ComparisonOperatorBetween, N("1"), N("9")),
			"NOT_NULL":     cond(types.ComparisonOperatorNotNull),
			"CONTAINS":     {ComparisonOperator: types.ComparisonOperatorContains, AttributeValueList: []types.AttributeValue{S("ell")}},
			"BEGINS_WITH":  {ComparisonOperator: types.ComparisonOperatorBeginsWith, AttributeValueList: []types.AttributeValue{S("he")}},
			"NOT_CONTAINS": {ComparisonOperator: types.ComparisonOperatorNotContains, AttributeValueList: []types.AttributeValue{S("c")}},
		}
		attrFor := map[string]string{"CONTAINS": "s", "BEGINS_WITH": "s", "NOT_CONTAINS": "ss"}
		for op, e := range holds {
			a := attrFor[op]
			if a == "" {
				a = "n"
			}
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: base, Expected: map[string]types.ExpectedAttributeValue{a: e}})
			if err != nil {
				t.Errorf("%s: %v", op, err)
			}
		}
		// Operators that fail: ConditionalCheckFailed, item unchanged.
		fails := map[string]types.ExpectedAttributeValue{
			"EQ":      cond(types.ComparisonOperatorEq, S("5")),
			"GT":      cond(types.ComparisonOperatorGt, N("5")),
			"NULL":    cond(types.ComparisonOperatorNull),
			"BETWEEN": cond(types.ComparisonOperatorBetween, N("6"), N("9")),
		}
		for op, e := range fails {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k")}, Expected: map[string]types.ExpectedAttributeValue{"n": e}})
			if expectCCF(t, err) == nil {
				t.Errorf("%s should fail", op)
			}
		}
		assertItem(t, "after failed conditions", get(t, c, table, key), base)

		// Exists/Value form, and ConditionalOperator OR.
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("new")},
			Expected: map[string]types.ExpectedAttributeValue{"pk": {Exists: aws.Bool(false)}}})
		must(t, err)
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("new")},
			Expected: map[string]types.ExpectedAttributeValue{"pk": {Exists: aws.Bool(false)}}})
		expectCCF(t, err)
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: base,
			Expected: map[string]types.ExpectedAttributeValue{"s": {Value: S("hello")}, "n": {Exists: aws.Bool(true), Value: N("5")}}})
		must(t, err)
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key, ConditionalOperator: types.ConditionalOperatorOr,
			Expected: map[string]types.ExpectedAttributeValue{"s": {Value: S("nope")}, "n": cond(types.ComparisonOperatorEq, N("6"))}})
		expectCCF(t, err)
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("new")}, ConditionalOperator: types.ConditionalOperatorOr,
			Expected: map[string]types.ExpectedAttributeValue{"s": {Value: S("nope")}, "pk": cond(types.ComparisonOperatorEq, S("new"))}})
		must(t, err)
		if got := get(t, c, table, Item{"pk": S("new")}); got != nil {
			t.Errorf("item should be deleted, got %v", show(canonItem(got)))
		}

		// Refusals, with the item unchanged.
		refusals := []struct {
			exp map[string]types.ExpectedAttributeValue
			op  types.ConditionalOperator
			msg string
		}{
			{map[string]types.ExpectedAttributeValue{"a": {}}, "", "One or more parameter values were invalid: Value must be provided when Exists is null for Attribute: a"},
			{map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(true)}}, "", "One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: a"},
			{map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(false), Value: S("x")}}, "", "One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: a"},
			{map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(true), ComparisonOperator: types.ComparisonOperatorLt}}, "", "One or more parameter values were invalid: Exists and ComparisonOperator cannot be used together for Attribute: a"},
			{map[string]types.ExpectedAttributeValue{"a": cond(types.ComparisonOperatorEq)}, "", "One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a"},
			{map[string]types.ExpectedAttributeValue{"a": cond(types.ComparisonOperatorNull, S("x"))}, "", "One or more parameter values were invalid: Invalid number of argument(s) for the NULL ComparisonOperator"},
			{map[string]types.ExpectedAttributeValue{"a": cond(types.ComparisonOperatorBetween, N("1"), N("2"), N("3"))}, "", "One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator"},
			{map[string]types.ExpectedAttributeValue{"a": cond(types.ComparisonOperatorBetween, N("9"), N("2"))}, "", "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"},
			{map[string]types.ExpectedAttributeValue{"a": cond(types.ComparisonOperatorIn, N("9"), S("2"))}, "", "One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"},
			{map[string]types.ExpectedAttributeValue{"a": {Exists: aws.Bool(true), AttributeValueList: []types.AttributeValue{S("a")}}}, "", "One or more parameter values were invalid: AttributeValueList can only be used with a ComparisonOperator for Attribute: a"},
			{map[string]types.ExpectedAttributeValue{"a": {Value: S("a"), AttributeValueList: []types.AttributeValue{S("a")}, ComparisonOperator: types.ComparisonOperatorLt}}, "", "One or more parameter values were invalid: Value and AttributeValueList cannot be used together for Attribute: a"},
			{nil, types.ConditionalOperatorAnd, "ConditionalOperator cannot be used without Filter or Expected"},
			{map[string]types.ExpectedAttributeValue{"n": cond(types.ComparisonOperatorNotNull)}, types.ConditionalOperatorOr, "ConditionalOperator can only be used when Filter or Expected has two or more elements"},
		}
		for _, r := range refusals {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k")}, Expected: r.exp, ConditionalOperator: r.op})
			expectValidation(t, err, r.msg)
		}
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k")},
			Expected:            map[string]types.ExpectedAttributeValue{"n": cond(types.ComparisonOperatorNotNull)},
			ConditionExpression: aws.String("attribute_exists(pk)"), ConditionalOperator: types.ConditionalOperatorAnd})
		expectValidation(t, err, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected, ConditionalOperator} Expression parameters: {ConditionExpression}")
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key,
			Expected: map[string]types.ExpectedAttributeValue{"n": cond(types.ComparisonOperatorNotNull)}, ConditionExpression: aws.String("attribute_exists(pk)")})
		expectValidation(t, err, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}")
		expectRawValidation(t, s, "PutItem", `{"TableName":"`+table+`","Item":{"pk":{"S":"k"}},"ConditionalOperator":"XOR"}`,
			"1 validation error detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: Member must satisfy enum value set: [OR, AND]")
		assertItem(t, "after refusals", get(t, c, table, key), base)
	})
}

func TestLegacyAttributeUpdates(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "legacy_upd")
		key := Item{"pk": S("k")}
		put(t, c, table, Item{"pk": S("k"), "n": N("5"), "ss": SS("a", "b"), "gone": S("x"), "l": L(N("1"))})

		out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key, ReturnValues: types.ReturnValueUpdatedNew,
			AttributeUpdates: map[string]types.AttributeValueUpdate{
				"n":     {Action: types.AttributeActionAdd, Value: N("-2")},
				"fresh": {Action: types.AttributeActionAdd, Value: N("3")},
				"ss":    {Action: types.AttributeActionDelete, Value: SS("a", "z")},
				"gone":  {Action: types.AttributeActionDelete},
				"p":     {Value: S("put")}, // no action: PUT
				"ns":    {Action: types.AttributeActionAdd, Value: NS("1")},
				"l":     {Action: types.AttributeActionAdd, Value: L(S("z"))},
			},
			Expected: map[string]types.ExpectedAttributeValue{"n": {Value: N("5")}}})
		must(t, err)
		assertItem(t, "UPDATED_NEW", out.Attributes, Item{"n": N("3"), "fresh": N("3"), "ss": SS("b"), "p": S("put"), "ns": NS("1"), "l": L(N("1"), S("z"))})
		want := Item{"pk": S("k"), "n": N("3"), "fresh": N("3"), "ss": SS("b"), "p": S("put"), "ns": NS("1"), "l": L(N("1"), S("z"))}
		assertItem(t, "after update", get(t, c, table, key), want)

		// The Expected no longer holds: nothing changes.
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
			AttributeUpdates: map[string]types.AttributeValueUpdate{"n": {Action: types.AttributeActionPut, Value: N("0")}},
			Expected:         map[string]types.ExpectedAttributeValue{"n": {Value: N("5")}}})
		expectCCF(t, err)

		// An update of a missing item creates it.
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("new")},
			AttributeUpdates: map[string]types.AttributeValueUpdate{"ss": {Action: types.AttributeActionAdd, Value: SS("x")}, "d": {Action: types.AttributeActionDelete}}})
		must(t, err)
		assertItem(t, "created", get(t, c, table, Item{"pk": S("new")}), Item{"pk": S("new"), "ss": SS("x")})

		refusals := []struct {
			ups map[string]types.AttributeValueUpdate
			msg string
		}{
			{map[string]types.AttributeValueUpdate{"a": {Action: types.AttributeActionPut}}, "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified"},
			{map[string]types.AttributeValueUpdate{"a": {Action: types.AttributeActionDelete, Value: S("x")}}, "One or more parameter values were invalid: DELETE action with value is not supported for the type S"},
			{map[string]types.AttributeValueUpdate{"a": {Action: types.AttributeActionAdd, Value: S("x")}}, "One or more parameter values were invalid: ADD action is not supported for the type S"},
			{map[string]types.AttributeValueUpdate{"pk": {Action: types.AttributeActionPut, Value: S("x")}}, "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"},
			{map[string]types.AttributeValueUpdate{"p": {Action: types.AttributeActionAdd, Value: N("1")}}, "Type mismatch for attribute to update"},
			{map[string]types.AttributeValueUpdate{"ss": {Action: types.AttributeActionDelete, Value: NS("1")}}, "Type mismatch for attribute to update"},
		}
		for _, r := range refusals {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key, AttributeUpdates: r.ups})
			expectValidation(t, err, r.msg)
		}
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
			AttributeUpdates:          map[string]types.AttributeValueUpdate{"a": {Value: S("x")}},
			Expected:                  map[string]types.ExpectedAttributeValue{"n": cond(types.ComparisonOperatorNotNull)},
			ConditionalOperator:       types.ConditionalOperatorAnd,
			UpdateExpression:          aws.String("SET a = :v"),
			ConditionExpression:       aws.String("attribute_exists(pk)"),
			ExpressionAttributeValues: Item{":v": S("x")}})
		expectValidation(t, err, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributeUpdates, Expected, ConditionalOperator} Expression parameters: {UpdateExpression, ConditionExpression}")
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key, ConditionalOperator: types.ConditionalOperatorAnd,
			AttributeUpdates: map[string]types.AttributeValueUpdate{"a": {Value: S("x")}}})
		expectValidation(t, err, "ConditionalOperator cannot be used without Filter or Expected")
		expectRawValidation(t, s, "UpdateItem", `{"TableName":"`+table+`","Key":{"pk":{"S":"k"}},"AttributeUpdates":{"a":{"Action":"SET","Value":{"S":"x"}}}}`,
			"1 validation error detected: Value 'SET' at 'attributeUpdates.a.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, PUT, DELETE]")
		assertItem(t, "after refusals", get(t, c, table, key), want)
	})
}

func TestLegacyAttributesToGet(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "legacy_atg")
		put(t, c, table, Item{"pk": S("k"), "a": S("x"), "b.c": N("1"), "b": M(Item{"c": N("2")}), "status": S("s")})

		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("k")}, AttributesToGet: []string{"a", "b.c", "status", "none"}})
		must(t, err)
		assertItem(t, "GetItem", out.Item, Item{"a": S("x"), "b.c": N("1"), "status": S("s")})

		bout, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			table: {Keys: []Item{{"pk": S("k")}}, AttributesToGet: []string{"pk", "status"}}}})
		must(t, err)
		if got := bout.Responses[table]; len(got) != 1 {
			t.Fatalf("BatchGetItem: %d items", len(got))
		} else {
			assertItem(t, "BatchGetItem", got[0], Item{"pk": S("k"), "status": S("s")})
		}

		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("k")}, AttributesToGet: []string{"a"}, ProjectionExpression: aws.String("a")})
		expectValidation(t, err, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("k")}, AttributesToGet: []string{"a", "a"}})
		expectValidation(t, err, "One or more parameter values were invalid: Duplicate value in attribute name: a")
		_, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			table: {Keys: []Item{{"pk": S("k")}}, AttributesToGet: []string{"a"}, ProjectionExpression: aws.String("a")}}})
		expectValidation(t, err, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
		expectRawValidation(t, s, "GetItem", `{"TableName":"`+table+`","Key":{"pk":{"S":"k"}},"AttributesToGet":[]}`,
			"1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1")
	})
}

func TestLegacyQueryScan(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createRangeTable(t, c, "legacy_q", "N")
		for i, v := range []string{"x", "y", "x", "z"} {
			put(t, c, table, Item{"pk": S("p"), "sk": N(string(rune('1' + i))), "v": S(v), "w": N(string(rune('1' + i)))})
		}
		put(t, c, table, Item{"pk": S("other"), "sk": N("1"), "v": S("x")})

		keys := func(items []Item) []string {
			var out []string
			for _, it := range items {
				out = append(out, it["pk"].(*types.AttributeValueMemberS).Value+"/"+it["sk"].(*types.AttributeValueMemberN).Value)
			}
			return out
		}
		eq := func(what string, got []string, want ...string) {
			t.Helper()
			if show(got) != show(want) {
				t.Errorf("%s: got %v, want %v", what, got, want)
			}
		}

		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table),
			KeyConditions: map[string]types.Condition{"pk": filt(types.ComparisonOperatorEq, S("p")), "sk": filt(types.ComparisonOperatorBetween, N("2"), N("4"))}})
		must(t, err)
		eq("KeyConditions BETWEEN", keys(out.Items), "p/2", "p/3", "p/4")

		out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), ScanIndexForward: aws.Bool(false),
			KeyConditions: map[string]types.Condition{"pk": filt(types.ComparisonOperatorEq, S("p"))},
			QueryFilter:   map[string]types.Condition{"v": filt(types.ComparisonOperatorEq, S("x")), "w": filt(types.ComparisonOperatorGt, N("3"))}, ConditionalOperator: types.ConditionalOperatorOr})
		must(t, err)
		eq("QueryFilter OR", keys(out.Items), "p/4", "p/3", "p/1")
		if out.ScannedCount != 4 {
			t.Errorf("ScannedCount = %d, want 4", out.ScannedCount)
		}

		out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), AttributesToGet: []string{"pk", "sk"},
			KeyConditions: map[string]types.Condition{"pk": filt(types.ComparisonOperatorEq, S("p")), "sk": filt(types.ComparisonOperatorLe, N("1"))}})
		must(t, err)
		if len(out.Items) != 1 {
			t.Fatalf("AttributesToGet query: %d items", len(out.Items))
		}
		assertItem(t, "AttributesToGet query", out.Items[0], Item{"pk": S("p"), "sk": N("1")})

		// KeyConditions may go with FilterExpression.
		out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table),
			KeyConditions:    map[string]types.Condition{"pk": filt(types.ComparisonOperatorEq, S("p"))},
			FilterExpression: aws.String("v = :x"), ExpressionAttributeValues: Item{":x": S("x")}})
		must(t, err)
		eq("KeyConditions with FilterExpression", keys(out.Items), "p/1", "p/3")

		sout, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectSpecificAttributes, AttributesToGet: []string{"pk", "sk"},
			ScanFilter: map[string]types.Condition{"v": filt(types.ComparisonOperatorIn, S("x"), S("z")), "pk": filt(types.ComparisonOperatorBeginsWith, S("p"))}})
		must(t, err)
		if sout.Count != 3 {
			t.Errorf("ScanFilter: Count = %d, want 3", sout.Count)
		}
		for _, it := range sout.Items {
			if len(it) != 2 {
				t.Errorf("ScanFilter projection: %s", show(canonItem(it)))
			}
		}

		qRefusals := []struct {
			in  dynamodb.QueryInput
			msg string
		}{
			{dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": filt(types.ComparisonOperatorEq, S("p"))}, QueryFilter: map[string]types.Condition{"v": filt(types.ComparisonOperatorEq, S("x"))}, KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: Item{":p": S("p")}},
				"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {QueryFilter, KeyConditions} Expression parameters: {KeyConditionExpression}"},
			{dynamodb.QueryInput{ConditionalOperator: types.ConditionalOperatorAnd, KeyConditions: map[string]types.Condition{"pk": filt(types.ComparisonOperatorEq, S("p"))}},
				"ConditionalOperator cannot be used without Filter or Expected"},
			{dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": filt(types.ComparisonOperatorEq, S("p")), "sk": filt(types.ComparisonOperatorNe, N("1"))}},
				"Attempted conditional constraint is not an indexable operation"},
			{dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": filt(types.ComparisonOperatorGt, S("p"))}},
				"Query key condition not supported"},
			{dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": filt(types.ComparisonOperatorEq, N("1"))}},
				"One or more parameter values were invalid: Condition parameter type does not match schema type"},
			{dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"sk": filt(types.ComparisonOperatorEq, N("1"))}},
				"Query condition missed key schema element: pk"},
			{dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": filt(types.ComparisonOperatorEq, S("p")), "sk": filt(types.ComparisonOperatorBetween, N("1"))}},
				"One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator"},
			{dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": filt(types.ComparisonOperatorEq, S("p"))}, QueryFilter: map[string]types.Condition{"sk": filt(types.ComparisonOperatorEq, N("1"))}},
				"QueryFilter can only contain non-primary key attributes: Primary key attribute: sk"},
			{dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": filt(types.ComparisonOperatorEq, S("p"))}, QueryFilter: map[string]types.Condition{"v": filt(types.ComparisonOperatorBeginsWith, N("1"))}},
				"One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"},
			{dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": filt(types.ComparisonOperatorEq, S("p"))}, AttributesToGet: []string{"v"}, Select: types.SelectAllAttributes},
				"1 validation error detected: Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES"},
			{dynamodb.QueryInput{KeyConditions: map[string]types.Condition{"pk": filt(types.ComparisonOperatorEq, S("p"))}, AttributesToGet: []string{"v"}, Select: types.SelectCount},
				"1 validation error detected: Cannot specify the AttributesToGet when choosing to get only the Count"},
		}
		for _, r := range qRefusals {
			in := r.in
			in.TableName = aws.String(table)
			_, err := c.Query(ctx, &in)
			expectValidation(t, err, r.msg)
		}

		sRefusals := []struct {
			in  dynamodb.ScanInput
			msg string
		}{
			{dynamodb.ScanInput{AttributesToGet: []string{"a"}, ScanFilter: map[string]types.Condition{"v": filt(types.ComparisonOperatorEq, S("x"))}, ConditionalOperator: types.ConditionalOperatorAnd, FilterExpression: aws.String("v = :v"), ProjectionExpression: aws.String("w"), ExpressionAttributeValues: Item{":v": S("x")}},
				"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet, ScanFilter, ConditionalOperator} Expression parameters: {ProjectionExpression, FilterExpression}"},
			{dynamodb.ScanInput{ConditionalOperator: types.ConditionalOperatorOr, ScanFilter: map[string]types.Condition{"v": filt(types.ComparisonOperatorEq, S("x"))}},
				"ConditionalOperator can only be used when Filter or Expected has two or more elements"},
			{dynamodb.ScanInput{ScanFilter: map[string]types.Condition{"v": filt(types.ComparisonOperatorNull, S("x"))}},
				"One or more parameter values were invalid: Invalid number of argument(s) for the NULL ComparisonOperator"},
			{dynamodb.ScanInput{ScanFilter: map[string]types.Condition{"v": filt(types.ComparisonOperatorBetween, N("5"), N("1"))}},
				"The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"},
			{dynamodb.ScanInput{AttributesToGet: []string{"v"}, Select: types.SelectCount},
				"Cannot specify the AttributesToGet when choosing to get only the Count"},
			{dynamodb.ScanInput{AttributesToGet: []string{"v", "w", "v"}},
				"One or more parameter values were invalid: Duplicate value in attribute name: v"},
		}
		for _, r := range sRefusals {
			in := r.in
			in.TableName = aws.String(table)
			_, err := c.Scan(ctx, &in)
			expectValidation(t, err, r.msg)
		}
		expectRawValidation(t, s, "Scan", `{"TableName":"`+table+`","ScanFilter":{"v":{"AttributeValueList":[{"S":"x"}]}}}`,
			"1 validation error detected: Value null at 'scanFilter.v.member.comparisonOperator' failed to satisfy constraint: Member must not be null")
	})
}
