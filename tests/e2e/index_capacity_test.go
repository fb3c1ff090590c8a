package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// TestIndexWriteCapacity: with ReturnConsumedCapacity INDEXES, each index
// is charged what the write changed in it: nothing for an identical
// overwrite or an attribute it does not project, one write to add, rewrite
// or remove the entry, two when its key changes; BatchWriteItem reports the
// indexes it touched.
func TestIndexWriteCapacity(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := harness.TableName("ixcap")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(name),
			AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "gsiPk", "S", "lsiSk", "S"),
			KeySchema:            keySchema("pk", "sk"),
			BillingMode:          types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi-inc"), KeySchema: keySchema("gsiPk"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"proj"}}}},
			LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi1"), KeySchema: keySchema("pk", "lsiSk"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		})
		must(t, err)
		waitActive(t, c, name)
		indexes := types.ReturnConsumedCapacityIndexes
		// want: total, table, then index units by name (absent: not charged).
		check := func(what string, cc *types.ConsumedCapacity, total, table float64, want map[string]float64) {
			t.Helper()
			if cc == nil || aws.ToFloat64(cc.CapacityUnits) != total || cc.Table == nil || aws.ToFloat64(cc.Table.CapacityUnits) != table {
				t.Errorf("%s: ConsumedCapacity %+v, want total %v, table %v", what, cc, total, table)
				return
			}
			got := map[string]float64{}
			for n, u := range cc.GlobalSecondaryIndexes {
				got[n] = aws.ToFloat64(u.CapacityUnits)
			}
			for n, u := range cc.LocalSecondaryIndexes {
				got[n] = aws.ToFloat64(u.CapacityUnits)
			}
			if len(got) != len(want) {
				t.Errorf("%s: index units %v, want %v", what, got, want)
				return
			}
			for n, u := range want {
				if got[n] != u {
					t.Errorf("%s: index units %v, want %v", what, got, want)
					return
				}
			}
		}
		item := Item{"pk": S("p"), "sk": S("1"), "gsiPk": S("g1"), "lsiSk": S("l1"), "proj": S("x"), "xo": S("o")}
		put, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item, ReturnConsumedCapacity: indexes})
		must(t, err)
		check("first put", put.ConsumedCapacity, 3, 1, map[string]float64{"gsi-inc": 1, "lsi1": 1})
		put, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item, ReturnConsumedCapacity: indexes})
		must(t, err)
		check("identical overwrite", put.ConsumedCapacity, 1, 1, map[string]float64{})

		update := func(what, expr string, values Item, total float64, want map[string]float64) {
			t.Helper()
			out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: Item{"pk": S("p"), "sk": S("1")},
				UpdateExpression: aws.String(expr), ExpressionAttributeValues: values, ReturnConsumedCapacity: indexes})
			must(t, err)
			check(what, out.ConsumedCapacity, total, 1, want)
		}
		update("SET xo (projected by the LSI only)", "SET xo = :v", Item{":v": S("o2")}, 2, map[string]float64{"lsi1": 1})
		update("SET proj (projected by both)", "SET proj = :v", Item{":v": S("x2")}, 3, map[string]float64{"gsi-inc": 1, "lsi1": 1})
		update("SET gsiPk (a GSI key change)", "SET gsiPk = :v", Item{":v": S("g2")}, 4, map[string]float64{"gsi-inc": 2, "lsi1": 1})
		update("SET lsiSk (an LSI key change)", "SET lsiSk = :v", Item{":v": S("l2")}, 3, map[string]float64{"lsi1": 2})
		update("REMOVE gsiPk (leaves the GSI)", "REMOVE gsiPk", nil, 3, map[string]float64{"gsi-inc": 1, "lsi1": 1})

		batch, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{ReturnConsumedCapacity: indexes, RequestItems: map[string][]types.WriteRequest{
			name: {
				{PutRequest: &types.PutRequest{Item: Item{"pk": S("b"), "sk": S("1"), "gsiPk": S("g1")}}},
				{PutRequest: &types.PutRequest{Item: Item{"pk": S("b"), "sk": S("2")}}},
			},
		}})
		must(t, err)
		if len(batch.ConsumedCapacity) != 1 {
			t.Fatalf("BatchWriteItem ConsumedCapacity: %+v", batch.ConsumedCapacity)
		}
		check("BatchWriteItem (one item in the GSI, one in neither)", &batch.ConsumedCapacity[0], 3, 2, map[string]float64{"gsi-inc": 1})

		// Reads of an index are charged to the index, not the table.
		q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("gsi-inc"),
			KeyConditionExpression: aws.String("gsiPk = :g"), ExpressionAttributeValues: Item{":g": S("g1")}, ReturnConsumedCapacity: indexes})
		must(t, err)
		check("Query on the GSI", q.ConsumedCapacity, 0.5, 0, map[string]float64{"gsi-inc": 0.5})
		sc, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), IndexName: aws.String("lsi1"), ReturnConsumedCapacity: indexes})
		must(t, err)
		check("Scan of the LSI", sc.ConsumedCapacity, 0.5, 0, map[string]float64{"lsi1": 0.5})
	})
}
