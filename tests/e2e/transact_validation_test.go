package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// expectValidationReason asserts a cancellation whose reasons are
// ValidationError with msg at index at and None elsewhere.
func expectValidationReason(t *testing.T, err error, n, at int, msg string) {
	t.Helper()
	codes := make([]string, n)
	for i := range codes {
		codes[i] = "None"
	}
	codes[at] = "ValidationError"
	tce := expectCanceled(t, err, codes...)
	if got := aws.ToString(tce.CancellationReasons[at].Message); got != msg {
		t.Errorf("reason %d message\n  got:  %s\n  want: %s", at, got, msg)
	}
}

// TestTransactValidationShapes: which refusals of a transaction member
// refuse the request and which cancel the transaction with a
// ValidationError reason, and the member paths of constraint failures
// (nubo-db/dynamodb-conformance tests/tier3/error-messages/
// transactWriteItems and transactGetItems, measured in four regions).
func TestTransactValidationShapes(t *testing.T) {
	t.Parallel()
	const emptyKey = "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: pk"
	const emptyIndexByUpdate = "One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty string value."
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		a := createHashTable(t, c, "txshape")
		g := harness.TableName("txshapeg")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(g), AttributeDefinitions: attrDefs("pk", "S", "gpk", "S"), KeySchema: keySchema("pk"),
			BillingMode: types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi1"), KeySchema: keySchema("gpk"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		})
		must(t, err)
		waitActive(t, c, g)
		tw := func(items ...types.TransactWriteItem) error {
			_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
			return err
		}
		ok := txPut(a, Item{"pk": S("ok")})

		// Schema misfits cancel, with the single-item texts.
		expectValidationReason(t, tw(ok, txPut(a, Item{"pk": N("5")})), 2, 1,
			"One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N")
		expectValidationReason(t, tw(txPut(g, Item{"pk": S("a"), "gpk": N("5")})), 1, 0,
			"One or more parameter values were invalid: Type mismatch for Index Key gpk Expected: S Actual: N IndexName: gsi1")
		expectValidationReason(t, tw(txUpdate(g, Item{"pk": S("a")}, "SET gpk = :v", "", Item{":v": N("5")})), 1, 0,
			"One or more parameter values were invalid: Type mismatch for Index Key gpk Expected: S Actual: N IndexName: gsi1")
		for _, bad := range []types.AttributeValue{N("5"), L(S("x"))} {
			expectValidationReason(t, tw(txDelete(a, Item{"pk": bad})), 1, 0, keyMismatch)
			expectValidationReason(t, tw(txCheck(a, Item{"pk": bad}, "attribute_exists(pk)")), 1, 0, keyMismatch)
			expectValidationReason(t, tw(txUpdate(a, Item{"pk": bad}, "SET v = :v", "", Item{":v": S("x")})), 1, 0, keyMismatch)
		}
		// Empty values refuse the request.
		expectValidation(t, tw(txPut(a, Item{"pk": S("")})), emptyKey)
		expectValidation(t, tw(txDelete(a, Item{"pk": S("")})), emptyKey)
		expectValidation(t, tw(txCheck(a, Item{"pk": S("")}, "attribute_exists(pk)")), emptyKey)
		expectValidation(t, tw(txPut(g, Item{"pk": S("a"), "gpk": S("")})),
			"One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: gsi1, IndexKey: gpk")
		expectValidation(t, tw(txUpdate(g, Item{"pk": S("a")}, "SET gpk = :v", "", Item{":v": S("")})), emptyIndexByUpdate)

		// Member constraints name the action's position and kind.
		bad := "bad!name"
		expectValidation(t, tw(ok, txUpdate(bad, Item{"pk": S("a")}, "SET a = :a", "", Item{":a": S("x")})),
			"1 validation error detected: Value 'bad!name' at 'transactItems.2.member.update.tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
		expectValidation(t, tw(txCheck(bad, Item{"pk": S("a")}, "attribute_exists(pk)")),
			"1 validation error detected: Value 'bad!name' at 'transactItems.1.member.conditionCheck.tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
		expectRawValidation(t, s, "TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"`+a+`","Item":{"pk":{"S":"a"}}}},{"Delete":{"TableName":"`+a+`"}}]}`,
			"1 validation error detected: Value null at 'transactItems.2.member.delete.key' failed to satisfy constraint: Member must not be null")
		expectRawValidation(t, s, "TransactWriteItems", `{"TransactItems":[{}]}`,
			"Invalid Request: TransactWriteRequest should contain Delete or Put or Update request")
		expectRawValidation(t, s, "TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"`+a+`","Item":{"pk":{"S":"a"}}}}],"ClientRequestToken":""}`,
			"1 validation error detected: Value '' at 'clientRequestToken' failed to satisfy constraint: Member must have length greater than or equal to 1")

		// TransactGetItems the same way.
		tg := func(items ...types.TransactGetItem) error {
			_, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: items})
			return err
		}
		txGet := func(table string, key Item) types.TransactGetItem {
			return types.TransactGetItem{Get: &types.Get{TableName: aws.String(table), Key: key}}
		}
		expectValidationReason(t, tg(txGet(a, Item{"pk": S("ok")}), txGet(a, Item{})), 2, 1, keyMismatch)
		expectValidation(t, tg(txGet(a, Item{"pk": S("")})), emptyKey)
		expectValidation(t, tg(txGet(a, Item{"pk": S("ok")}), txGet(bad, Item{"pk": S("a")})),
			"1 validation error detected: Value 'bad!name' at 'transactItems.2.member.get.tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")

		assertItem(t, "ok after the refused requests", get(t, c, a, Item{"pk": S("ok")}), nil)
	})
}
