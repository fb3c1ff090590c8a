package e2e

import (
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// TestMultiKeyStreamsTTL: a table with a stream, TTL and a global index
// with a multi-attribute key (a, b + c) added by UpdateTable: the TTL
// sweeper's delete of an expired item takes it out of the index, and the
// stream records its INSERT and REMOVE with the table's key only.
func TestMultiKeyStreamsTTL(t *testing.T) {
	t.Parallel()
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			s := ttlServer(t, backend)
			c, sc := s.Client(), streamsClient(s)
			ctx := harness.Ctx(t)
			name, created := createStreamTable(t, c, "mk_ttl", types.StreamViewTypeKeysOnly)
			_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name),
				AttributeDefinitions: attrDefs("a", "S", "b", "N", "c", "S"),
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
					IndexName: aws.String("mkttl"), KeySchema: mkKeySchema([]string{"a", "b"}, "c"),
					Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}}}}})
			must(t, err)
			waitIndexesActive(t, c, name)
			_, err = updateTTL(c, t, name, "exp", true)
			must(t, err)
			now := time.Now().Unix()
			put(t, c, name, Item{"pk": S("kept"), "a": S("x"), "b": N("1"), "c": S("c1"), "exp": N(strconv.FormatInt(now+3600, 10))})
			put(t, c, name, Item{"pk": S("expired"), "a": S("x"), "b": N("1"), "c": S("c0"), "exp": N(strconv.FormatInt(now+2, 10))})
			indexed := func() []string {
				out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(name), IndexName: aws.String("mkttl"),
					KeyConditionExpression: aws.String("a = :a AND b = :b"), ExpressionAttributeValues: Item{":a": S("x"), ":b": N("1")}})
				must(t, err)
				var pks []string
				for _, it := range out.Items {
					pks = append(pks, it["pk"].(*types.AttributeValueMemberS).Value)
				}
				return pks
			}
			// The item expires 2 s after its put, so the sweeper (100 ms) can
			// only have taken it on a machine that stalled that long; then
			// the index must already agree with the table.
			got := indexed()
			swept := get(t, c, name, Item{"pk": S("expired")}) == nil
			if !(len(got) == 2 && got[0] == "expired") && !(swept && len(got) == 1 && got[0] == "kept") {
				t.Fatalf("index before the sweep: %v (item swept: %v), want [expired kept]", got, swept)
			}
			deadline := time.Now().Add(60 * time.Second)
			for get(t, c, name, Item{"pk": S("expired")}) != nil {
				if time.Now().After(deadline) {
					t.Fatal("the expired item was not deleted by the TTL sweeper")
				}
				time.Sleep(50 * time.Millisecond)
			}
			if got := indexed(); len(got) != 1 || got[0] != "kept" {
				t.Errorf("index after the sweep: %v, want [kept]", got)
			}
			recs, _ := readAll(t, sc, shardIterator(t, sc, aws.ToString(created.LatestStreamArn), stypes.ShardIteratorTypeTrimHorizon, ""))
			var seen []string
			for _, r := range recs {
				seen = append(seen, string(r.EventName)+" "+imageText(r.Dynamodb.Keys))
			}
			want := []string{"INSERT pk=kept", "INSERT pk=expired", "REMOVE pk=expired"}
			if len(seen) != len(want) {
				t.Fatalf("stream records %v, want %v", seen, want)
			}
			for i := range want {
				if seen[i] != want[i] {
					t.Errorf("stream record %d: %s, want %s", i, seen[i], want[i])
				}
			}
		})
	}
}
