package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// TestPartiQLSelectNestedPath: SELECT m.nested names the column "nested"
// (PartiQL's shape), where a ProjectionExpression would keep {m: {nested}}.
func TestPartiQLSelectNestedPath(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := createHashTable(t, c, "pqnest")
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: Item{
			"pk": S("a"), "top": S("t"), "mymap": &types.AttributeValueMemberM{Value: Item{"nested": S("deep")}}}})
		must(t, err)
		stmt := `SELECT mymap.nested, top FROM "` + name + `" WHERE pk = 'a'`
		out, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt)})
		must(t, err)
		if len(out.Items) != 1 {
			t.Fatalf("ExecuteStatement: %d items", len(out.Items))
		}
		assertItem(t, "SELECT mymap.nested, top", out.Items[0], Item{"nested": S("deep"), "top": S("t")})
		batch, err := c.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{{Statement: aws.String(stmt)}}})
		must(t, err)
		if len(batch.Responses) != 1 || batch.Responses[0].Error != nil {
			t.Fatalf("BatchExecuteStatement: %+v", batch.Responses)
		}
		assertItem(t, "BatchExecuteStatement SELECT mymap.nested, top", batch.Responses[0].Item, Item{"nested": S("deep"), "top": S("t")})
	})
}
