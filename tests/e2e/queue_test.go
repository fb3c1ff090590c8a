package e2e

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// qCreateAsyncTable creates a table with a hash+range GSI on (g, r).
func qCreateAsyncTable(t *testing.T, c *dynamodb.Client) string {
	t.Helper()
	name := harness.TableName("queue")
	_, err := c.CreateTable(harness.Ctx(t), &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("r"), AttributeType: types.ScalarAttributeTypeN},
		},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("byG"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("r"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	return name
}

// qScanAll returns every item of a table or index, keyed by pk.
func qScanAll(t *testing.T, c *dynamodb.Client, table string, index *string) map[string]Item {
	t.Helper()
	out := map[string]Item{}
	var start Item
	for {
		res, err := c.Scan(harness.Ctx(t), &dynamodb.ScanInput{TableName: aws.String(table), IndexName: index, ExclusiveStartKey: start})
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		for _, it := range res.Items {
			pk := it["pk"].(*types.AttributeValueMemberS).Value
			if _, dup := out[pk]; dup {
				out[pk+"#twice"] = it
			}
			out[pk] = it
		}
		if res.LastEvaluatedKey == nil {
			return out
		}
		start = res.LastEvaluatedKey
	}
}

// qCompare counts how the index differs from what the table says it should hold.
func qCompare(table, index map[string]Item) (missing, extra, stale int) {
	for pk, it := range table {
		_, hasG := it["g"]
		_, hasR := it["r"]
		ix, ok := index[pk]
		switch {
		case hasG && hasR && !ok:
			missing++
		case hasG && hasR && qCanon(ix) != qCanon(it):
			stale++
		case !(hasG && hasR) && ok:
			extra++
		}
	}
	for pk := range index {
		if _, ok := table[pk]; !ok {
			extra++
		}
	}
	return
}

// qCanon renders an item of S and N attributes canonically for comparison.
func qCanon(it Item) string {
	keys := make([]string, 0, len(it))
	for k := range it {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := ""
	for _, k := range keys {
		switch v := it[k].(type) {
		case *types.AttributeValueMemberS:
			out += k + "=S:" + v.Value + ";"
		case *types.AttributeValueMemberN:
			out += k + "=N:" + v.Value + ";"
		default:
			out += k + "=?;"
		}
	}
	return out
}

// qWriters runs writers over n items through the clients until stop.
func qWriters(t *testing.T, clients []*dynamodb.Client, table string, n, perClient int) (failed int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for ci, c := range clients {
		for w := 0; w < perClient; w++ {
			wg.Add(1)
			go func(c *dynamodb.Client, seed int64) {
				defer wg.Done()
				rnd := rand.New(rand.NewSource(seed))
				ctx := context.Background()
				for i := 0; i < 60; i++ {
					pk := fmt.Sprintf("item%03d", rnd.Intn(n))
					var err error
					switch rnd.Intn(4) {
					case 0:
						_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{
							"pk": S(pk), "g": S(fmt.Sprintf("g%d", rnd.Intn(5))), "r": N(fmt.Sprint(rnd.Intn(100))), "v": N(fmt.Sprint(i))}})
					case 1:
						_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S(pk)},
							UpdateExpression:          aws.String("SET g = :g, r = :r"),
							ExpressionAttributeValues: Item{":g": S(fmt.Sprintf("g%d", rnd.Intn(5))), ":r": N(fmt.Sprint(rnd.Intn(100)))}})
					case 2:
						_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S(pk)},
							UpdateExpression: aws.String("REMOVE g")})
					case 3:
						_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S(pk)}})
					}
					if err != nil {
						mu.Lock()
						failed++
						mu.Unlock()
						t.Errorf("write: %v", err)
					}
				}
			}(c, int64(ci*100+w))
		}
	}
	wg.Wait()
	return failed
}

// qSettle scans until the index matches the table, or the deadline.
func qSettle(t *testing.T, c *dynamodb.Client, table string) (missing, extra, stale int) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		tbl := qScanAll(t, c, table, nil)
		idx := qScanAll(t, c, table, aws.String("byG"))
		missing, extra, stale = qCompare(tbl, idx)
		if missing+extra+stale == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestAsyncIndexConverges: with --index-propagation async, concurrent puts,
// key changes, key removals and deletes leave the GSI equal to the table.
func TestAsyncIndexConverges(t *testing.T) {
	t.Parallel()
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			var db string
			if backend == "postgres" {
				db = pgtest.URL(t)
			} else {
				db = "sqlite:" + t.TempDir() + "/q.db"
			}
			s := harness.StartDB(t, backend, db, "--index-propagation", "async")
			c := s.Client()
			table := qCreateAsyncTable(t, c)
			qWriters(t, []*dynamodb.Client{c}, table, 40, 6)
			missing, extra, stale := qSettle(t, c, table)
			if missing+extra+stale != 0 {
				t.Fatalf("index differs from table: %d missing, %d extra, %d stale", missing, extra, stale)
			}
		})
	}
}

// TestQueueTwoServerProcesses: two dynamopg processes on one PostgreSQL
// database write through both and drain one queue; the index converges.
func TestQueueTwoServerProcesses(t *testing.T) {
	t.Parallel()
	db := pgtest.URL(t)
	a := harness.StartDB(t, "postgres", db, "--index-propagation", "async")
	b := harness.StartDB(t, "postgres", db, "--index-propagation", "async")
	ca, cb := a.Client(), b.Client()
	table := qCreateAsyncTable(t, ca)
	if failed := qWriters(t, []*dynamodb.Client{ca, cb}, table, 40, 4); failed != 0 {
		t.Fatalf("%d writes failed", failed)
	}
	missing, extra, stale := qSettle(t, cb, table)
	if missing+extra+stale != 0 {
		t.Fatalf("index differs from table: %d missing, %d extra, %d stale", missing, extra, stale)
	}
	// The index answers Query in index order on either process.
	res, err := ca.Query(harness.Ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("byG"),
		KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: Item{":g": S("g1")}})
	if err != nil {
		t.Fatal(err)
	}
	rs := make([]int, 0, len(res.Items))
	for _, it := range res.Items {
		var r int
		fmt.Sscan(it["r"].(*types.AttributeValueMemberN).Value, &r)
		rs = append(rs, r)
	}
	if !sort.IntsAreSorted(rs) {
		t.Fatalf("index Query not in sort key order: %v", rs)
	}
}
