package e2e

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// listStreamArns pages through ListStreams (of one table when name is not
// empty) and returns the ARNs in the order listed.
func listStreamArns(ctx context.Context, t *testing.T, sc *dynamodbstreams.Client, name string) []string {
	t.Helper()
	in := &dynamodbstreams.ListStreamsInput{}
	if name != "" {
		in.TableName = aws.String(name)
	}
	var out []string
	for {
		ls, err := sc.ListStreams(ctx, in)
		must(t, err)
		for _, st := range ls.Streams {
			out = append(out, aws.ToString(st.StreamArn))
		}
		if ls.LastEvaluatedStreamArn == nil {
			return out
		}
		in.ExclusiveStartStreamArn = ls.LastEvaluatedStreamArn
	}
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestStreamsDeletedTable: after DeleteTable the table's streams stay
// listed, described (DISABLED, shards closed) and readable, as the service
// keeps them for 24 hours; a new table of the same name has its own.
func TestStreamsDeletedTable(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c, sc := s.Client(), streamsClient(s)
		ctx := harness.Ctx(t)
		name, created := createStreamTable(t, c, "str_del", types.StreamViewTypeNewAndOldImages)
		firstArn := aws.ToString(created.LatestStreamArn)
		put(t, c, name, Item{"pk": S("a"), "v": S("1")})
		// A second stream: the first one, disabled, is still kept.
		_, err := updateStream(t, c, name, false, "")
		must(t, err)
		out, err := updateStream(t, c, name, true, types.StreamViewTypeKeysOnly)
		must(t, err)
		arn, label := aws.ToString(out.TableDescription.LatestStreamArn), aws.ToString(out.TableDescription.LatestStreamLabel)
		put(t, c, name, Item{"pk": S("b"), "v": S("1")})
		put(t, c, name, Item{"pk": S("b"), "v": S("2")})
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: Item{"pk": S("b")}})
		must(t, err)

		_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		must(t, err)
		_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		expectNotFound(t, err)

		if got := listStreamArns(ctx, t, sc, name); len(got) != 2 || got[0] != arn || got[1] != firstArn {
			t.Errorf("ListStreams(%s) after DeleteTable = %v, want [%s %s]", name, got, arn, firstArn)
		}
		if all := listStreamArns(ctx, t, sc, ""); !containsString(all, arn) || !containsString(all, firstArn) {
			t.Errorf("ListStreams without TableName after DeleteTable misses %s or %s", arn, firstArn)
		}
		for _, a := range []string{arn, firstArn} {
			sd := describeStream(t, sc, a)
			if sd.StreamStatus != stypes.StreamStatusDisabled || aws.ToString(sd.TableName) != name || len(sd.KeySchema) != 1 || len(sd.Shards) != 1 {
				t.Fatalf("DescribeStream %s after DeleteTable = %+v", a, sd)
			}
			r := sd.Shards[0].SequenceNumberRange
			if r == nil || r.StartingSequenceNumber == nil || r.EndingSequenceNumber == nil || aws.ToString(r.EndingSequenceNumber) < aws.ToString(r.StartingSequenceNumber) {
				t.Errorf("DescribeStream %s after DeleteTable: shard range %+v, want closed", a, r)
			}
		}
		if sd := describeStream(t, sc, arn); aws.ToString(sd.StreamLabel) != label || sd.StreamViewType != stypes.StreamViewTypeKeysOnly {
			t.Errorf("DescribeStream after DeleteTable: label %s view %s", aws.ToString(sd.StreamLabel), sd.StreamViewType)
		}

		// The records are still read, to the end of the closed shard.
		recs, next := readAll(t, sc, shardIterator(t, sc, arn, stypes.ShardIteratorTypeTrimHorizon, ""))
		if eventNames(recs) != "INSERT,MODIFY,REMOVE" || imageText(recs[0].Dynamodb.Keys) != "pk=b" || recs[0].Dynamodb.NewImage != nil {
			t.Errorf("records of the deleted table's stream = %s", eventNames(recs))
		}
		if next != nil {
			t.Error("the deleted table's shard read to its end still answered a NextShardIterator")
		}
		if first, _ := readAll(t, sc, shardIterator(t, sc, firstArn, stypes.ShardIteratorTypeTrimHorizon, "")); eventNames(first) != "INSERT" {
			t.Errorf("records of the deleted table's first stream = %s", eventNames(first))
		}
		gone := "arn:aws:dynamodb:us-east-1:000000000000:table/" + name + "/stream/2001-01-01T00:00:00.000"
		expectRawStreams(t, s, "DescribeStream", `{"StreamArn":"`+gone+`"}`, "ResourceNotFoundException", "Requested resource not found: Stream: "+gone+" not found")

		// A new table of the same name: its stream is listed first, the
		// deleted table's streams are still there and unchanged.
		_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
			BillingMode: types.BillingModePayPerRequest, StreamSpecification: streamSpec(true, types.StreamViewTypeNewImage),
		})
		must(t, err)
		waitActive(t, c, name)
		newArn := aws.ToString(describeTable(t, c, name).LatestStreamArn)
		put(t, c, name, Item{"pk": S("c")})
		if got := listStreamArns(ctx, t, sc, name); len(got) != 3 || got[0] != newArn || got[1] != arn || got[2] != firstArn {
			t.Errorf("ListStreams(%s) after re-creation = %v, want [%s %s %s]", name, got, newArn, arn, firstArn)
		}
		if sd := describeStream(t, sc, newArn); sd.StreamStatus != stypes.StreamStatusEnabled {
			t.Errorf("the new table's stream is %s", sd.StreamStatus)
		}
		if sd := describeStream(t, sc, arn); sd.StreamStatus != stypes.StreamStatusDisabled {
			t.Errorf("the deleted table's stream is %s after re-creation", sd.StreamStatus)
		}
		if recs, _ := readAll(t, sc, shardIterator(t, sc, arn, stypes.ShardIteratorTypeTrimHorizon, "")); eventNames(recs) != "INSERT,MODIFY,REMOVE" {
			t.Errorf("records of the deleted table's stream after re-creation = %s", eventNames(recs))
		}
		if recs, _ := readAll(t, sc, shardIterator(t, sc, newArn, stypes.ShardIteratorTypeTrimHorizon, "")); eventNames(recs) != "INSERT" {
			t.Errorf("records of the new table's stream = %s", eventNames(recs))
		}

		// A deleted table that never had a stream is not found.
		plain := createHashTable(t, c, "str_del_plain")
		_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(plain)})
		must(t, err)
		expectRawStreams(t, s, "ListStreams", `{"TableName":"`+plain+`"}`, "ResourceNotFoundException", "Requested resource not found: Table: "+plain+" not found")
	})
}
