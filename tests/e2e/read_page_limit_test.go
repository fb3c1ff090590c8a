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

// TestReadPageLimit reads 30 items of 97,187 bytes each (as the service
// counts an item: names plus values) by Query, on the table and on a GSI,
// and by Scan. A page stops at the item that takes the data read to 1 MB:
// ten items are 971,870 bytes, eleven 1,069,057, so each page holds eleven
// items and ends with a LastEvaluatedKey. Eleven items are one byte more
// than 261 blocks of 4 KB: they consume 262 read units (131 eventually
// consistent), and 261 if an item were counted a byte short. A filter that
// matches nothing and Select COUNT stop at the same item.
func TestReadPageLimit(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := harness.TableName("page_limit")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(name),
			AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "g", "S"),
			KeySchema:            keySchema("pk", "sk"),
			BillingMode:          types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
				IndexName:  aws.String("byG"),
				KeySchema:  keySchema("g", "sk"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			}},
		})
		must(t, err)
		waitActive(t, c, name)
		blob := strings.Repeat("x", 97161)
		for i := range 30 {
			// pk 3, sk 5, g 2, v 97,162, n 1 + 3 (12.5: 1 + 1 + 1), b 1 + 10.
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: &name, Item: Item{
				"pk": S("p"), "sk": S(fmt.Sprintf("s%02d", i)), "g": S("g"),
				"v": S(blob), "n": N("12.5"), "b": B([]byte("0123456789")),
			}})
			must(t, err)
		}
		total := types.ReturnConsumedCapacityTotal
		sk := func(it Item) string { return it["sk"].(*types.AttributeValueMemberS).Value }
		checkPage := func(what string, count, scanned int32, items []Item, lek Item, cc *types.ConsumedCapacity, wantUnits float64, wantLast string) {
			t.Helper()
			if scanned != 11 || count != int32(len(items)) && items != nil {
				t.Fatalf("%s: Count %d, ScannedCount %d, %d items; want ScannedCount 11", what, count, scanned, len(items))
			}
			if got := sk(lek); got != wantLast {
				t.Fatalf("%s: LastEvaluatedKey %v, want sk %s", what, lek, wantLast)
			}
			if cc == nil {
				t.Fatalf("%s: no ConsumedCapacity", what)
			}
			if got := aws.ToFloat64(cc.CapacityUnits); got != wantUnits {
				t.Fatalf("%s: %v capacity units, want %v", what, got, wantUnits)
			}
		}

		q := &dynamodb.QueryInput{
			TableName: &name, KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("p")},
			ReturnConsumedCapacity:    total,
		}
		var pages [][]string
		for {
			out, err := c.Query(ctx, q)
			must(t, err)
			var got []string
			for _, it := range out.Items {
				got = append(got, sk(it))
				if v, ok := it["v"].(*types.AttributeValueMemberS); !ok || v.Value != blob {
					t.Fatalf("Query: item %s came back without its 97 KB attribute", sk(it))
				}
			}
			pages = append(pages, got)
			if out.LastEvaluatedKey == nil {
				break
			}
			checkPage(fmt.Sprintf("Query page %d", len(pages)), out.Count, out.ScannedCount, out.Items, out.LastEvaluatedKey, out.ConsumedCapacity, 131, got[len(got)-1])
			q.ExclusiveStartKey = out.LastEvaluatedKey
		}
		if len(pages) != 3 || len(pages[0]) != 11 || len(pages[1]) != 11 || len(pages[2]) != 8 || pages[1][0] != "s11" || pages[2][7] != "s29" {
			t.Fatalf("Query pages %v, want 11, 11 and 8 items in sk order", pages)
		}

		out, err := c.Query(ctx, &dynamodb.QueryInput{
			TableName: &name, KeyConditionExpression: aws.String("pk = :p"), ConsistentRead: aws.Bool(true),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("p")}, ReturnConsumedCapacity: total,
		})
		must(t, err)
		checkPage("consistent Query", out.Count, out.ScannedCount, out.Items, out.LastEvaluatedKey, out.ConsumedCapacity, 262, "s10")

		out, err = c.Query(ctx, &dynamodb.QueryInput{
			TableName: &name, KeyConditionExpression: aws.String("pk = :p"), FilterExpression: aws.String("n = :n"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("p"), ":n": N("13")}, ReturnConsumedCapacity: total,
		})
		must(t, err)
		if out.Count != 0 || len(out.Items) != 0 {
			t.Fatalf("Query with a filter matching nothing: Count %d, %d items", out.Count, len(out.Items))
		}
		checkPage("Query with a filter", out.Count, out.ScannedCount, out.Items, out.LastEvaluatedKey, out.ConsumedCapacity, 131, "s10")

		out, err = c.Query(ctx, &dynamodb.QueryInput{
			TableName: &name, KeyConditionExpression: aws.String("pk = :p"), Select: types.SelectCount,
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": S("p")}, ReturnConsumedCapacity: total,
		})
		must(t, err)
		if out.Count != 11 || out.Items != nil {
			t.Fatalf("Query Select COUNT: Count %d, %d items", out.Count, len(out.Items))
		}
		checkPage("Query Select COUNT", out.Count, out.ScannedCount, nil, out.LastEvaluatedKey, out.ConsumedCapacity, 131, "s10")

		out, err = c.Query(ctx, &dynamodb.QueryInput{
			TableName: &name, IndexName: aws.String("byG"), KeyConditionExpression: aws.String("g = :g"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":g": S("g")}, ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		})
		must(t, err)
		if len(out.Items) != 11 || len(out.LastEvaluatedKey) != 3 || sk(out.LastEvaluatedKey) != "s10" {
			t.Fatalf("Query on the GSI: %d items, LastEvaluatedKey %v; want 11 items, the key of s10 with g", len(out.Items), out.LastEvaluatedKey)
		}
		if out.ConsumedCapacity == nil {
			t.Fatalf("Query on the GSI: no ConsumedCapacity")
		}
		if got := aws.ToFloat64(out.ConsumedCapacity.GlobalSecondaryIndexes["byG"].CapacityUnits); got != 131 {
			t.Fatalf("Query on the GSI: %v capacity units of byG, want 131", got)
		}

		sc, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: &name, ReturnConsumedCapacity: total})
		must(t, err)
		checkPage("Scan", sc.Count, sc.ScannedCount, sc.Items, sc.LastEvaluatedKey, sc.ConsumedCapacity, 131, "s10")
	})
}
