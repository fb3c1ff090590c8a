package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// Legacy NOT_CONTAINS on a missing attribute fails (issue 18; alternator's
// test_update_expected_1_not_contains, measured against DynamoDB), unlike
// NE. Before, it passed.
func TestLegacyNotContainsMissing(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "notcontains")
		put(t, c, table, Item{"pk": S("k"), "s": S("hello")})
		nc := func(attr string, v types.AttributeValue) map[string]types.ExpectedAttributeValue {
			return map[string]types.ExpectedAttributeValue{attr: {ComparisonOperator: types.ComparisonOperatorNotContains, AttributeValueList: []types.AttributeValue{v}}}
		}
		// A missing attribute fails NOT_CONTAINS (while NE passes).
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k"), "w": N("1")}, Expected: nc("missing", S("x"))})
		expectCCF(t, err)
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k"), "s": S("hello"), "w": N("2")},
			Expected: map[string]types.ExpectedAttributeValue{"missing": {ComparisonOperator: types.ComparisonOperatorNe, AttributeValueList: []types.AttributeValue{S("x")}}}})
		must(t, err)
		// An attribute without the value passes; with it, fails.
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k"), "s": S("hello"), "w": N("3")}, Expected: nc("s", S("xyz"))})
		must(t, err)
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k"), "w": N("4")}, Expected: nc("s", S("ell"))})
		expectCCF(t, err)
		// A filter likewise.
		out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table),
			ScanFilter: map[string]types.Condition{"missing": {ComparisonOperator: types.ComparisonOperatorNotContains, AttributeValueList: []types.AttributeValue{S("x")}}}})
		must(t, err)
		if out.Count != 0 {
			t.Errorf("ScanFilter NOT_CONTAINS on a missing attribute matched %d items", out.Count)
		}
		assertItem(t, "item", get(t, c, table, Item{"pk": S("k")}), Item{"pk": S("k"), "s": S("hello"), "w": N("3")})
	})
}
