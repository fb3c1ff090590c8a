package e2e

// NUL characters (U+0000) in the strings of a request (issue 20, item 2).
// PostgreSQL's text cannot hold U+0000, so a NUL that reached SQL as text
// failed the statement (SQLSTATE 22021) and the client got a 500. Strings
// that name things (tables, ARNs, tokens, attribute names of a schema)
// are refused with the service's ValidationException before any
// statement; strings inside items are data and round-trip.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// nulProbe is one request carrying a NUL where it names something.
type nulProbe struct {
	name, op, body string
	streams        bool // a DynamoDB Streams operation
}

func nulProbes(table, streamArn string) []nulProbe {
	tableArn := "arn:aws:dynamodb:us-east-1:000000000000:table/" + table
	nul := `\u0000`
	return []nulProbe{
		{"PartiQL SELECT table", "ExecuteStatement", `{"Statement":"SELECT * FROM \"` + table + nul + `\""}`, false},
		{"PartiQL INSERT table", "ExecuteStatement", `{"Statement":"INSERT INTO \"` + table + nul + `\" VALUE {'pk':'a'}"}`, false},
		{"PartiQL UPDATE table", "ExecuteStatement", `{"Statement":"UPDATE \"` + table + nul + `\" SET v = 1 WHERE pk = 'a'"}`, false},
		{"PartiQL DELETE table", "ExecuteStatement", `{"Statement":"DELETE FROM \"` + table + nul + `\" WHERE pk = 'a'"}`, false},
		// BatchExecuteStatement answers each statement's error in its Responses.
		{"PartiQL batch table", "BatchExecuteStatement", `{"Statements":[{"Statement":"SELECT * FROM \"` + table + nul + `\" WHERE pk = 'a'"}]}`, false},
		{"PartiQL batch write table", "BatchExecuteStatement", `{"Statements":[{"Statement":"INSERT INTO \"` + table + nul + `\" VALUE {'pk':'a'}"}]}`, false},
		{"PartiQL transaction table", "ExecuteTransaction", `{"TransactStatements":[{"Statement":"INSERT INTO \"` + table + nul + `\" VALUE {'pk':'a'}"}]}`, false},
		{"PartiQL transaction token", "ExecuteTransaction", `{"ClientRequestToken":"tok` + nul + `","TransactStatements":[{"Statement":"INSERT INTO \"` + table + `\" VALUE {'pk':'nul-tx'}"}]}`, false},
		{"TransactWriteItems token", "TransactWriteItems", `{"ClientRequestToken":"tok` + nul + `","TransactItems":[{"Put":{"TableName":"` + table + `","Item":{"pk":{"S":"nul-twi"}}}}]}`, false},
		{"TransactWriteItems table", "TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"` + table + nul + `","Item":{"pk":{"S":"a"}}}}]}`, false},
		{"TransactGetItems table", "TransactGetItems", `{"TransactItems":[{"Get":{"TableName":"` + table + nul + `","Key":{"pk":{"S":"a"}}}}]}`, false},
		{"DescribeTable name", "DescribeTable", `{"TableName":"` + table + nul + `"}`, false},
		{"DescribeTable ARN", "DescribeTable", `{"TableName":"` + tableArn + nul + `"}`, false},
		{"GetItem ARN", "GetItem", `{"TableName":"` + tableArn + nul + `","Key":{"pk":{"S":"a"}}}`, false},
		{"DescribeContinuousBackups ARN", "DescribeContinuousBackups", `{"TableName":"` + tableArn + nul + `"}`, false},
		{"UpdateContinuousBackups ARN", "UpdateContinuousBackups", `{"TableName":"` + tableArn + nul + `","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true}}`, false},
		{"DescribeTimeToLive ARN", "DescribeTimeToLive", `{"TableName":"` + tableArn + nul + `"}`, false},
		{"ListTagsOfResource ARN", "ListTagsOfResource", `{"ResourceArn":"` + tableArn + nul + `"}`, false},
		{"TagResource ARN", "TagResource", `{"ResourceArn":"` + tableArn + nul + `","Tags":[{"Key":"k","Value":"v"}]}`, false},
		{"TagResource key", "TagResource", `{"ResourceArn":"` + tableArn + `","Tags":[{"Key":"k` + nul + `","Value":"v"}]}`, false},
		{"TagResource value", "TagResource", `{"ResourceArn":"` + tableArn + `","Tags":[{"Key":"k","Value":"v` + nul + `"}]}`, false},
		{"UntagResource key", "UntagResource", `{"ResourceArn":"` + tableArn + `","TagKeys":["k` + nul + `"]}`, false},
		{"ListTables start", "ListTables", `{"ExclusiveStartTableName":"` + table + nul + `"}`, false},
		{"BatchGetItem table", "BatchGetItem", `{"RequestItems":{"` + table + nul + `":{"Keys":[{"pk":{"S":"a"}}]}}}`, false},
		{"BatchWriteItem table", "BatchWriteItem", `{"RequestItems":{"` + table + nul + `":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}}]}}`, false},
		{"Query index", "Query", `{"TableName":"` + table + `","IndexName":"ix` + nul + `","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"a"}}}`, false},
		{"CreateTable tag", "CreateTable", `{"TableName":"` + harness.TableName("nul_ct") + `","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"Tags":[{"Key":"k` + nul + `","Value":"v"}]}`, false},
		{"DescribeStream ARN", "DescribeStream", `{"StreamArn":"` + streamArn + nul + `"}`, true},
		{"DescribeStream ARN table", "DescribeStream", `{"StreamArn":"` + strings.Replace(streamArn, "/stream/", nul+"/stream/", 1) + `"}`, true},
		{"GetShardIterator ARN", "GetShardIterator", `{"StreamArn":"` + streamArn + nul + `","ShardId":"shardId-00000000000000000000-00000000","ShardIteratorType":"TRIM_HORIZON"}`, true},
		{"GetShardIterator shard", "GetShardIterator", `{"StreamArn":"` + streamArn + `","ShardId":"shardId-` + nul + `","ShardIteratorType":"TRIM_HORIZON"}`, true},
		{"ListStreams table", "ListStreams", `{"TableName":"` + table + nul + `"}`, true},
		{"ListStreams start", "ListStreams", `{"ExclusiveStartStreamArn":"` + streamArn + nul + `"}`, true},
		{"GetRecords iterator", "GetRecords", `{"ShardIterator":"it` + nul + `"}`, true},
	}
}

func TestNULInNames(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := harness.TableName("nul")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(table),
			AttributeDefinitions: attrDefs("pk", "S"),
			KeySchema:            keySchema("pk"),
			BillingMode:          types.BillingModePayPerRequest,
			StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage},
		})
		must(t, err)
		desc := waitActive(t, c, table)
		for _, p := range nulProbes(table, aws.ToString(desc.LatestStreamArn)) {
			resp, body := rawCallTarget(t, s, p.op, p.streams, p.body)
			code, msg := rawError(body)
			if p.op == "BatchExecuteStatement" {
				var out struct {
					Responses []struct {
						Error struct{ Code, Message string }
					}
				}
				_ = json.Unmarshal(body, &out)
				if resp.StatusCode != 200 || len(out.Responses) != 1 || out.Responses[0].Error.Code != "ValidationError" {
					t.Errorf("%s: %d %s, want 200 with a ValidationError response", p.name, resp.StatusCode, body)
				}
				continue
			}
			if resp.StatusCode != 400 || code != "ValidationException" {
				t.Errorf("%s: %d %s: %s, want 400 ValidationException", p.name, resp.StatusCode, code, msg)
			}
		}
		// Nothing was written by the refused requests.
		for _, k := range []string{"nul-tx", "nul-twi"} {
			if it := get(t, c, table, Item{"pk": S(k)}); it != nil {
				t.Errorf("a refused request wrote %s", k)
			}
		}
		out, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: desc.TableArn})
		must(t, err)
		if len(out.Tags) != 0 {
			t.Errorf("a refused TagResource tagged the table: %v", out.Tags)
		}

		// Strings inside items are data: a NUL in a key, a value and an
		// attribute name round-trips, and a key condition finds it.
		item := Item{"pk": S("k\x00ey"), "a\x00b": S("v\x00al"), "l": L(S("\x00"))}
		put(t, c, table, item)
		assertItem(t, "item with NULs", get(t, c, table, Item{"pk": S("k\x00ey")}), item)
		if it := get(t, c, table, Item{"pk": S("k")}); it != nil {
			t.Errorf("key k\\x00ey read back under k")
		}
		rt := createRangeTable(t, c, "nul_range", "S")
		put(t, c, rt, Item{"pk": S("p"), "sk": S("a\x00b")})
		put(t, c, rt, Item{"pk": S("p"), "sk": S("a")})
		q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(rt),
			KeyConditionExpression:    aws.String("pk = :p AND begins_with(sk, :s)"),
			ExpressionAttributeValues: Item{":p": S("p"), ":s": S("a\x00")}})
		must(t, err)
		if len(q.Items) != 1 {
			t.Errorf("begins_with(sk, a\\x00) found %d items, want 1", len(q.Items))
		}
		// Attribute names are data too, in a key schema and a TTL setting.
		named := harness.TableName("nul_attr")
		_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(named),
			AttributeDefinitions: attrDefs("p\x00k", "S"), KeySchema: keySchema("p\x00k"), BillingMode: types.BillingModePayPerRequest})
		must(t, err)
		waitActive(t, c, named)
		put(t, c, named, Item{"p\x00k": S("x")})
		_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(named),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{Enabled: aws.Bool(true), AttributeName: aws.String("t\x00tl")}})
		must(t, err)
	})
}
