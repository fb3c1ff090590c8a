package e2e

// Attribute names (issue 18, items and names): at least one byte and at
// most 65535, at every level of an item (the service's text, measured by
// ExtendDB: "1 validation error detected: Attribute name is too large,
// must be less than 65536 bytes"); key attribute names of 1 to 255 bytes,
// checked as member constraints before CreateTable looks at how the schema
// fits together; an attribute defined twice is "Attribute Name is
// duplicated". Before, empty and 64 KB names were stored.

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func TestAttributeNames(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "attrnames")
		const tooLarge = "1 validation error detected: Attribute name is too large, must be less than 65536 bytes"
		const empty = "1 validation error detected: Empty attribute name"
		big, ok := strings.Repeat("n", 65536), strings.Repeat("n", 65535)
		key := Item{"pk": S("k")}

		for _, tc := range []struct {
			what string
			item Item
			msg  string
		}{
			{"empty name", Item{"pk": S("k"), "": S("v")}, empty},
			{"65536-byte name", Item{"pk": S("k"), big: S("v")}, tooLarge},
			{"65536-byte nested map key", Item{"pk": S("k"), "m": M(Item{big: S("v")})}, tooLarge},
			{"65536-byte map key in a list", Item{"pk": S("k"), "l": L(M(Item{big: N("1")}))}, tooLarge},
		} {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: tc.item})
			expectValidation(t, err, tc.msg)
			_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				table: {{PutRequest: &types.PutRequest{Item: tc.item}}}}})
			expectValidation(t, err, tc.msg)
			_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(table), Item: tc.item}}}})
			expectValidation(t, err, tc.msg)
		}
		for _, tc := range []struct {
			what, expr string
			names      map[string]string
			vals       Item
			msg        string
		}{
			{"SET of a 65536-byte name", "SET #n = :v", map[string]string{"#n": big}, Item{":v": N("1")}, tooLarge},
			{"SET of a map with a 65536-byte key", "SET doc = :v", nil, Item{":v": M(Item{big: N("1")})}, tooLarge},
		} {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
				UpdateExpression: aws.String(tc.expr), ExpressionAttributeNames: tc.names, ExpressionAttributeValues: tc.vals})
			expectValidation(t, err, tc.msg)
		}
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key,
			AttributeUpdates: map[string]types.AttributeValueUpdate{"": {Action: types.AttributeActionPut, Value: N("1")}}})
		expectValidation(t, err, empty)
		if it := get(t, c, table, key); it != nil {
			t.Fatalf("a refused write stored %d attributes", len(it))
		}

		// The largest name, and an empty nested map key, are accepted.
		put(t, c, table, Item{"pk": S("k"), ok: S("v"), "m": M(Item{ok: S("w"), "": S("empty key")})})
		it := get(t, c, table, key)
		if it[ok] == nil || len(it["m"].(*types.AttributeValueMemberM).Value) != 2 {
			t.Errorf("the item with a 65535-byte name came back without it")
		}
	})
}

func TestCreateTableNames(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		long := strings.Repeat("k", 256)
		create := func(defs []types.AttributeDefinition, ks []types.KeySchemaElement) error {
			_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(harness.TableName("names")),
				AttributeDefinitions: defs, KeySchema: ks, BillingMode: types.BillingModePayPerRequest})
			return err
		}
		// The length constraint comes before the schema's coherence
		// ("Some index key attributes are not defined ...").
		err := create(attrDefs(long, "S"), keySchema("pk"))
		expectValidation(t, err, "1 validation error detected: Value '"+long+"' at 'attributeDefinitions.1.member.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255")
		err = create(attrDefs("pk", "S"), keySchema(long))
		expectValidation(t, err, "1 validation error detected: Value '"+long+"' at 'keySchema.1.member.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255")
		err = create(attrDefs("", "S"), keySchema(""))
		expectValidation(t, err, "2 validation errors detected: Value '' at 'attributeDefinitions.1.member.attributeName' failed to satisfy constraint: Member must have length greater than or equal to 1; Value '' at 'keySchema.1.member.attributeName' failed to satisfy constraint: Member must have length greater than or equal to 1")
		err = create(attrDefs("pk", "S", "pk", "S"), keySchema("pk"))
		expectValidation(t, err, "Attribute Name is duplicated: pk")
		err = create(attrDefs("pk", "S", "sk", "N", "sk", "S"), keySchema("pk", "sk"))
		expectValidation(t, err, "Attribute Name is duplicated: sk")
		// 255 bytes is a good name.
		name255 := strings.Repeat("k", 255)
		must(t, create(attrDefs(name255, "S"), keySchema(name255)))
	})
}
