package api_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/dynamopg/dynamopg/server/api"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore"
)

var (
	fuzzOnce sync.Once
	fuzzAPI  *api.API
)

// fuzzTarget is one API over an in-memory SQLite store holding a table
// with a range key, an LSI and a GSI, so requests get past the catalog.
func fuzzTarget(t testing.TB) *api.API {
	fuzzOnce.Do(func() {
		ctx := context.Background()
		st, err := sqlitestore.Open(ctx, sqlitestore.MemoryDSN, sqlitestore.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), QueueWorkers: 1})
		if err != nil {
			t.Fatal(err)
		}
		fuzzAPI = api.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)), api.Options{})
		_, err = fuzzAPI.Call(ctx, "CreateTable", &api.Request{Region: "us-east-1", Body: []byte(`{"TableName":"fuzz","BillingMode":"PAY_PER_REQUEST",
			"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"l","AttributeType":"S"},{"AttributeName":"g","AttributeType":"B"}],
			"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
			"LocalSecondaryIndexes":[{"IndexName":"lsi","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"l","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],
			"GlobalSecondaryIndexes":[{"IndexName":"gsi","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["a"]}}]}`)})
		if err != nil {
			t.Fatal(err)
		}
	})
	return fuzzAPI
}

var fuzzOps = []string{"PutItem", "GetItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem",
	"BatchWriteItem", "TransactWriteItems", "TransactGetItems", "CreateTable", "UpdateTable", "DescribeTable",
	"ListTables", "ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction", "TagResource", "UpdateTimeToLive"}

// FuzzCall sends arbitrary bodies to every operation: the answer is a
// result or a client error (4xx), never a panic or a server fault.
func FuzzCall(f *testing.F) {
	seeds := []string{
		`{"TableName":"fuzz","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"l":{"S":"x"},"a":{"L":[{"M":{"b":{"NS":["1","2"]}}}]}}}`,
		`{"TableName":"fuzz","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ProjectionExpression":"a[0].b, #c","ExpressionAttributeNames":{"#c":"c"}}`,
		`{"TableName":"fuzz","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"UpdateExpression":"SET a = list_append(a, :l) REMOVE b ADD n :one","ConditionExpression":"attribute_exists(pk) AND size(a) < :ten","ExpressionAttributeValues":{":l":{"L":[]},":one":{"N":"1"},":ten":{"N":"10"}}}`,
		`{"TableName":"fuzz","KeyConditionExpression":"pk = :p AND sk BETWEEN :a AND :b","FilterExpression":"contains(a, :x) OR NOT begins_with(l, :y)","ExpressionAttributeValues":{":p":{"S":"a"},":a":{"N":"0"},":b":{"N":"9"},":x":{"S":"q"},":y":{"S":"z"}},"Limit":2,"ScanIndexForward":false}`,
		`{"TableName":"fuzz","IndexName":"gsi","Segment":1,"TotalSegments":3,"Select":"COUNT"}`,
		`{"RequestItems":{"fuzz":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}}],"AttributesToGet":["pk"]}}}`,
		`{"RequestItems":{"fuzz":[{"PutRequest":{"Item":{"pk":{"S":"b"},"sk":{"N":"2"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"a"},"sk":{"N":"1"}}}}]}}`,
		`{"TransactItems":[{"ConditionCheck":{"TableName":"fuzz","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ConditionExpression":"attribute_not_exists(pk)"}},{"Update":{"TableName":"fuzz","Key":{"pk":{"S":"b"},"sk":{"N":"2"}},"UpdateExpression":"SET x = :v","ExpressionAttributeValues":{":v":{"BS":["AQ=="]}}}}]}`,
		`{"Statement":"SELECT * FROM \"fuzz\" WHERE pk = ? AND sk > 1","Parameters":[{"S":"a"}]}`,
		`{"TableName":"fuzz","Expected":{"a":{"ComparisonOperator":"BETWEEN","AttributeValueList":[{"N":"1"},{"N":"2"}]}},"Item":{"pk":{"S":"c"},"sk":{"N":"3"}}}`,
		`{"TableName":"fuzz","GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"g2","KeySchema":[{"AttributeName":"l","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}}]}`,
		`{}`, `[]`, `null`, `{"TableName":5}`, `{"TableName":"fuzz","Item":{"pk":{"S":""}}}`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s))
	}
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		a := fuzzTarget(t)
		name := fuzzOps[int(op)%len(fuzzOps)]
		_, err := a.Call(context.Background(), name, &api.Request{Region: "us-east-1", Body: body})
		if err == nil {
			return
		}
		var apiErr *api.Error
		if !errors.As(err, &apiErr) {
			t.Fatalf("%s %q: server fault: %v", name, body, err)
		}
		if apiErr.Status >= 500 {
			t.Fatalf("%s %q: %d %s", name, body, apiErr.Status, apiErr.Error())
		}
	})
}
