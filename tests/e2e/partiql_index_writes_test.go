package e2e

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// TestPartiQLIndexQualifierRules: writes naming an index are refused (INSERT
// at parse, UPDATE and DELETE as unsupported on an index); a filter on an
// attribute the index does not project is refused on a keyed read and
// matches nothing on an unkeyed one.
func TestPartiQLIndexQualifierRules(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := harness.TableName("pqix")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S", "g", "S"), KeySchema: keySchema("pk"),
			BillingMode: types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gkeys"), KeySchema: keySchema("g"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}},
		})
		must(t, err)
		waitActive(t, c, name)
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: Item{"pk": S("a"), "g": S("x"), "np": S("v")}})
		must(t, err)
		q := `"` + name + `"."gkeys"`
		for _, tc := range []struct{ stmt, want string }{
			{`INSERT INTO ` + q + ` VALUE {'pk': 'b', 'g': 'y'}`, "FROM clause may only contain a single table name"},
			{`UPDATE ` + q + ` SET np = 'z' WHERE pk = 'a'`, "This operation is not supported on an index"},
			{`DELETE FROM ` + q + ` WHERE pk = 'a'`, "This operation is not supported on an index"},
			{`SELECT pk FROM ` + q + ` WHERE g = 'x' AND np = 'v'`, "does not project one or more filter attributes"},
		} {
			_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(tc.stmt)})
			var ae smithy.APIError
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &ae) || ae.ErrorCode() != "ValidationException" {
				t.Errorf("%s: %v, want ValidationException containing %q", tc.stmt, err, tc.want)
			}
		}
		out, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`SELECT pk FROM ` + q + ` WHERE np = 'v'`)})
		must(t, err)
		if len(out.Items) != 0 {
			t.Errorf("unkeyed filter on an unprojected attribute: %d items, want 0", len(out.Items))
		}
		got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: Item{"pk": S("a")}, ConsistentRead: aws.Bool(true)})
		must(t, err)
		assertItem(t, "item after the refused writes", got.Item, Item{"pk": S("a"), "g": S("x"), "np": S("v")})
	})
}
