package e2e

// A write whose outcome dynamopg cannot know (issue 20, item 1): its
// statement or COMMIT reached PostgreSQL and the connection died before
// the answer came. Such a write must not be answered 503
// ServiceUnavailable, which says nothing was applied and that the request
// is safe to send again: 3 of 6 immediate stops under 16 ADD clients
// applied 2 ADDs and 1 transfer twice that way. It is the service's 500
// InternalServerError, whose outcome is unknown (docs/operations.md).

import (
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

func TestWriteOutcomeUnknownIsNot503(t *testing.T) {
	t.Parallel()
	proxy, db := newCutProxy(t, pgtest.URL(t))
	s := harness.StartDB(t, "postgres", db, "--ttl-interval", "0")
	c := s.Client()
	ctx := harness.Ctx(t)
	table := createHashTable(t, c, "outcome")
	put(t, c, table, Item{"pk": S("warm")})

	writes := map[string]func(key string) error{
		"PutItem": func(key string) error {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S(key)}})
			return err
		},
		"UpdateItem": func(key string) error {
			_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S(key)},
				UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: Item{":one": N("1")}})
			return err
		},
		"TransactWriteItems": func(key string) error {
			_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(table), Item: Item{"pk": S(key)}}},
				{Put: &types.Put{TableName: aws.String(table), Item: Item{"pk": S(key + "-2")}}},
			}})
			return err
		},
		"BatchWriteItem": func(key string) error {
			_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
				table: {{PutRequest: &types.PutRequest{Item: Item{"pk": S(key)}}}}}})
			return err
		},
		"ExecuteStatement": func(key string) error {
			_, err := c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{
				Statement: aws.String(fmt.Sprintf(`INSERT INTO "%s" VALUE {'pk': '%s'}`, table, key))})
			return err
		},
	}
	for op, write := range writes {
		hits := 0
		for i := 0; i < 20 && hits < 3; i++ {
			key := fmt.Sprintf("%s-%d", op, i)
			cuts := proxy.cuts.Load()
			proxy.arm()
			err := write(key)
			if proxy.cuts.Load() == cuts {
				proxy.armed.Store(false)
				continue // nothing cut: the write was answered whole
			}
			applied := waitGet(t, c, table, key) != nil
			code := apiCode(err)
			switch {
			case applied && (code == "ServiceUnavailable" || code == "ThrottlingException"):
				t.Errorf("%s: the write was committed, and answered %s (nothing applied, safe to retry)", op, code)
			case applied && code != "" && code != "InternalServerError":
				t.Errorf("%s: the write was committed, and answered %s, want InternalServerError (outcome unknown)", op, code)
			}
			if applied && code != "" {
				hits++ // the cut lost this write's committed answer
			}
		}
		if hits == 0 {
			t.Errorf("%s: no cut hit a committed write in 20 tries: the test did not test", op)
		}
	}
	if t.Failed() {
		t.Logf("dynamopg logs:\n%s", s.Logs())
	}
	proxy.mu.Lock()
	t.Logf("responses cut: %d (command tags %v)", proxy.cuts.Load(), proxy.tags)
	proxy.mu.Unlock()
}

// waitGet reads an item once the server serves again after a cut.
func waitGet(t *testing.T, c *dynamodb.Client, table, key string) Item {
	t.Helper()
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var out *dynamodb.GetItemOutput
		out, err = c.GetItem(harness.Ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S(key)}, ConsistentRead: aws.Bool(true)})
		if err == nil {
			return out.Item
		}
	}
	t.Fatalf("GetItem %s after the cut: %v", key, err)
	return nil
}
