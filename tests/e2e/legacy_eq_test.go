package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// TestLegacyEqualityOnAnyType: the legacy EQ and NE take every attribute
// type (BOOL, NULL, lists, maps), as the API reference's Condition says.
func TestLegacyEqualityOnAnyType(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := createRangeTable(t, c, "legeq", "S")
		m := &types.AttributeValueMemberM{Value: Item{"k": S("v")}}
		for _, it := range []Item{
			{"pk": S("p"), "sk": S("a"), "flag": &types.AttributeValueMemberBOOL{Value: true}, "m": m},
			{"pk": S("p"), "sk": S("b"), "flag": &types.AttributeValueMemberBOOL{Value: false}},
		} {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: it})
			must(t, err)
		}
		keyCond := map[string]types.Condition{"pk": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{S("p")}}}
		for _, tc := range []struct {
			what   string
			filter types.Condition
			want   string
		}{
			{"EQ BOOL true", types.Condition{ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{&types.AttributeValueMemberBOOL{Value: true}}}, "a"},
			{"NE BOOL true", types.Condition{ComparisonOperator: types.ComparisonOperatorNe, AttributeValueList: []types.AttributeValue{&types.AttributeValueMemberBOOL{Value: true}}}, "b"},
		} {
			out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), KeyConditions: keyCond,
				QueryFilter: map[string]types.Condition{"flag": tc.filter}, ConsistentRead: aws.Bool(true)})
			must(t, err)
			if out.Count != 1 || out.Items[0]["sk"].(*types.AttributeValueMemberS).Value != tc.want {
				t.Errorf("QueryFilter %s: %d items %v, want only sk %s", tc.what, out.Count, out.Items, tc.want)
			}
		}
		out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true),
			ScanFilter: map[string]types.Condition{"m": {ComparisonOperator: types.ComparisonOperatorEq, AttributeValueList: []types.AttributeValue{m}}}})
		must(t, err)
		if out.Count != 1 {
			t.Errorf("ScanFilter EQ on a map: %d items, want 1", out.Count)
		}
	})
}
