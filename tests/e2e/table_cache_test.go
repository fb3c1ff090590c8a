package e2e

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// TestTableCacheTwoServers: two server processes on one PostgreSQL
// database, each keeping table descriptions in memory. A change made
// through one is honoured by the other's very next request, whether or not
// the change's notice has reached it: an index added (its key type is
// enforced), a table deleted, a table created again with another key.
func TestTableCacheTwoServers(t *testing.T) {
	t.Parallel()
	tableCacheTwoServers(t, "postgres", pgtest.URL(t))
}

// TestTableCacheTwoServersSQLite is TestTableCacheTwoServers on one SQLite
// file, whose servers hear nothing of each other's changes: the version
// check of every write and the failed reads of gone storage keep them
// exact.
func TestTableCacheTwoServersSQLite(t *testing.T) {
	t.Parallel()
	tableCacheTwoServers(t, "sqlite", "sqlite:"+filepath.Join(t.TempDir(), "shared.db"))
}

func tableCacheTwoServers(t *testing.T, backend, db string) {
	a := harness.StartDB(t, backend, db).Client()
	b := harness.StartDB(t, backend, db).Client()
	ctx := harness.Ctx(t)
	name := "cache_two"

	_, err := a.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S"),
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	must(t, err)
	waitActive(t, a, name)
	// Warm a's cache.
	for range 3 {
		_, err = a.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: Item{"pk": S("k1"), "g": N("1")}})
		must(t, err)
	}

	_, err = b.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("g", "N"),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName:  aws.String("byG"),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}}},
	})
	must(t, err)
	_, err = a.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: Item{"pk": S("k2"), "g": S("not a number")}})
	expectValidation(t, err, "One or more parameter values were invalid: Type mismatch for Index Key g Expected: N Actual: S IndexName: byG")
	got, err := a.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: Item{"pk": S("k2")}, ConsistentRead: aws.Bool(true)})
	must(t, err)
	if got.Item != nil {
		t.Fatalf("refused put wrote %v", got.Item)
	}

	waitIndexesActive(t, b, name)
	q, err := a.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: Item{":g": N("1")}})
	must(t, err)
	if q.Count != 1 {
		t.Fatalf("Query on the index added through the other server: %d items, want 1", q.Count)
	}

	_, err = b.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	must(t, err)
	_, err = a.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: Item{"pk": S("k1")}})
	expectNotFound(t, err)

	for {
		_, err = b.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(name),
			AttributeDefinitions: attrDefs("id", "N"),
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
			BillingMode:          types.BillingModePayPerRequest,
		})
		var inUse *types.ResourceInUseException
		if err == nil || !errors.As(err, &inUse) {
			break // the name is free once the first table is gone
		}
		time.Sleep(20 * time.Millisecond)
	}
	must(t, err)
	waitActive(t, b, name)
	_, err = a.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: Item{"id": N("7"), "v": S("new")}})
	must(t, err)
	got, err = a.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: Item{"id": N("7")}})
	must(t, err)
	if v, ok := got.Item["v"].(*types.AttributeValueMemberS); !ok || v.Value != "new" {
		t.Fatalf("item in the table created again = %v", got.Item)
	}
}
