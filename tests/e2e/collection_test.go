package e2e

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// colCreateLSITable creates a table keyed (pk, sk) with a local index on lsk.
func colCreateLSITable(t *testing.T, c *dynamodb.Client) string {
	t.Helper()
	name := harness.TableName("coll")
	_, err := c.CreateTable(harness.Ctx(t), &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("lsk"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
			IndexName: aws.String("byLsk"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("lsk"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	return name
}

func TestItemCollectionMetrics(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := colCreateLSITable(t, c)
		out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table),
			Item:                        Item{"pk": S("p"), "sk": S("a"), "lsk": S("x")},
			ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
		if err != nil {
			t.Fatal(err)
		}
		m := out.ItemCollectionMetrics
		if m == nil {
			t.Fatal("no ItemCollectionMetrics on a table with a local index")
		}
		if got := m.ItemCollectionKey["pk"].(*types.AttributeValueMemberS).Value; got != "p" || len(m.ItemCollectionKey) != 1 {
			t.Errorf("ItemCollectionKey = %v, want only pk=p", m.ItemCollectionKey)
		}
		if len(m.SizeEstimateRangeGB) != 2 || m.SizeEstimateRangeGB[0] != 0 || m.SizeEstimateRangeGB[1] != 1 {
			t.Errorf("SizeEstimateRangeGB = %v, want [0 1]", m.SizeEstimateRangeGB)
		}
		// Without SIZE, or on a table without local indexes, there are none.
		out, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("p"), "sk": S("b")}})
		if err != nil || out.ItemCollectionMetrics != nil {
			t.Errorf("metrics without SIZE: %v %v", out.ItemCollectionMetrics, err)
		}
		hashOnly := createHashTable(t, c, "collh")
		out, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(hashOnly), Item: Item{"pk": S("p")},
			ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
		if err != nil || out.ItemCollectionMetrics != nil {
			t.Errorf("metrics on a table without LSI: %v %v", out.ItemCollectionMetrics, err)
		}
	})
}

// TestItemCollectionLimit lowers the limit (the service's is 10 GB) so that
// one partition fills up: the write that would pass it is refused with the
// service's error and changes nothing; other partitions still take writes.
func TestItemCollectionLimit(t *testing.T) {
	t.Parallel()
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			var db string
			if backend == "postgres" {
				db = pgtest.URL(t)
			} else {
				db = "sqlite:" + t.TempDir() + "/c.db"
			}
			s := harness.StartDB(t, backend, db, "--item-collection-limit", "5000")
			c := s.Client()
			ctx := harness.Ctx(t)
			table := colCreateLSITable(t, c)
			big := strings.Repeat("v", 900)
			var refused error
			written := 0
			for i := 0; i < 20 && refused == nil; i++ {
				_, refused = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table),
					Item: Item{"pk": S("full"), "sk": S(fmt.Sprintf("s%02d", i)), "lsk": S("l"), "v": S(big)}})
				if refused == nil {
					written++
				}
			}
			var lim *types.ItemCollectionSizeLimitExceededException
			if !errors.As(refused, &lim) {
				t.Fatalf("after %d puts: error %v, want ItemCollectionSizeLimitExceededException", written, refused)
			}
			if lim.ErrorMessage() != "Collection size exceeded." {
				t.Errorf("message %q", lim.ErrorMessage())
			}
			if written < 2 {
				t.Errorf("only %d puts fit in 5000 bytes", written)
			}
			got := get(t, c, table, Item{"pk": S("full"), "sk": S(fmt.Sprintf("s%02d", written))})
			if got != nil {
				t.Errorf("the refused put was written: %v", got)
			}
			// Shrinking an item in a full collection is allowed; other partitions are unaffected.
			if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table),
				Key: Item{"pk": S("full"), "sk": S("s00")}, UpdateExpression: aws.String("REMOVE v")}); err != nil {
				t.Errorf("shrinking update refused: %v", err)
			}
			put(t, c, table, Item{"pk": S("other"), "sk": S("a"), "lsk": S("l"), "v": S(big)})
		})
	}
}
