package e2e

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/jackc/pgx/v5"

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
			// A batch or a transaction that would overflow it writes nothing:
			// the batch is refused whole, the transaction is cancelled with
			// the service's reason on the member that overflows.
			next := Item{"pk": S("full"), "sk": S("next"), "lsk": S("l"), "v": S(big)}
			elsewhere := Item{"pk": S("other"), "sk": S("b"), "lsk": S("l")}
			_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
				{PutRequest: &types.PutRequest{Item: elsewhere}}, {PutRequest: &types.PutRequest{Item: next}}}}})
			if !errors.As(err, &lim) {
				t.Errorf("BatchWriteItem over the limit: %v, want ItemCollectionSizeLimitExceededException", err)
			}
			_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String(table), Item: elsewhere}},
				{Put: &types.Put{TableName: aws.String(table), Item: next}}}})
			var canceled *types.TransactionCanceledException
			if !errors.As(err, &canceled) {
				t.Fatalf("TransactWriteItems over the limit: %v, want TransactionCanceledException", err)
			}
			var codes []string
			for _, r := range canceled.CancellationReasons {
				codes = append(codes, aws.ToString(r.Code)+": "+aws.ToString(r.Message))
			}
			if want := "None: |ItemCollectionSizeLimitExceeded: Collection size exceeded."; strings.Join(codes, "|") != want {
				t.Errorf("cancellation reasons %q, want %q", strings.Join(codes, "|"), want)
			}
			for _, k := range []Item{{"pk": S("full"), "sk": S("next")}, {"pk": S("other"), "sk": S("b")}} {
				if got := get(t, c, table, k); got != nil {
					t.Errorf("a refused batch or transaction wrote %v", got)
				}
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

// TestItemCollectionWriteReadsNoPartition shows that a write to a table
// with a local index no longer reads its partition (the API once summed
// the collection's items before every write): a row that cannot be read
// (not an item) is put into the partition behind the server's back, after
// the collection's first write sized it, and writes to the partition still
// succeed, with their metrics; a Query of the partition, which reads it,
// fails.
func TestItemCollectionWriteReadsNoPartition(t *testing.T) {
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
			s := harness.StartDB(t, backend, db)
			c := s.Client()
			ctx := harness.Ctx(t)
			table := colCreateLSITable(t, c)
			put(t, c, table, Item{"pk": S("p"), "sk": S("a"), "lsk": S("x")}) // sizes the collection
			colPoison(t, s, table, "p", "zz")

			out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table),
				Item:                        Item{"pk": S("p"), "sk": S("b"), "lsk": S("y")},
				ReturnItemCollectionMetrics: types.ReturnItemCollectionMetricsSize})
			if err != nil {
				t.Fatalf("PutItem into the partition: %v", err)
			}
			if out.ItemCollectionMetrics == nil {
				t.Errorf("no ItemCollectionMetrics")
			}
			if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table),
				Key: Item{"pk": S("p"), "sk": S("a")}, UpdateExpression: aws.String("SET v = :v"),
				ExpressionAttributeValues: Item{":v": S("w")}}); err != nil {
				t.Errorf("UpdateItem in the partition: %v", err)
			}
			if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table),
				Key: Item{"pk": S("p"), "sk": S("b")}}); err != nil {
				t.Errorf("DeleteItem in the partition: %v", err)
			}
			_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
				{PutRequest: &types.PutRequest{Item: Item{"pk": S("p"), "sk": S("c"), "lsk": S("z")}}}}}})
			if err != nil {
				t.Errorf("BatchWriteItem into the partition: %v", err)
			}
			// The row is there, and unreadable: reading the partition fails.
			if _, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"),
				ExpressionAttributeValues: Item{":p": S("p")}}); err == nil {
				t.Errorf("Query of the partition read the row that is not an item")
			}
		})
	}
}

// colPoison inserts into the data table of table, in partition pk, a row
// with sort key sk whose item is not an item (an attribute of no type):
// any read of it fails.
func colPoison(t *testing.T, s *harness.Server, table, pk, sk string) {
	t.Helper()
	ctx := harness.Ctx(t)
	row := `{"pk":{"S":"` + pk + `"},"sk":{"S":"` + sk + `"},"bad":{"Q":"?"}}`
	switch s.Backend {
	case "postgres":
		conn, err := pgx.Connect(ctx, s.DB)
		if err != nil {
			t.Fatalf("connect to %s: %v", s.DB, err)
		}
		defer conn.Close(ctx)
		var id int64
		if err := conn.QueryRow(ctx, `SELECT id FROM dynamopg.tables WHERE name = $1`, table).Scan(&id); err != nil {
			t.Fatal(err)
		}
		_, err = conn.Exec(ctx, fmt.Sprintf(`INSERT INTO dynamopg_data.t_%d (hk, pk, sk, item, size) VALUES (0, $1, $2, $3, 10)`, id), pk, sk, row)
		if err != nil {
			t.Fatal(err)
		}
	default:
		db, err := sql.Open("sqlite", "file:"+strings.TrimPrefix(s.DB, "sqlite:")+"?_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var id int64
		if err := db.QueryRowContext(ctx, `SELECT id FROM tables WHERE name = ?`, table).Scan(&id); err != nil {
			t.Fatal(err)
		}
		_, err = db.ExecContext(ctx, fmt.Sprintf(`INSERT INTO t_%d (hk, pk, sk, item, size) VALUES (0, ?, ?, ?, 10)`, id), []byte(pk), []byte(sk), []byte(row))
		if err != nil {
			t.Fatal(err)
		}
	}
}
