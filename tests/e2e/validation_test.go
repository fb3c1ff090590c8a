package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

const (
	keyMismatch = "The provided key element does not match the schema"
	tooBig      = "Item size has exceeded the maximum allowed size"
	// UpdateItem words the same limit differently (AWS API reference,
	// UpdateItem errors; dynalite and moto agree).
	tooBigAfterUpdate = "Item size to update has exceeded the maximum allowed size"
)

// sentinel is an item every validation test leaves in place; each failed
// request targets its key, so any partial write would show.
func sentinel() Item { return Item{"pk": S("sentinel"), "v": S("orig")} }

func TestValidationItemShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		item Item
		msg  string
	}{
		{"missing hash key", Item{"v": S("x")}, "One or more parameter values were invalid: Missing the key pk in the item"},
		{"hash key type mismatch", Item{"pk": N("1")}, "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N"},
		{"hash key set type", Item{"pk": SS("a")}, "One or more parameter values were invalid: Type mismatch for key pk expected: S actual: SS"},
		{"empty string hash key", Item{"pk": S("")}, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"},
		{"hash key over 2048 bytes", Item{"pk": S(strings.Repeat("h", 2049))}, "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"},
		{"item over 400 KB", Item{"pk": S("sentinel"), "big": S(strings.Repeat("x", 400*1024))}, tooBig},
		{"38+ significant digits", Item{"pk": S("sentinel"), "n": N("123456789012345678901234567890123456789")}, "Attempting to store more than 38 significant digits in a Number"},
		{"38+ digits after the point", Item{"pk": S("sentinel"), "n": N("-1.23456789012345678901234567890123456789")}, "Attempting to store more than 38 significant digits in a Number"},
		{"number overflow", Item{"pk": S("sentinel"), "n": N("1e126")}, "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"negative number overflow", Item{"pk": S("sentinel"), "n": N("-1e126")}, "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"number underflow", Item{"pk": S("sentinel"), "n": N("1e-131")}, "Number underflow. Attempting to store a number with magnitude smaller than supported range"},
		{"not a number", Item{"pk": S("sentinel"), "n": N("abc")}, "The parameter cannot be converted to a numeric value: abc"},
		{"bad number in a set", Item{"pk": S("sentinel"), "ns": NS("1", "b")}, "The parameter cannot be converted to a numeric value: b"},
		{"bad number nested", Item{"pk": S("sentinel"), "m": M(Item{"l": L(N("1e200"))})}, "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"duplicate string set members", Item{"pk": S("sentinel"), "ss": SS("a", "a")}, "One or more parameter values were invalid: Input collection [a, a] contains duplicates."},
		{"duplicate number set members", Item{"pk": S("sentinel"), "ns": NS("1", "1")}, "Input collection contains duplicates"},
		{"duplicate binary set members", Item{"pk": S("sentinel"), "bs": BS([]byte("b"), []byte("b"))}, "One or more parameter values were invalid: Input collection [Yg==, Yg==]of type BS contains duplicates."},
	}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createHashTable(t, c, "valitem")
		put(t, c, table, sentinel())
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, err := c.PutItem(harness.Ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: tc.item})
				expectValidation(t, err, tc.msg)
			})
		}
		// Exactly 2048 bytes of hash key is fine.
		put(t, c, table, Item{"pk": S(strings.Repeat("h", 2048))})
		assertItem(t, "sentinel", get(t, c, table, Item{"pk": S("sentinel")}), sentinel())
		assertItem(t, "2049-byte key", get(t, c, table, Item{"pk": S(strings.Repeat("h", 2048))}), Item{"pk": S(strings.Repeat("h", 2048))})
	})
}

func TestValidationRangeKey(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createRangeTable(t, c, "valrange", "S")
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a"), "sk": S(strings.Repeat("r", 1025))}})
		expectValidation(t, err, "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a")}})
		expectValidation(t, err, "One or more parameter values were invalid: Missing the key sk in the item")
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("a"), "sk": S("")}})
		expectValidation(t, err, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: sk")
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")}})
		expectValidation(t, err, keyMismatch)
		put(t, c, table, Item{"pk": S("a"), "sk": S(strings.Repeat("r", 1024))})
	})
}

func TestValidationKeys(t *testing.T) {
	t.Parallel()
	keys := []struct {
		name string
		key  Item
	}{
		{"wrong type", Item{"pk": N("1")}},
		{"wrong type binary", Item{"pk": B([]byte("a"))}},
		{"extra attribute", Item{"pk": S("sentinel"), "v": S("orig")}},
		{"missing key attribute", Item{"other": S("sentinel")}},
		{"empty key", Item{}},
	}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "valkey")
		put(t, c, table, sentinel())
		for _, k := range keys {
			t.Run(k.name, func(t *testing.T) {
				_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: k.key})
				expectValidation(t, err, keyMismatch)
				_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: k.key})
				expectValidation(t, err, keyMismatch)
				_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: k.key,
					UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: Item{":v": S("changed")}})
				expectValidation(t, err, keyMismatch)
			})
		}
		assertItem(t, "sentinel", get(t, c, table, Item{"pk": S("sentinel")}), sentinel())
	})
}

func TestValidationReturnValues(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "valrv")
		put(t, c, table, sentinel())
		changed := Item{"pk": S("sentinel"), "v": S("changed")}
		for _, rv := range []types.ReturnValue{types.ReturnValueUpdatedNew, types.ReturnValueAllNew, types.ReturnValueUpdatedOld} {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: changed, ReturnValues: rv})
			expectValidation(t, err, "ReturnValues can only be ALL_OLD or NONE")
			_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("sentinel")}, ReturnValues: rv})
			expectValidation(t, err, "ReturnValues can only be ALL_OLD or NONE")
		}
		garbage := "1 validation error detected: Value 'GARBAGE' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: changed, ReturnValues: "GARBAGE"})
		expectValidation(t, err, garbage)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("sentinel")},
			UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: Item{":v": S("changed")}, ReturnValues: "GARBAGE"})
		expectValidation(t, err, garbage)
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("sentinel")}, ReturnValues: "GARBAGE"})
		expectValidation(t, err, garbage)
		assertItem(t, "sentinel", get(t, c, table, Item{"pk": S("sentinel")}), sentinel())
	})
}

func TestValidationExpressions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		cond   string
		names  map[string]string
		values Item
		msg    string
	}{
		{"unused value", "attribute_exists(pk)", nil, Item{":a": S("a")},
			"Value provided in ExpressionAttributeValues unused in expressions: keys: {:a}"},
		{"unused name", "attribute_exists(pk)", map[string]string{"#a": "a"}, nil,
			"Value provided in ExpressionAttributeNames unused in expressions: keys: {#a}"},
		{"undefined value", "v = :nope", nil, nil,
			"Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :nope"},
		{"undefined value with a values map", "v = :nope", nil, Item{":v": S("x")},
			"Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :nope"},
		{"undefined name", "#nope = :v", nil, Item{":v": S("x")},
			"Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #nope"},
		{"syntax error at end", "attribute_exists(pk) AND", nil, nil,
			`Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "AND"`},
		{"reserved keyword", "status = :v", nil, Item{":v": S("x")},
			"Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{"unknown function", "no_such_fn(v)", nil, nil,
			"Invalid ConditionExpression: Invalid function name; function: no_such_fn"},
	}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "valexpr")
		put(t, c, table, sentinel())
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("sentinel"), "v": S("changed")},
					ConditionExpression: aws.String(tc.cond), ExpressionAttributeNames: tc.names, ExpressionAttributeValues: tc.values})
				expectValidation(t, err, tc.msg)
				_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("sentinel")},
					ConditionExpression: aws.String(tc.cond), ExpressionAttributeNames: tc.names, ExpressionAttributeValues: tc.values})
				expectValidation(t, err, tc.msg)
			})
		}
		// Empty placeholder maps (raw: the SDK may drop an empty map).
		expectRawValidation(t, s, "PutItem", fmt.Sprintf(`{"TableName":%q,"Item":{"pk":{"S":"sentinel"},"v":{"S":"changed"}},"ConditionExpression":"attribute_exists(pk)","ExpressionAttributeNames":{}}`, table),
			"ExpressionAttributeNames must not be empty")
		expectRawValidation(t, s, "PutItem", fmt.Sprintf(`{"TableName":%q,"Item":{"pk":{"S":"sentinel"},"v":{"S":"changed"}},"ConditionExpression":"attribute_exists(pk)","ExpressionAttributeValues":{}}`, table),
			"ExpressionAttributeValues must not be empty")
		expectRawValidation(t, s, "DeleteItem", fmt.Sprintf(`{"TableName":%q,"Key":{"pk":{"S":"sentinel"}},"ConditionExpression":""}`, table),
			"Invalid ConditionExpression: The expression can not be empty;")
		// ProjectionExpression errors on GetItem.
		_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("sentinel")}, ProjectionExpression: aws.String("a b")})
		expectValidation(t, err, `Invalid ProjectionExpression: Syntax error; token: "b", near: "a b"`)
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("sentinel")}, ProjectionExpression: aws.String("#x")})
		expectValidation(t, err, "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #x")
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("sentinel")}, ProjectionExpression: aws.String("v"),
			ExpressionAttributeNames: map[string]string{"#u": "u"}})
		expectValidation(t, err, "Value provided in ExpressionAttributeNames unused in expressions: keys: {#u}")
		// An unused value in UpdateItem, and an update syntax error.
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("sentinel")},
			UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: Item{":v": S("changed"), ":w": S("w")}})
		expectValidation(t, err, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}")
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("sentinel")},
			UpdateExpression: aws.String("SET v ="), ExpressionAttributeValues: nil})
		expectValidation(t, err, `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "="`)
		expectRawValidation(t, s, "UpdateItem", fmt.Sprintf(`{"TableName":%q,"Key":{"pk":{"S":"sentinel"}},"UpdateExpression":""}`, table),
			"Invalid UpdateExpression: The expression can not be empty;")
		assertItem(t, "sentinel", get(t, c, table, Item{"pk": S("sentinel")}), sentinel())
	})
}

// TestValidationAttributeValueShapes sends shapes the SDK would not produce
// (empty sets, NULL false, an empty AttributeValue) as raw JSON.
func TestValidationAttributeValueShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, attr, msg string
	}{
		{"empty string set", `{"SS":[]}`, "One or more parameter values were invalid: An string set  may not be empty"},
		{"empty number set", `{"NS":[]}`, "One or more parameter values were invalid: An number set  may not be empty"},
		{"empty binary set", `{"BS":[]}`, "One or more parameter values were invalid: Binary sets should not be empty"},
		{"NULL false", `{"NULL":false}`, "One or more parameter values were invalid: Null attribute value types must have the value of true"},
		{"no data type", `{}`, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		{"two data types", `{"S":"a","N":"1"}`, "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"},
		{"empty number", `{"N":""}`, "The parameter cannot be converted to a numeric value"},
		{"empty set nested in a map", `{"M":{"x":{"SS":[]}}}`, "One or more parameter values were invalid: An string set  may not be empty"},
	}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createHashTable(t, c, "valshape")
		put(t, c, table, sentinel())
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				body := fmt.Sprintf(`{"TableName":%q,"Item":{"pk":{"S":"sentinel"},"v":%s}}`, table, tc.attr)
				expectRawValidation(t, s, "PutItem", body, tc.msg)
			})
		}
		// Empty strings and binaries are fine outside keys, and inside sets.
		resp, data := rawCall(t, s, "PutItem", fmt.Sprintf(`{"TableName":%q,"Item":{"pk":{"S":"empties"},"s":{"S":""},"b":{"B":""},"ss":{"SS":["","a"]},"m":{"M":{"e":{"S":""}}}}}`, table))
		if resp.StatusCode != 200 {
			t.Errorf("PutItem with empty non-key string/binary: %d %s", resp.StatusCode, data)
		}
		assertItem(t, "empties", get(t, c, table, Item{"pk": S("empties")}),
			Item{"pk": S("empties"), "s": S(""), "b": B([]byte{}), "ss": SS("", "a"), "m": M(Item{"e": S("")})})
		assertItem(t, "sentinel", get(t, c, table, Item{"pk": S("sentinel")}), sentinel())
	})
}

func TestValidationItemTooBigAfterUpdate(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "valbig")
		orig := Item{"pk": S("k"), "a": S(strings.Repeat("a", 300*1024))}
		put(t, c, table, orig)
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("k")},
			UpdateExpression: aws.String("SET b = :b"), ExpressionAttributeValues: Item{":b": S(strings.Repeat("b", 200*1024))}})
		expectValidation(t, err, tooBigAfterUpdate)
		got := get(t, c, table, Item{"pk": S("k")})
		if len(got) != 2 || got["b"] != nil {
			t.Errorf("item changed by a refused update: %d attributes", len(got))
		}
		// Just under the limit is accepted: 400 KiB counts names and values.
		limitItem := Item{"pk": S("k2"), "a": S(strings.Repeat("a", 400*1024-len("pk")-len("k2")-len("a")))}
		put(t, c, table, limitItem)
		over := Item{"pk": S("k3"), "a": S(strings.Repeat("a", 400*1024-len("pk")-len("k3")-len("a")+1))}
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: over})
		expectValidation(t, err, tooBig)
	})
}

func TestMissingTable(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := aws.String(harness.TableName("missing"))
		key := Item{"pk": S("a")}
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: name, Item: key})
		expectNotFound(t, err)
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: name, Key: key})
		expectNotFound(t, err)
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: name, Key: key})
		expectNotFound(t, err)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: name, Key: key, UpdateExpression: aws.String("SET a = :a"), ExpressionAttributeValues: Item{":a": S("x")}})
		expectNotFound(t, err)
		_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: name})
		expectNotFound(t, err)
		_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: name})
		expectNotFound(t, err)
	})
}

func TestValidationIndexKeys(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := harness.TableName("validx")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(table),
			AttributeDefinitions: attrDefs("pk", "S", "gpk", "S"),
			KeySchema:            keySchema("pk"),
			BillingMode:          types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
				IndexName: aws.String("gsi1"), KeySchema: keySchema("gpk"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			}},
		})
		must(t, err)
		waitActive(t, c, table)
		put(t, c, table, sentinel())
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("sentinel"), "gpk": N("1")}})
		expectValidation(t, err, "One or more parameter values were invalid: Type mismatch for Index Key gpk Expected: S Actual: N IndexName: gsi1")
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("sentinel"), "gpk": S("")}})
		expectValidation(t, err, "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: gsi1, IndexKey: gpk")
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("sentinel")},
			UpdateExpression: aws.String("SET gpk = :n"), ExpressionAttributeValues: Item{":n": N("1")}})
		expectValidation(t, err, "One or more parameter values were invalid: Type mismatch for Index Key gpk Expected: S Actual: N IndexName: gsi1")
		// A correctly typed index key, or none at all, is fine.
		put(t, c, table, Item{"pk": S("ok"), "gpk": S("g")})
		put(t, c, table, Item{"pk": S("ok2")})
		assertItem(t, "sentinel", get(t, c, table, Item{"pk": S("sentinel")}), sentinel())
	})
}

func TestValidationMisc(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "valmisc")
		put(t, c, table, sentinel())

		// Nesting: the service supports 32 levels; 40 are clearly too deep.
		deep := S("leaf")
		for i := 0; i < 40; i++ {
			deep = M(Item{"d": deep})
		}
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("sentinel"), "deep": deep}})
		expectValidation(t, err, "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit")

		// Table name constraints apply to item operations too.
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("ab"), Key: Item{"pk": S("x")}})
		expectValidation(t, err, "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3")

		// Placeholder maps.
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("sentinel"), "v": S("changed")},
			ConditionExpression: aws.String("attribute_exists(pk)"), ExpressionAttributeNames: map[string]string{"#": "x"}})
		expectValidation(t, err, `ExpressionAttributeNames contains invalid key: Syntax error; key: "#"`)
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("sentinel"), "v": S("changed")},
			ConditionExpression: aws.String("v = :v"), ExpressionAttributeValues: Item{":v": N("abc")}})
		expectValidation(t, err, "ExpressionAttributeValues contains invalid value: The parameter cannot be converted to a numeric value: abc for key :v")
		expectRawValidation(t, s, "PutItem", fmt.Sprintf(`{"TableName":%q,"Item":{"pk":{"S":"sentinel"},"v":{"S":"changed"}},"ConditionExpression":"v = :v","ExpressionAttributeValues":{":v":{}}}`, table),
			"ExpressionAttributeValues contains invalid value: Supplied AttributeValue is empty, must contain exactly one of the supported datatypes for key :v")
		assertItem(t, "sentinel", get(t, c, table, Item{"pk": S("sentinel")}), sentinel())
	})
}
