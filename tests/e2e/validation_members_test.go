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

// TestValidationEmptyTableName: data-plane TableName members take a name or
// an ARN (length 1 to 1024), so an empty one fails only the minimum length,
// as one error (nubo-db/dynamodb-conformance, tier3 validation-ordering).
func TestValidationEmptyTableName(t *testing.T) {
	t.Parallel()
	const one = "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1"
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		for op, body := range map[string]string{
			"PutItem":    `{"TableName":"","Item":{}}`,
			"UpdateItem": `{"TableName":"","Key":{}}`,
			"DeleteItem": `{"TableName":"","Key":{}}`,
			"GetItem":    `{"TableName":"","Key":{}}`,
			"Query":      `{"TableName":"","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}}}`,
			"Scan":       `{"TableName":""}`,
		} {
			expectRawValidation(t, s, op, body, one)
		}
		// Beside another bad member the old-cohort regions list both, the
		// enum first (registry/splits.json, put-item-validation-error-aggregation).
		expectRawValidation(t, s, "PutItem", `{"TableName":"","Item":{"pk":{"S":"a"}},"ReturnValues":"INVALID"}`,
			"2 validation errors detected: Value 'INVALID' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]; "+
				"Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1")
		// A non-empty bad name keeps the table name rules.
		expectRawValidation(t, s, "PutItem", `{"TableName":"bad table!@#","Item":{"pk":{"S":"a"}}}`,
			"1 validation error detected: Value 'bad table!@#' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
	})
}

// TestValidationConstraintOrderAndCap: the order of several member failures
// and the cap of 10 reported ones.
func TestValidationConstraintOrderAndCap(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createHashTable(t, c, "valorder")
		// registry/splits.json, update-item-validation-error-aggregation (old cohort).
		_, err := c.UpdateItem(harness.Ctx(t), &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a")},
			ReturnValues: "INVALID", ReturnConsumedCapacity: "INVALID"})
		expectValidation(t, err, "2 validation errors detected: Value 'INVALID' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]; "+
			"Value 'INVALID' at 'returnValues' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]")
		// Eleven failures: the service reports ten and counts ten (dynalite
		// test/scan.js, "incorrect attributes").
		resp, body := rawCall(t, s, "Scan", `{"TableName":"abc;","ReturnConsumedCapacity":"hi","AttributesToGet":[],"IndexName":"abc;","Segment":-1,"TotalSegments":-1,"Select":"hi","Limit":-1,"ScanFilter":{"a":{},"b":{"ComparisonOperator":""}},"ConditionalOperator":"AN"}`)
		code, msg := rawError(body)
		if resp.StatusCode != 400 || code != "ValidationException" || !strings.HasPrefix(msg, "10 validation errors detected: ") || strings.Count(msg, "failed to satisfy constraint") != 10 {
			t.Errorf("11 bad members: %d %s %s; want 10 errors reported and counted", resp.StatusCode, code, msg)
		}
	})
}

// TestValidationValuesWithoutExpressions: ExpressionAttributeValues without
// an expression that takes values names those expressions (DynamoDB Local's
// InputConverter; dynalite test/scan.js, test/query.js, test/deleteItem.js).
// GetItem has no such member: the service ignores it.
func TestValidationValuesWithoutExpressions(t *testing.T) {
	t.Parallel()
	const prefix = "ExpressionAttributeValues can only be specified when using expressions: "
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "valnoexpr")
		put(t, c, table, sentinel())
		v := Item{":v": S("x")}
		key := Item{"pk": S("sentinel")}
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: sentinel(), ExpressionAttributeValues: v})
		expectValidation(t, err, prefix+"ConditionExpression is null")
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key, ExpressionAttributeValues: v})
		expectValidation(t, err, prefix+"ConditionExpression is null")
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key, ExpressionAttributeValues: v})
		expectValidation(t, err, prefix+"UpdateExpression and ConditionExpression are null")
		_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), ProjectionExpression: aws.String("pk"), ExpressionAttributeValues: v})
		expectValidation(t, err, prefix+"FilterExpression is null")
		_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), ExpressionAttributeValues: v,
			KeyConditions: map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{S("sentinel")}}}})
		expectValidation(t, err, prefix+"FilterExpression and KeyConditionExpression are null")
		resp, body := rawCall(t, s, "GetItem", fmt.Sprintf(`{"TableName":%q,"Key":{"pk":{"S":"sentinel"}},"ExpressionAttributeValues":{":v":{"S":"x"}}}`, table))
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"orig"`) {
			t.Errorf("GetItem with ExpressionAttributeValues: %d %s; want the item (the member is ignored)", resp.StatusCode, body)
		}
		assertItem(t, "sentinel", get(t, c, table, key), sentinel())
	})
}

// TestValidationEmptyIndexKeyByUpdate: an update leaving an index key empty
// is refused without naming the index (conformance transactWriteItems
// capture; moto's EmptyKeyAttributeException), unlike PutItem's text.
func TestValidationEmptyIndexKeyByUpdate(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := harness.TableName("validxupd")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(table), AttributeDefinitions: attrDefs("pk", "S", "gpk", "S"), KeySchema: keySchema("pk"),
			BillingMode: types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi1"), KeySchema: keySchema("gpk"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		})
		must(t, err)
		waitActive(t, c, table)
		put(t, c, table, sentinel())
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("sentinel")},
			UpdateExpression: aws.String("SET gpk = :e"), ExpressionAttributeValues: Item{":e": S("")}})
		expectValidation(t, err, "One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty string value.")
		assertItem(t, "sentinel", get(t, c, table, Item{"pk": S("sentinel")}), sentinel())
	})
}
