package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// opFunc is one operation of a workload, issued by client number worker.
type opFunc func(ctx context.Context, worker int) error

// Table shapes. Every table has pk (S, hash) and sk (S, range).
const (
	shapePlain = "plain" // no index; preloaded with get/update keys and query partitions
	shapeGSI1  = "gsi1"  // GSI byG (g, sk), projection ALL; preloaded with 10 items per g
	shapeGSI2  = "gsi2"  // GSIs byG (g, sk) and byG2 (g2, sk), projection ALL; empty
	// shapeLSI has an LSI byL (pk, g), projection ALL, and is preloaded
	// with lsiParts partitions (item collections) of lsiPartSize items.
	shapeLSI    = "lsi"
	shapeStream = "stream" // a stream with NEW_AND_OLD_IMAGES; empty
)

// Preloaded data.
const (
	getKeys       = 1000 // items k0000…k0999 (sk "s") on the plain table
	queryParts    = 200  // partitions q000…q199 of 10 items (sk s00…s09)
	queryPartSize = 10
	gsiGroups     = 200 // GSI key values g000…g199 of 10 items each
	lsiParts      = 20  // partitions c00…c19 of the LSI table, items s000…s099
	lsiPartSize   = 100
)

// workload is one row operation, in its DynamoDB form (for dynamopg and
// the peers) and in its floor forms (pgx and SQLite).
type workload struct {
	name  string
	title string
	shape string
	async bool // dynamopg with --index-propagation async
	items int  // items written or read by one op
	// dynamo returns the operation against table on a DynamoDB endpoint.
	dynamo func(c *dynamodb.Client, table string) opFunc
	// raw is the operation as the load generator sends it (the figure of
	// the DynamoDB targets); dynamo is the same through the SDK, run as a
	// check of the responses.
	raw func(table string) rawOp
	// pgbench is the floor's script for PostgreSQL (pgbench.go); sqlite
	// returns the SQLite floor's operation.
	pgbench string
	sqlite  func(f *sqliteFloor) opFunc
}

var workloads = []*workload{
	{name: "put", title: "PutItem (1 KB)", shape: shapePlain, items: 1,
		raw: func(t string) rawOp { return rawPut(t, false) }, pgbench: pgbPut,
		dynamo: func(c *dynamodb.Client, t string) opFunc {
			return func(ctx context.Context, _ int) error {
				_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: &t, Item: dynItem(newKey(), "s", "g", "g")})
				return err
			}
		},
		sqlite: func(f *sqliteFloor) opFunc { return f.put },
	},
	{name: "get", title: "GetItem", shape: shapePlain, items: 1,
		raw: rawGet, pgbench: pgbGet,
		dynamo: func(c *dynamodb.Client, t string) opFunc {
			return func(ctx context.Context, _ int) error {
				out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: &t, Key: dynKey(getKey(), "s")})
				if err == nil && out.Item == nil {
					err = fmt.Errorf("item not found")
				}
				return err
			}
		},
		sqlite: func(f *sqliteFloor) opFunc { return f.get },
	},
	{name: "update", title: "UpdateItem SET", shape: shapePlain, items: 1,
		raw: rawUpdate, pgbench: pgbUpdate,
		dynamo: func(c *dynamodb.Client, t string) opFunc {
			return func(ctx context.Context, _ int) error {
				_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &t, Key: dynKey(getKey(), "s"),
					UpdateExpression:          aws.String("SET n = :n"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: strconv.Itoa(rand.IntN(1e6))}}})
				return err
			}
		},
		sqlite: func(f *sqliteFloor) opFunc { return f.update },
	},
	{name: "condput", title: "PutItem if attribute_not_exists", shape: shapePlain, items: 1,
		raw: func(t string) rawOp { return rawPut(t, true) }, pgbench: pgbCondPut,
		dynamo: func(c *dynamodb.Client, t string) opFunc {
			return func(ctx context.Context, _ int) error {
				_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: &t, Item: dynItem(newKey(), "s", "g", "g"),
					ConditionExpression: aws.String("attribute_not_exists(pk)")})
				return err
			}
		},
		sqlite: func(f *sqliteFloor) opFunc { return f.condPut },
	},
	{name: "query", title: "Query 10 items, one partition", shape: shapePlain, items: queryPartSize,
		raw: rawQuery, pgbench: pgbQuery,
		dynamo: func(c *dynamodb.Client, t string) opFunc {
			return func(ctx context.Context, _ int) error {
				out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: &t, KeyConditionExpression: aws.String("pk = :p"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: queryKey()}}})
				if err == nil && out.Count != queryPartSize {
					err = fmt.Errorf("query returned %d items", out.Count)
				}
				return err
			}
		},
		sqlite: func(f *sqliteFloor) opFunc { return f.query },
	},
	{name: "query-gsi", title: "Query on a GSI (10 items)", shape: shapeGSI1, items: 10,
		raw: rawQueryGSI, pgbench: pgbQueryGSI,
		dynamo: func(c *dynamodb.Client, t string) opFunc {
			return func(ctx context.Context, _ int) error {
				out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: &t, IndexName: aws.String("byG"),
					KeyConditionExpression:    aws.String("g = :g"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: gsiKey()}}})
				if err == nil && out.Count != 10 {
					err = fmt.Errorf("query returned %d items", out.Count)
				}
				return err
			}
		},
		sqlite: func(f *sqliteFloor) opFunc { return f.queryGSI },
	},
	{name: "batch25", title: "BatchWriteItem of 25", shape: shapePlain, items: 25,
		raw: func(t string) rawOp { return rawBatch(t, 25) }, pgbench: pgbBatch(25),
		dynamo: func(c *dynamodb.Client, t string) opFunc {
			return func(ctx context.Context, _ int) error {
				reqs := make([]types.WriteRequest, 25)
				for i := range reqs {
					reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: dynItem(newKey(), "s", "g", "g")}}
				}
				return batchWrite(ctx, c, t, reqs)
			}
		},
		sqlite: func(f *sqliteFloor) opFunc { return f.batch(25) },
	},
	{name: "transact4", title: "TransactWriteItems of 4", shape: shapePlain, items: 4,
		raw: func(t string) rawOp { return rawTransact(t, 4) }, pgbench: pgbBatch(4),
		dynamo: func(c *dynamodb.Client, t string) opFunc {
			return func(ctx context.Context, _ int) error {
				items := make([]types.TransactWriteItem, 4)
				for i := range items {
					items[i] = types.TransactWriteItem{Put: &types.Put{TableName: &t, Item: dynItem(newKey(), "s", "g", "g")}}
				}
				_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
				return err
			}
		},
		sqlite: func(f *sqliteFloor) opFunc { return f.batch(4) },
	},
	{name: "put-lsi", title: "PutItem, LSI (replaces, 100-item collections)", shape: shapeLSI, items: 1,
		raw: rawPutLSI,
		dynamo: func(c *dynamodb.Client, t string) opFunc {
			return func(ctx context.Context, _ int) error {
				pk, sk := lsiKey()
				_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: &t, Item: dynItem(pk, sk, gsiKey(), "g")})
				return err
			}
		},
	},
	{name: "put-stream", title: "PutItem, stream enabled", shape: shapeStream, items: 1,
		raw: func(t string) rawOp { return rawPut(t, false) },
		dynamo: func(c *dynamodb.Client, t string) opFunc {
			return func(ctx context.Context, _ int) error {
				_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: &t, Item: dynItem(newKey(), "s", "g", "g")})
				return err
			}
		},
	},
	{name: "transactget4", title: "TransactGetItems of 4", shape: shapePlain, items: 4,
		raw: func(t string) rawOp { return rawTransactGet(t, 4) },
		dynamo: func(c *dynamodb.Client, t string) opFunc {
			return func(ctx context.Context, _ int) error {
				items := make([]types.TransactGetItem, 4)
				seen := map[string]bool{}
				for i := range items {
					k := getKey()
					for seen[k] {
						k = getKey()
					}
					seen[k] = true
					items[i] = types.TransactGetItem{Get: &types.Get{TableName: &t, Key: dynKey(k, "s")}}
				}
				out, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: items})
				if err == nil && len(out.Responses) != 4 {
					err = fmt.Errorf("TransactGetItems returned %d responses", len(out.Responses))
				}
				return err
			}
		},
	},
	{name: "batchget25", title: "BatchGetItem of 25", shape: shapePlain, items: 25,
		raw: func(t string) rawOp { return rawBatchGet(t, 25) },
		dynamo: func(c *dynamodb.Client, t string) opFunc {
			return func(ctx context.Context, _ int) error {
				keys := make([]map[string]types.AttributeValue, 25)
				first := rand.IntN(getKeys)
				for i := range keys {
					keys[i] = dynKey(fmt.Sprintf("k%04d", (first+i*(getKeys/len(keys)))%getKeys), "s")
				}
				out, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{t: {Keys: keys}}})
				if err == nil && (len(out.Responses[t]) != len(keys) || len(out.UnprocessedKeys) != 0) {
					err = fmt.Errorf("BatchGetItem returned %d items, %d tables unprocessed", len(out.Responses[t]), len(out.UnprocessedKeys))
				}
				return err
			}
		},
	},
	{name: "put-2gsi-sync", title: "PutItem, 2 GSIs (sync)", shape: shapeGSI2, items: 1,
		raw: rawPut2GSI, pgbench: pgbPut2GSI,
		dynamo: put2GSI,
		sqlite: func(f *sqliteFloor) opFunc { return f.put2GSI },
	},
	{name: "put-2gsi-async", title: "PutItem, 2 GSIs (async)", shape: shapeGSI2, async: true, items: 1,
		raw: rawPut2GSI, pgbench: pgbPut2GSI,
		dynamo: put2GSI,
		sqlite: func(f *sqliteFloor) opFunc { return f.put2GSI },
	},
}

func put2GSI(c *dynamodb.Client, t string) opFunc {
	return func(ctx context.Context, _ int) error {
		k := newKey()
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: &t, Item: dynItem(k, "s", gsiKey(), gsiKey())})
		return err
	}
}

func workloadNames() []string {
	var n []string
	for _, w := range workloads {
		n = append(n, w.name)
	}
	return n
}

func workloadByName(name string) *workload {
	for _, w := range workloads {
		if w.name == name {
			return w
		}
	}
	return nil
}

// Keys. New keys are unique within the run (every target gets fresh ones).
var keySeq atomic.Int64

func newKey() string   { return "n" + strconv.FormatInt(keySeq.Add(1), 10) }
func getKey() string   { return fmt.Sprintf("k%04d", rand.IntN(getKeys)) }
func queryKey() string { return fmt.Sprintf("q%03d", rand.IntN(queryParts)) }
func gsiKey() string   { return fmt.Sprintf("g%03d", rand.IntN(gsiGroups)) }

// lsiKey is the key of a preloaded item of the LSI table.
func lsiKey() (pk, sk string) {
	return fmt.Sprintf("c%02d", rand.IntN(lsiParts)), fmt.Sprintf("s%03d", rand.IntN(lsiPartSize))
}

// payload is the ~1 KB string attribute every written item carries.
var payload = func() string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 960)
	for i := range b {
		b[i] = letters[r.IntN(len(letters))]
	}
	return string(b)
}()

func dynKey(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: pk},
		"sk": &types.AttributeValueMemberS{Value: sk},
	}
}

func dynItem(pk, sk, g, g2 string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"pk":   &types.AttributeValueMemberS{Value: pk},
		"sk":   &types.AttributeValueMemberS{Value: sk},
		"g":    &types.AttributeValueMemberS{Value: g},
		"g2":   &types.AttributeValueMemberS{Value: g2},
		"n":    &types.AttributeValueMemberN{Value: "1"},
		"data": &types.AttributeValueMemberS{Value: payload},
	}
}

// jsonItem is dynItem in DynamoDB JSON, the form both stores keep.
func jsonItem(pk, sk, g, g2 string) string {
	return `{"pk":{"S":"` + pk + `"},"sk":{"S":"` + sk + `"},"g":{"S":"` + g + `"},"g2":{"S":"` + g2 +
		`"},"n":{"N":"1"},"data":{"S":"` + payload + `"}}`
}

// batchWrite sends reqs (at most 25), resending unprocessed items.
func batchWrite(ctx context.Context, c *dynamodb.Client, table string, reqs []types.WriteRequest) error {
	in := map[string][]types.WriteRequest{table: reqs}
	for tries := 0; len(in) > 0; tries++ {
		if tries == 20 {
			return fmt.Errorf("BatchWriteItem: items still unprocessed after %d tries", tries)
		}
		out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: in})
		if err != nil {
			return err
		}
		in = out.UnprocessedItems
	}
	return nil
}
