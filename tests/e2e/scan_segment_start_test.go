package e2e

// A parallel Scan's ExclusiveStartKey must lie in the requested segment
// (issue 18, scans): the service answers "The provided starting key is
// invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with
// correct Segment. TotalSegments: N Segment: S" (quoted in alternator's PR
// #9270). Before, a key of another segment silently gave a truncated page.

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func TestScanStartKeyOutsideSegment(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "scanseg")
		for i := 0; i < 40; i++ {
			put(t, c, table, Item{"pk": S(fmt.Sprintf("item-%02d", i))})
		}
		const total = 4
		// A key segment 0 returned continues segment 0, and no other.
		var start Item
		for seg := 0; seg < total && start == nil; seg++ {
			out, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(total), Limit: aws.Int32(1)})
			must(t, err)
			if out.LastEvaluatedKey != nil {
				start = out.LastEvaluatedKey
				_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(total), ExclusiveStartKey: start})
				must(t, err)
				other := (seg + 1) % total
				_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(int32(other)), TotalSegments: aws.Int32(total), ExclusiveStartKey: start})
				expectValidation(t, err, fmt.Sprintf("The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: %d Segment: %d", total, other))
			}
		}
		if start == nil {
			t.Fatal("no segment returned a LastEvaluatedKey")
		}
		// Without segments, any key is a start.
		_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), ExclusiveStartKey: start})
		must(t, err)
		_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(0), TotalSegments: aws.Int32(1), ExclusiveStartKey: start})
		must(t, err)
	})
}
