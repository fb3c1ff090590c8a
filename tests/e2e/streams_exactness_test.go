package e2e

// Streams details (issue 18): DescribeStream honours ShardFilter
// CHILD_SHARDS (a stream's one shard has no children); a malformed stream
// ARN is a ValidationException (DescribeStream, GetShardIterator,
// ListStreams' ExclusiveStartStreamArn), where a well-formed ARN of no
// stream stays ResourceNotFoundException; TRIM_HORIZON and LATEST refuse a
// SequenceNumber (alternator's test_get_shard_iterator, which passes
// against DynamoDB). Before, the filter was ignored, a malformed ARN was
// not found, and the SequenceNumber was ignored.

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func TestStreamsExactness(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		sc := streamsClient(s)
		ctx := harness.Ctx(t)
		name, desc := createStreamTable(t, c, "strexact", types.StreamViewTypeKeysOnly)
		arn := *desc.LatestStreamArn
		put(t, c, name, Item{"pk": S("k")})
		d := describeStream(t, sc, arn)
		shard := aws.ToString(d.Shards[0].ShardId)
		seq := aws.ToString(d.Shards[0].SequenceNumberRange.StartingSequenceNumber)

		t.Run("ShardFilter", func(t *testing.T) {
			out, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn),
				ShardFilter: &stypes.ShardFilter{Type: stypes.ShardFilterTypeChildShards, ShardId: aws.String(shard)}})
			must(t, err)
			if n := len(out.StreamDescription.Shards); n != 0 {
				t.Errorf("CHILD_SHARDS of the stream's one shard: %d shards, want none", n)
			}
			if out.StreamDescription.StreamArn == nil || out.StreamDescription.StreamStatus != stypes.StreamStatusEnabled {
				t.Errorf("the filtered description lost the stream's fields")
			}
			expectRawStreams(t, s, "DescribeStream", `{"StreamArn":"`+arn+`","ShardFilter":{"Type":"PARENT_SHARDS","ShardId":"`+shard+`"}}`, "ValidationException",
				"1 validation error detected: Value 'PARENT_SHARDS' at 'shardFilter.type' failed to satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]")
			// Without a filter, the shard is there.
			if n := len(describeStream(t, sc, arn).Shards); n != 1 {
				t.Errorf("DescribeStream without a filter: %d shards", n)
			}
		})

		t.Run("malformed stream ARN", func(t *testing.T) {
			for _, bad := range []string{
				"sdfadfsdfnlfkajakfgjalksfgklasjklasdjfklasdfasdfgasf",
				"arn:aws:dynamodb:us-east-1:000000000000:table/" + name,
				"arn:aws:s3:us-east-1:000000000000:table/" + name + "/stream/x",
			} {
				_, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(bad)})
				expectAPIError(t, err, "ValidationException", "Invalid StreamArn")
				_, err = sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(bad), ShardId: aws.String(shard), ShardIteratorType: stypes.ShardIteratorTypeLatest})
				expectAPIError(t, err, "ValidationException", "Invalid StreamArn")
				_, err = sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{ExclusiveStartStreamArn: aws.String(bad)})
				expectAPIError(t, err, "ValidationException", "Invalid ExclusiveStartStreamArn")
			}
			// A well-formed ARN of no stream is not found.
			gone := strings.Replace(arn, name, name+"x", 1)
			_, err := sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(gone)})
			expectAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Stream: "+gone+" not found")
		})

		t.Run("SequenceNumber with TRIM_HORIZON or LATEST", func(t *testing.T) {
			for _, typ := range []stypes.ShardIteratorType{stypes.ShardIteratorTypeTrimHorizon, stypes.ShardIteratorTypeLatest} {
				_, err := sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard),
					ShardIteratorType: typ, SequenceNumber: aws.String(seq)})
				expectAPIError(t, err, "ValidationException", "Cannot specify a SequenceNumber for the "+string(typ)+" shard iterator type")
				_, err = sc.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: aws.String(shard), ShardIteratorType: typ})
				must(t, err)
			}
		})
	})
}
