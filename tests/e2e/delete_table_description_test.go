package e2e

// DeleteTable's TableDescription (issue 18, tables) has what the service
// returns for a table being deleted: no CreationDateTime, KeySchema,
// AttributeDefinitions or index lists (alternator's
// test_delete_table_description_with_si passes against DynamoDB). Before,
// it was DescribeTable's whole answer.

import (
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func TestDeleteTableDescription(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		create := func() string {
			name := harness.TableName("deldesc")
			_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
				TableName: aws.String(name), AttributeDefinitions: attrDefs("p", "S", "c", "S", "x", "S"), KeySchema: keySchema("p", "c"),
				BillingMode: types.BillingModePayPerRequest,
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("hello"), KeySchema: keySchema("x"),
					Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
				LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("hithere"), KeySchema: keySchema("p", "x"),
					Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
			})
			must(t, err)
			waitActive(t, c, name)
			return name
		}
		name := create()
		describe := describeTable(t, c, name)
		if describe.KeySchema == nil || describe.GlobalSecondaryIndexes == nil || describe.LocalSecondaryIndexes == nil {
			t.Fatal("DescribeTable lacks the table's shape")
		}
		resp, body := rawCall(t, s, "DeleteTable", `{"TableName":"`+name+`"}`)
		if resp.StatusCode != 200 {
			t.Fatalf("DeleteTable: %d %s", resp.StatusCode, body)
		}
		var out struct{ TableDescription map[string]json.RawMessage }
		must(t, json.Unmarshal(body, &out))
		d := out.TableDescription
		for _, k := range []string{"CreationDateTime", "KeySchema", "AttributeDefinitions", "GlobalSecondaryIndexes", "LocalSecondaryIndexes"} {
			if _, ok := d[k]; ok {
				t.Errorf("DeleteTable's description has %s", k)
			}
		}
		for _, k := range []string{"TableName", "TableStatus", "TableArn", "TableId", "ProvisionedThroughput", "ItemCount", "TableSizeBytes", "BillingModeSummary"} {
			if _, ok := d[k]; !ok {
				t.Errorf("DeleteTable's description lacks %s", k)
			}
		}
		if string(d["TableStatus"]) != `"DELETING"` {
			t.Errorf("TableStatus %s", d["TableStatus"])
		}
		// Through the SDK.
		del, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(create())})
		must(t, err)
		if td := del.TableDescription; td.TableStatus != types.TableStatusDeleting || td.KeySchema != nil || td.CreationDateTime != nil || td.TableArn == nil {
			t.Errorf("DeleteTable through the SDK: status %s, KeySchema %v, CreationDateTime %v, TableArn %v", td.TableStatus, td.KeySchema, td.CreationDateTime, td.TableArn)
		}
	})
}
