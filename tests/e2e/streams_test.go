package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// streamsClient is the SDK's DynamoDB Streams client pointed at the server.
func streamsClient(s *harness.Server) *dynamodbstreams.Client {
	return dynamodbstreams.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		HTTPClient:  &http.Client{Transport: harness.NewTransport(), Timeout: 60 * time.Second},
	}, func(o *dynamodbstreams.Options) {
		o.BaseEndpoint = aws.String(s.URL)
		o.RetryMaxAttempts = 1
	})
}

// createStreamTable creates a table keyed by pk (S) with a stream of the view type.
func createStreamTable(t *testing.T, c *dynamodb.Client, prefix string, view types.StreamViewType) (string, *types.TableDescription) {
	t.Helper()
	name := harness.TableName(prefix)
	out, err := c.CreateTable(harness.Ctx(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S"),
		KeySchema:            keySchema("pk"),
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: view},
	})
	if err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
	waitActive(t, c, name)
	return name, out.TableDescription
}

func streamSpec(on bool, view types.StreamViewType) *types.StreamSpecification {
	return &types.StreamSpecification{StreamEnabled: aws.Bool(on), StreamViewType: view}
}

func updateStream(t *testing.T, c *dynamodb.Client, name string, on bool, view types.StreamViewType) (*dynamodb.UpdateTableOutput, error) {
	return c.UpdateTable(harness.Ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), StreamSpecification: streamSpec(on, view)})
}

func describeTable(t *testing.T, c *dynamodb.Client, name string) *types.TableDescription {
	t.Helper()
	out, err := c.DescribeTable(harness.Ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	must(t, err)
	return out.Table
}

func describeStream(t *testing.T, sc *dynamodbstreams.Client, arn string) *stypes.StreamDescription {
	t.Helper()
	out, err := sc.DescribeStream(harness.Ctx(t), &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)})
	must(t, err)
	return out.StreamDescription
}

// shardIterator returns an iterator of the stream's one shard.
func shardIterator(t *testing.T, sc *dynamodbstreams.Client, arn string, typ stypes.ShardIteratorType, seq string) string {
	t.Helper()
	d := describeStream(t, sc, arn)
	if len(d.Shards) != 1 {
		t.Fatalf("stream %s has %d shards", arn, len(d.Shards))
	}
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(arn), ShardId: d.Shards[0].ShardId, ShardIteratorType: typ}
	if seq != "" {
		in.SequenceNumber = aws.String(seq)
	}
	out, err := sc.GetShardIterator(harness.Ctx(t), in)
	must(t, err)
	return aws.ToString(out.ShardIterator)
}

// readAll reads from the iterator until a call answers no records (or the
// shard ends); it returns the records and the last NextShardIterator.
func readAll(t *testing.T, sc *dynamodbstreams.Client, it string) ([]stypes.Record, *string) {
	t.Helper()
	var recs []stypes.Record
	next := &it
	for next != nil {
		out, err := sc.GetRecords(harness.Ctx(t), &dynamodbstreams.GetRecordsInput{ShardIterator: next})
		must(t, err)
		recs = append(recs, out.Records...)
		next = out.NextShardIterator
		if len(out.Records) == 0 {
			break
		}
	}
	return recs, next
}

func sAttr(v stypes.AttributeValue) string {
	if s, ok := v.(*stypes.AttributeValueMemberS); ok {
		return s.Value
	}
	return fmt.Sprintf("<%T>", v)
}

// imageText renders an image's string attributes, sorted, for comparisons.
func imageText(m map[string]stypes.AttributeValue) string {
	if m == nil {
		return "nil"
	}
	var parts []string
	for k, v := range m {
		parts = append(parts, k+"="+sAttr(v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func eventNames(recs []stypes.Record) string {
	var out []string
	for _, r := range recs {
		out = append(out, string(r.EventName))
	}
	return strings.Join(out, ",")
}

func TestStreamsOperations(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c, sc := s.Client(), streamsClient(s)
		ctx := harness.Ctx(t)
		name, created := createStreamTable(t, c, "str_ops", types.StreamViewTypeNewAndOldImages)
		arn := aws.ToString(created.LatestStreamArn)
		label := aws.ToString(created.LatestStreamLabel)
		if !strings.HasPrefix(arn, "arn:aws:dynamodb:us-east-1:000000000000:table/"+name+"/stream/") || !strings.HasSuffix(arn, "/stream/"+label) {
			t.Errorf("CreateTable LatestStreamArn = %q, label %q", arn, label)
		}
		d := describeTable(t, c, name)
		if sp := d.StreamSpecification; sp == nil || !aws.ToBool(sp.StreamEnabled) || sp.StreamViewType != types.StreamViewTypeNewAndOldImages {
			t.Errorf("DescribeTable StreamSpecification = %+v", sp)
		}
		if aws.ToString(d.LatestStreamArn) != arn || aws.ToString(d.LatestStreamLabel) != label {
			t.Errorf("DescribeTable stream = %s %s, want %s %s", aws.ToString(d.LatestStreamArn), aws.ToString(d.LatestStreamLabel), arn, label)
		}

		ls, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(name)})
		must(t, err)
		if len(ls.Streams) != 1 || aws.ToString(ls.Streams[0].StreamArn) != arn || aws.ToString(ls.Streams[0].TableName) != name || aws.ToString(ls.Streams[0].StreamLabel) != label {
			t.Errorf("ListStreams(%s) = %+v", name, ls.Streams)
		}
		all, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{})
		must(t, err)
		found := false
		for _, st := range all.Streams {
			found = found || aws.ToString(st.StreamArn) == arn
		}
		if !found && all.LastEvaluatedStreamArn == nil {
			t.Errorf("ListStreams without TableName misses %s", arn)
		}

		sd := describeStream(t, sc, arn)
		if aws.ToString(sd.StreamArn) != arn || aws.ToString(sd.StreamLabel) != label || sd.StreamStatus != stypes.StreamStatusEnabled ||
			sd.StreamViewType != stypes.StreamViewTypeNewAndOldImages || aws.ToString(sd.TableName) != name || sd.CreationRequestDateTime == nil {
			t.Errorf("DescribeStream = %+v", sd)
		}
		if len(sd.KeySchema) != 1 || aws.ToString(sd.KeySchema[0].AttributeName) != "pk" || sd.KeySchema[0].KeyType != stypes.KeyTypeHash {
			t.Errorf("DescribeStream KeySchema = %+v", sd.KeySchema)
		}
		if len(sd.Shards) != 1 || !strings.HasPrefix(aws.ToString(sd.Shards[0].ShardId), "shardId-") ||
			sd.Shards[0].SequenceNumberRange == nil || sd.Shards[0].SequenceNumberRange.StartingSequenceNumber == nil ||
			sd.Shards[0].SequenceNumberRange.EndingSequenceNumber != nil {
			t.Fatalf("DescribeStream Shards = %+v", sd.Shards)
		}

		// INSERT, MODIFY, REMOVE.
		horizon := shardIterator(t, sc, arn, stypes.ShardIteratorTypeTrimHorizon, "")
		put(t, c, name, Item{"pk": S("a"), "v": S("1")})
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(name), Key: Item{"pk": S("a")},
			UpdateExpression: aws.String("SET v = :v"), ExpressionAttributeValues: Item{":v": S("2")},
		})
		must(t, err)
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: Item{"pk": S("a")}})
		must(t, err)

		recs, next := readAll(t, sc, horizon)
		if next == nil {
			t.Error("GetRecords on an enabled stream answered no NextShardIterator")
		}
		if got := eventNames(recs); got != "INSERT,MODIFY,REMOVE" {
			t.Fatalf("records = %s", got)
		}
		wantImages := [][2]string{{"nil", "pk=a,v=1"}, {"pk=a,v=1", "pk=a,v=2"}, {"pk=a,v=2", "nil"}}
		ids := map[string]bool{}
		for i, r := range recs {
			sr := r.Dynamodb
			if aws.ToString(r.EventSource) != "aws:dynamodb" || aws.ToString(r.EventVersion) != "1.1" || aws.ToString(r.AwsRegion) != "us-east-1" || r.UserIdentity != nil {
				t.Errorf("record %d envelope = %+v", i, r)
			}
			if id := aws.ToString(r.EventID); id == "" || ids[id] {
				t.Errorf("record %d eventID %q empty or repeated", i, id)
			} else {
				ids[id] = true
			}
			if got := imageText(sr.Keys); got != "pk=a" {
				t.Errorf("record %d Keys = %s", i, got)
			}
			if got := [2]string{imageText(sr.OldImage), imageText(sr.NewImage)}; got != wantImages[i] {
				t.Errorf("record %d images = %v, want %v", i, got, wantImages[i])
			}
			if seq := aws.ToString(sr.SequenceNumber); len(seq) < 21 || strings.Trim(seq, "0123456789") != "" {
				t.Errorf("record %d SequenceNumber = %q", i, seq)
			}
			if i > 0 && aws.ToString(sr.SequenceNumber) <= aws.ToString(recs[i-1].Dynamodb.SequenceNumber) {
				t.Errorf("sequence numbers not increasing: %s then %s", aws.ToString(recs[i-1].Dynamodb.SequenceNumber), aws.ToString(sr.SequenceNumber))
			}
			if aws.ToInt64(sr.SizeBytes) <= 0 || sr.StreamViewType != stypes.StreamViewTypeNewAndOldImages {
				t.Errorf("record %d SizeBytes %d view %s", i, aws.ToInt64(sr.SizeBytes), sr.StreamViewType)
			}
			if at := sr.ApproximateCreationDateTime; at == nil || time.Since(*at) > 5*time.Minute || time.Until(*at) > 5*time.Second {
				t.Errorf("record %d ApproximateCreationDateTime = %v", i, at)
			}
		}
		// Reading again from the same iterator gives the same records.
		again, _ := readAll(t, sc, horizon)
		if eventNames(again) != "INSERT,MODIFY,REMOVE" || aws.ToString(again[0].EventID) != aws.ToString(recs[0].EventID) {
			t.Errorf("re-read = %s", eventNames(again))
		}

		// The next iterator sees the next change; LATEST only later ones.
		latest := shardIterator(t, sc, arn, stypes.ShardIteratorTypeLatest, "")
		put(t, c, name, Item{"pk": S("b")})
		tail, _ := readAll(t, sc, aws.ToString(next))
		if eventNames(tail) != "INSERT" || imageText(tail[0].Dynamodb.Keys) != "pk=b" {
			t.Errorf("NextShardIterator read = %s", eventNames(tail))
		}
		fromLatest, _ := readAll(t, sc, latest)
		if eventNames(fromLatest) != "INSERT" || imageText(fromLatest[0].Dynamodb.Keys) != "pk=b" {
			t.Errorf("LATEST read = %s", eventNames(fromLatest))
		}

		// AT_ and AFTER_SEQUENCE_NUMBER.
		second := aws.ToString(recs[1].Dynamodb.SequenceNumber)
		at, _ := readAll(t, sc, shardIterator(t, sc, arn, stypes.ShardIteratorTypeAtSequenceNumber, second))
		if eventNames(at) != "MODIFY,REMOVE,INSERT" {
			t.Errorf("AT_SEQUENCE_NUMBER read = %s", eventNames(at))
		}
		after, _ := readAll(t, sc, shardIterator(t, sc, arn, stypes.ShardIteratorTypeAfterSequenceNumber, second))
		if eventNames(after) != "REMOVE,INSERT" {
			t.Errorf("AFTER_SEQUENCE_NUMBER read = %s", eventNames(after))
		}

		// Limit pages through the records.
		out, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(horizon), Limit: aws.Int32(2)})
		must(t, err)
		if eventNames(out.Records) != "INSERT,MODIFY" || out.NextShardIterator == nil {
			t.Fatalf("GetRecords Limit 2 = %s", eventNames(out.Records))
		}
		out, err = sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: out.NextShardIterator, Limit: aws.Int32(2)})
		must(t, err)
		if eventNames(out.Records) != "REMOVE,INSERT" {
			t.Errorf("GetRecords second page = %s", eventNames(out.Records))
		}

		// Transactions and batch writes are recorded too.
		latest = shardIterator(t, sc, arn, stypes.ShardIteratorTypeLatest, "")
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(name), Item: Item{"pk": S("t1")}}},
			{Delete: &types.Delete{TableName: aws.String(name), Key: Item{"pk": S("b")}}},
		}})
		must(t, err)
		_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{name: {
			{PutRequest: &types.PutRequest{Item: Item{"pk": S("w1")}}},
			{DeleteRequest: &types.DeleteRequest{Key: Item{"pk": S("t1")}}},
		}}})
		must(t, err)
		tx, _ := readAll(t, sc, latest)
		var got []string
		for _, r := range tx {
			got = append(got, string(r.EventName)+":"+imageText(r.Dynamodb.Keys))
		}
		sort.Strings(got)
		if strings.Join(got, " ") != "INSERT:pk=t1 INSERT:pk=w1 REMOVE:pk=b REMOVE:pk=t1" {
			t.Errorf("transaction and batch records = %v", got)
		}
	})
}

func TestStreamsViewTypes(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c, sc := s.Client(), streamsClient(s)
		want := map[types.StreamViewType][3][2]string{
			types.StreamViewTypeKeysOnly:        {{"nil", "nil"}, {"nil", "nil"}, {"nil", "nil"}},
			types.StreamViewTypeNewImage:        {{"nil", "pk=k,v=1"}, {"nil", "pk=k,v=2"}, {"nil", "nil"}},
			types.StreamViewTypeOldImage:        {{"nil", "nil"}, {"pk=k,v=1", "nil"}, {"pk=k,v=2", "nil"}},
			types.StreamViewTypeNewAndOldImages: {{"nil", "pk=k,v=1"}, {"pk=k,v=1", "pk=k,v=2"}, {"pk=k,v=2", "nil"}},
		}
		for view, images := range want {
			name, created := createStreamTable(t, c, "str_view", view)
			put(t, c, name, Item{"pk": S("k"), "v": S("1")})
			put(t, c, name, Item{"pk": S("k"), "v": S("2")})
			_, err := c.DeleteItem(harness.Ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: Item{"pk": S("k")}})
			must(t, err)
			arn := aws.ToString(created.LatestStreamArn)
			if v := describeStream(t, sc, arn).StreamViewType; string(v) != string(view) {
				t.Errorf("%s: DescribeStream StreamViewType = %s", view, v)
			}
			recs, _ := readAll(t, sc, shardIterator(t, sc, arn, stypes.ShardIteratorTypeTrimHorizon, ""))
			if eventNames(recs) != "INSERT,MODIFY,REMOVE" {
				t.Errorf("%s: records = %s", view, eventNames(recs))
				continue
			}
			var prevSize int64
			for i, r := range recs {
				if got := [2]string{imageText(r.Dynamodb.OldImage), imageText(r.Dynamodb.NewImage)}; got != images[i] {
					t.Errorf("%s: record %d images = %v, want %v", view, i, got, images[i])
				}
				if imageText(r.Dynamodb.Keys) != "pk=k" || string(r.Dynamodb.StreamViewType) != string(view) {
					t.Errorf("%s: record %d keys %s view %s", view, i, imageText(r.Dynamodb.Keys), r.Dynamodb.StreamViewType)
				}
				size := aws.ToInt64(r.Dynamodb.SizeBytes)
				if size <= 0 || (view == types.StreamViewTypeKeysOnly && i > 0 && size != prevSize) {
					t.Errorf("%s: record %d SizeBytes = %d", view, i, size)
				}
				prevSize = size
			}
		}
	})
}

func TestStreamsDisableReenable(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c, sc := s.Client(), streamsClient(s)
		ctx := harness.Ctx(t)
		name, created := createStreamTable(t, c, "str_reen", types.StreamViewTypeKeysOnly)
		oldArn, oldLabel := aws.ToString(created.LatestStreamArn), aws.ToString(created.LatestStreamLabel)
		put(t, c, name, Item{"pk": S("a")})

		_, err := updateStream(t, c, name, true, types.StreamViewTypeNewImage)
		expectValidation(t, err, "Table already has an enabled stream: TableName: "+name)
		_, err = updateStream(t, c, name, true, types.StreamViewTypeKeysOnly)
		expectValidation(t, err, "Table already has an enabled stream: TableName: "+name)

		_, err = updateStream(t, c, name, false, "")
		must(t, err)
		d := describeTable(t, c, name)
		if d.StreamSpecification != nil || aws.ToString(d.LatestStreamArn) != oldArn || aws.ToString(d.LatestStreamLabel) != oldLabel {
			t.Errorf("after disable: spec %+v arn %s label %s", d.StreamSpecification, aws.ToString(d.LatestStreamArn), aws.ToString(d.LatestStreamLabel))
		}
		_, err = updateStream(t, c, name, false, "")
		expectValidation(t, err, "Table has no stream to disable: TableName: "+name)
		put(t, c, name, Item{"pk": S("not-recorded")})

		sd := describeStream(t, sc, oldArn)
		if sd.StreamStatus != stypes.StreamStatusDisabled || sd.StreamViewType != stypes.StreamViewTypeKeysOnly || len(sd.Shards) != 1 ||
			sd.Shards[0].SequenceNumberRange.EndingSequenceNumber == nil {
			t.Errorf("disabled stream = %+v", sd)
		}

		out, err := updateStream(t, c, name, true, types.StreamViewTypeNewImage)
		must(t, err)
		newArn, newLabel := aws.ToString(out.TableDescription.LatestStreamArn), aws.ToString(out.TableDescription.LatestStreamLabel)
		if newArn == "" || newArn == oldArn || newLabel <= oldLabel {
			t.Fatalf("re-enable: arn %s label %s (old %s %s)", newArn, newLabel, oldArn, oldLabel)
		}
		d = describeTable(t, c, name)
		if sp := d.StreamSpecification; sp == nil || sp.StreamViewType != types.StreamViewTypeNewImage || aws.ToString(d.LatestStreamArn) != newArn {
			t.Errorf("after re-enable: %+v %s", sp, aws.ToString(d.LatestStreamArn))
		}
		put(t, c, name, Item{"pk": S("c"), "x": S("y")})

		// The old stream: still readable, closed, its own view type.
		oldRecs, next := readAll(t, sc, shardIterator(t, sc, oldArn, stypes.ShardIteratorTypeTrimHorizon, ""))
		if eventNames(oldRecs) != "INSERT" || imageText(oldRecs[0].Dynamodb.Keys) != "pk=a" || oldRecs[0].Dynamodb.NewImage != nil {
			t.Errorf("old stream records = %s", eventNames(oldRecs))
		}
		if next != nil {
			t.Error("a closed shard read to its end still answered a NextShardIterator")
		}
		if sd := describeStream(t, sc, oldArn); sd.StreamStatus != stypes.StreamStatusDisabled {
			t.Errorf("old stream status = %s", sd.StreamStatus)
		}
		// The new one.
		newRecs, _ := readAll(t, sc, shardIterator(t, sc, newArn, stypes.ShardIteratorTypeTrimHorizon, ""))
		if eventNames(newRecs) != "INSERT" || imageText(newRecs[0].Dynamodb.NewImage) != "pk=c,x=y" {
			t.Errorf("new stream records = %s", eventNames(newRecs))
		}
		if sd := describeStream(t, sc, newArn); sd.StreamStatus != stypes.StreamStatusEnabled || sd.StreamViewType != stypes.StreamViewTypeNewImage {
			t.Errorf("new stream = %+v", sd)
		}

		// Both are listed, newest first, and page with Limit.
		ls, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(name)})
		must(t, err)
		if len(ls.Streams) != 2 || aws.ToString(ls.Streams[0].StreamArn) != newArn || aws.ToString(ls.Streams[1].StreamArn) != oldArn {
			t.Errorf("ListStreams = %+v", ls.Streams)
		}
		p1, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(name), Limit: aws.Int32(1)})
		must(t, err)
		if len(p1.Streams) != 1 || aws.ToString(p1.LastEvaluatedStreamArn) != newArn {
			t.Fatalf("ListStreams page 1 = %+v last %s", p1.Streams, aws.ToString(p1.LastEvaluatedStreamArn))
		}
		p2, err := sc.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String(name), Limit: aws.Int32(1), ExclusiveStartStreamArn: p1.LastEvaluatedStreamArn})
		must(t, err)
		if len(p2.Streams) != 1 || aws.ToString(p2.Streams[0].StreamArn) != oldArn || p2.LastEvaluatedStreamArn != nil {
			t.Errorf("ListStreams page 2 = %+v last %s", p2.Streams, aws.ToString(p2.LastEvaluatedStreamArn))
		}
	})
}

// TestStreamsConsumerConcurrentWorkload reads the stream while 8 writers
// change 20 items with every write path: each change must arrive exactly
// once, and each item's changes in the order they were made (every
// record's old image is the previous record's new image).
func TestStreamsConsumerConcurrentWorkload(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c, sc := s.Client(), streamsClient(s)
		ctx := harness.Ctx(t)
		name, created := createStreamTable(t, c, "str_load", types.StreamViewTypeNewAndOldImages)
		arn := aws.ToString(created.LatestStreamArn)
		it := shardIterator(t, sc, arn, stypes.ShardIteratorTypeTrimHorizon, "")

		const writers, perWriter, items = 8, 40, 20
		key := func(i int) Item { return Item{"pk": S(fmt.Sprintf("item%02d", i))} }
		var mu sync.Mutex
		tokens := map[string]bool{}  // every new image written
		removes := map[string]bool{} // every version deleted (by its token)
		var werr error
		var wg sync.WaitGroup
		for g := 0; g < writers; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := 0; i < perWriter; i++ {
					tok := fmt.Sprintf("g%d-%d", g, i)
					k := key((g*7 + i*3) % items)
					var applied, deleted []string
					var err error
					switch i % 5 {
					case 0, 1:
						_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: Item{"pk": k["pk"], "w": S(tok)}})
						applied = []string{tok}
					case 2:
						_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: k,
							UpdateExpression: aws.String("SET w = :w"), ExpressionAttributeValues: Item{":w": S(tok)}})
						applied = []string{tok}
					case 3:
						var out *dynamodb.DeleteItemOutput
						out, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: k, ReturnValues: types.ReturnValueAllOld})
						if err == nil && out.Attributes != nil {
							if w, ok := out.Attributes["w"].(*types.AttributeValueMemberS); ok {
								deleted = []string{w.Value}
							} else {
								deleted = []string{""}
							}
						}
					case 4:
						k2 := key((g*7 + i*3 + 1 + g%3) % items)
						if i%2 == 0 {
							_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
								{Put: &types.Put{TableName: aws.String(name), Item: Item{"pk": k["pk"], "w": S(tok + "a")}}},
								{Update: &types.Update{TableName: aws.String(name), Key: k2,
									UpdateExpression: aws.String("SET w = :w"), ExpressionAttributeValues: Item{":w": S(tok + "b")}}},
							}})
							var tce *types.TransactionCanceledException
							if errors.As(err, &tce) {
								err = nil // nothing applied
							} else {
								applied = []string{tok + "a", tok + "b"}
							}
						} else {
							var out *dynamodb.BatchWriteItemOutput
							out, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{name: {
								{PutRequest: &types.PutRequest{Item: Item{"pk": k["pk"], "w": S(tok + "a")}}},
								{PutRequest: &types.PutRequest{Item: Item{"pk": k2["pk"], "w": S(tok + "b")}}},
							}}})
							if err == nil {
								unprocessed := map[string]bool{}
								for _, wr := range out.UnprocessedItems[name] {
									unprocessed[wr.PutRequest.Item["w"].(*types.AttributeValueMemberS).Value] = true
								}
								for _, w := range []string{tok + "a", tok + "b"} {
									if !unprocessed[w] {
										applied = append(applied, w)
									}
								}
							}
						}
					}
					mu.Lock()
					if err != nil && werr == nil {
						werr = err
					}
					if err == nil {
						for _, a := range applied {
							tokens[a] = true
						}
						for _, d := range deleted {
							removes[d] = true
						}
					}
					mu.Unlock()
				}
			}(g)
		}

		// The consumer runs alongside the writers.
		type change struct {
			seq, key, old, new string
			event              stypes.OperationType
		}
		var seen []change
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		finished := false
		quietAfterDone := 0
		deadline := time.Now().Add(90 * time.Second)
		for time.Now().Before(deadline) {
			out, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(it), Limit: aws.Int32(50)})
			must(t, err)
			if out.NextShardIterator == nil {
				t.Fatal("open stream answered no NextShardIterator")
			}
			it = *out.NextShardIterator
			for _, r := range out.Records {
				w := func(m map[string]stypes.AttributeValue) string {
					if m == nil {
						return "-"
					}
					return sAttr(m["w"])
				}
				seen = append(seen, change{seq: aws.ToString(r.Dynamodb.SequenceNumber), key: sAttr(r.Dynamodb.Keys["pk"]),
					old: w(r.Dynamodb.OldImage), new: w(r.Dynamodb.NewImage), event: r.EventName})
			}
			if !finished {
				select {
				case <-done:
					finished = true
				default:
				}
			} else if len(out.Records) == 0 {
				quietAfterDone++
				if quietAfterDone >= 3 {
					break
				}
			}
			if len(out.Records) == 0 {
				time.Sleep(20 * time.Millisecond)
			}
		}
		if !finished {
			t.Fatal("writers did not finish in time")
		}
		if werr != nil {
			t.Fatalf("workload: %v", werr)
		}

		// Exactly once: every written image once, every deletion once, nothing else.
		gotNew, gotRemoved := map[string]int{}, map[string]int{}
		last := map[string]string{} // item -> its latest new image's token
		for i, ch := range seen {
			if i > 0 && ch.seq <= seen[i-1].seq {
				t.Errorf("sequence numbers out of order: %s after %s", ch.seq, seen[i-1].seq)
			}
			prev, ok := last[ch.key]
			if !ok {
				prev = "-"
			}
			if ch.old != prev {
				t.Errorf("item %s: record %s has old image %s, the previous change left %s", ch.key, ch.seq, ch.old, prev)
			}
			wantEvent := stypes.OperationTypeModify
			switch {
			case ch.old == "-":
				wantEvent = stypes.OperationTypeInsert
			case ch.new == "-":
				wantEvent = stypes.OperationTypeRemove
			}
			if ch.event != wantEvent {
				t.Errorf("record %s is %s, want %s", ch.seq, ch.event, wantEvent)
			}
			last[ch.key] = ch.new
			if ch.new != "-" {
				gotNew[ch.new]++
			} else {
				gotRemoved[ch.old]++
			}
		}
		for tok := range tokens {
			if gotNew[tok] != 1 {
				t.Errorf("write %s seen %d times", tok, gotNew[tok])
			}
		}
		for tok, n := range gotNew {
			if !tokens[tok] {
				t.Errorf("record of a write never made: %s (%d)", tok, n)
			}
		}
		for tok := range removes {
			if gotRemoved[tok] != 1 {
				t.Errorf("deletion of %s seen %d times", tok, gotRemoved[tok])
			}
		}
		if len(gotRemoved) != len(removes) {
			t.Errorf("%d deletions recorded, %d made", len(gotRemoved), len(removes))
		}
		// The stream's last image of each item is the table's item.
		for i := 0; i < items; i++ {
			k := key(i)
			got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: k, ConsistentRead: aws.Bool(true)})
			must(t, err)
			want := "-"
			if got.Item != nil {
				want = got.Item["w"].(*types.AttributeValueMemberS).Value
			}
			pk := k["pk"].(*types.AttributeValueMemberS).Value
			if l, ok := last[pk]; (ok && l != want) || (!ok && want != "-") {
				t.Errorf("item %s: table has %s, stream ends at %s", pk, want, l)
			}
		}
		t.Logf("%d records, %d writes, %d deletions", len(seen), len(tokens), len(removes))
	})
}

// rawStreamsCall sends a raw request to the Streams API.
func rawStreamsCall(t *testing.T, s *harness.Server, op, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(harness.Ctx(t), http.MethodPost, s.URL+"/", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDBStreams_20120810."+op)
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDTEST/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000")
	req.Header.Set("X-Amz-Date", time.Now().UTC().Format("20060102T150405Z"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	code, msg := rawError(data)
	return resp.StatusCode, code, msg
}

func expectRawStreams(t *testing.T, s *harness.Server, op, body, code, msg string) {
	t.Helper()
	status, gotCode, got := rawStreamsCall(t, s, op, body)
	if status != 400 || gotCode != code || got != msg {
		t.Errorf("%s %s\n  want: 400 %s: %s\n  got:  %d %s: %s", op, body, code, msg, status, gotCode, got)
	}
}

func TestStreamsValidation(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c, sc := s.Client(), streamsClient(s)
		ctx := harness.Ctx(t)

		// CreateTable.
		create := func(spec string) string {
			return `{"TableName":"` + harness.TableName("str_bad") + `","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],` +
				`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST","StreamSpecification":` + spec + `}`
		}
		expectRawValidation(t, s, "CreateTable", create(`{"StreamEnabled":true}`),
			"One or more parameter values were invalid: Table is being created with a stream enabled, UpdateViewType is required")
		expectRawValidation(t, s, "CreateTable", create(`{"StreamEnabled":false,"StreamViewType":"NEW_IMAGE"}`),
			"One or more parameter values were invalid: Table is being created with a stream disabled, UpdateViewType should not be specified")
		expectRawValidation(t, s, "CreateTable", create(`{"StreamViewType":"NEW_IMAGE"}`),
			"1 validation error detected: Value null at 'streamSpecification.streamEnabled' failed to satisfy constraint: Member must not be null")
		expectRawValidation(t, s, "CreateTable", create(`{}`),
			"1 validation error detected: Value null at 'streamSpecification.streamEnabled' failed to satisfy constraint: Member must not be null")
		expectRawValidation(t, s, "CreateTable", create(`{"StreamEnabled":true,"StreamViewType":"new_image"}`),
			"1 validation error detected: Value 'new_image' at 'streamSpecification.streamViewType' failed to satisfy constraint: Member must satisfy enum value set: [OLD_IMAGE, KEYS_ONLY, NEW_AND_OLD_IMAGES, NEW_IMAGE]")
		// A disabled specification creates a table without a stream.
		plain := harness.TableName("str_off")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(plain), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
			StreamSpecification:   streamSpec(false, ""),
		})
		must(t, err)
		if d := describeTable(t, c, plain); d.StreamSpecification != nil || d.LatestStreamArn != nil {
			t.Errorf("table without stream describes %+v %v", d.StreamSpecification, d.LatestStreamArn)
		}
		_, err = updateStream(t, c, plain, false, "")
		expectValidation(t, err, "Table has no stream to disable: TableName: "+plain)

		// UpdateTable.
		_, err = updateStream(t, c, plain, true, "")
		expectValidation(t, err, "One or more parameter values were invalid: If stream is being enabled then UpdateViewType is required")
		_, err = updateStream(t, c, plain, false, types.StreamViewTypeKeysOnly)
		expectValidation(t, err, "One or more parameter values were invalid: If stream is being disabled, then UpdateViewType must not be specified")
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(plain), StreamSpecification: streamSpec(true, types.StreamViewTypeKeysOnly),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(2), WriteCapacityUnits: aws.Int64(2)}})
		expectValidation(t, err, "One or more parameter values were invalid: You cannot modify stream status while updating table IOPS")
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(plain), StreamSpecification: streamSpec(true, types.StreamViewTypeKeysOnly),
			DeletionProtectionEnabled: aws.Bool(true)})
		expectValidation(t, err, "One or more parameter values were invalid: DeletionProtection modification must be the only operation in the request")
		expectRawValidation(t, s, "UpdateTable", `{"TableName":"`+plain+`","StreamSpecification":{}}`,
			"1 validation error detected: Value null at 'streamSpecification.streamEnabled' failed to satisfy constraint: Member must not be null")
		if d := describeTable(t, c, plain); d.StreamSpecification != nil || d.LatestStreamArn != nil {
			t.Errorf("refused updates enabled a stream: %+v", d.StreamSpecification)
		}

		name, created := createStreamTable(t, c, "str_val", types.StreamViewTypeKeysOnly)
		arn := aws.ToString(created.LatestStreamArn)
		shard := aws.ToString(describeStream(t, sc, arn).Shards[0].ShardId)
		put(t, c, name, Item{"pk": S("a")})

		// ListStreams.
		missing := harness.TableName("str_none")
		expectRawStreams(t, s, "ListStreams", `{"TableName":"`+missing+`"}`, "ResourceNotFoundException", "Requested resource not found: Table: "+missing+" not found")
		expectRawStreams(t, s, "ListStreams", `{"TableName":"a;"}`, "ValidationException",
			"2 validation errors detected: Value 'a;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value 'a;' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3")
		expectRawStreams(t, s, "ListStreams", `{"Limit":0}`, "ValidationException",
			"1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
		expectRawStreams(t, s, "ListStreams", `{"Limit":101}`, "ValidationException",
			"1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100")

		// DescribeStream.
		gone := "arn:aws:dynamodb:us-east-1:000000000000:table/" + name + "/stream/2001-01-01T00:00:00.000"
		expectRawStreams(t, s, "DescribeStream", `{"StreamArn":"`+gone+`"}`, "ResourceNotFoundException", "Requested resource not found: Stream: "+gone+" not found")
		_, err = sc.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(gone)})
		var rnf *stypes.ResourceNotFoundException
		if !errors.As(err, &rnf) {
			t.Errorf("SDK DescribeStream of a missing stream: %v", err)
		}
		expectRawStreams(t, s, "DescribeStream", `{}`, "ValidationException",
			"1 validation error detected: Value null at 'streamArn' failed to satisfy constraint: Member must not be null")
		expectRawStreams(t, s, "DescribeStream", `{"StreamArn":"arn:short"}`, "ValidationException",
			"1 validation error detected: Value 'arn:short' at 'streamArn' failed to satisfy constraint: Member must have length greater than or equal to 37")

		// GetShardIterator.
		gsi := func(extra string) string {
			return `{"StreamArn":"` + arn + `","ShardId":"` + shard + `"` + extra + `}`
		}
		expectRawStreams(t, s, "GetShardIterator", gsi(``), "ValidationException",
			"1 validation error detected: Value null at 'shardIteratorType' failed to satisfy constraint: Member must not be null")
		expectRawStreams(t, s, "GetShardIterator", gsi(`,"ShardIteratorType":"AT_TIMESTAMP"`), "ValidationException",
			"1 validation error detected: Value 'AT_TIMESTAMP' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER, AFTER_SEQUENCE_NUMBER]")
		expectRawStreams(t, s, "GetShardIterator", gsi(`,"ShardIteratorType":"AT_SEQUENCE_NUMBER"`), "ValidationException",
			"Must specify a SequenceNumber for the AT_SEQUENCE_NUMBER shard iterator type")
		otherShard := "shardId-00000001700000000000-abcdef12"
		expectRawStreams(t, s, "GetShardIterator", `{"StreamArn":"`+arn+`","ShardId":"`+otherShard+`","ShardIteratorType":"LATEST"}`,
			"ResourceNotFoundException", "Requested resource not found: Shard: "+otherShard+" in Stream: "+arn+" not found")
		expectRawStreams(t, s, "GetShardIterator", `{"StreamArn":"`+gone+`","ShardId":"`+shard+`","ShardIteratorType":"LATEST"}`,
			"ResourceNotFoundException", "Requested resource not found: Stream: "+gone+" not found")

		// GetRecords.
		it := shardIterator(t, sc, arn, stypes.ShardIteratorTypeTrimHorizon, "")
		expectRawStreams(t, s, "GetRecords", `{}`, "ValidationException",
			"1 validation error detected: Value null at 'shardIterator' failed to satisfy constraint: Member must not be null")
		expectRawStreams(t, s, "GetRecords", `{"ShardIterator":"garbage-iterator"}`, "ValidationException", "Invalid ShardIterator")
		expectRawStreams(t, s, "GetRecords", `{"ShardIterator":"`+it[:len(it)-2]+`"}`, "ValidationException", "Invalid ShardIterator")
		expectRawStreams(t, s, "GetRecords", `{"ShardIterator":"`+it+`","Limit":1001}`, "ValidationException",
			"1 validation error detected: Value '1001' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 1000")
		expectRawStreams(t, s, "GetRecords", `{"ShardIterator":"`+it+`","Limit":0}`, "ValidationException",
			"1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
		_, err = sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(ageIterator(t, it, 16*time.Minute))})
		var expired *stypes.ExpiredIteratorException
		if !errors.As(err, &expired) {
			t.Errorf("GetRecords with a 16-minute-old iterator: %v", err)
		}
		if _, err := sc.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(ageIterator(t, it, 14*time.Minute))}); err != nil {
			t.Errorf("GetRecords with a 14-minute-old iterator: %v", err)
		}

		// An unknown operation of the Streams API.
		status, code, _ := rawStreamsCall(t, s, "DescribeTable", `{}`)
		if status != 400 || code != "UnknownOperationException" {
			t.Errorf("unknown Streams operation: %d %s", status, code)
		}
	})
}

// ageIterator re-issues an iterator as if it had been handed out age ago
// (the iterator's form is the server's: a CRC-32 in hex, then base64url JSON).
func ageIterator(t *testing.T, it string, age time.Duration) string {
	t.Helper()
	body, err := base64.RawURLEncoding.DecodeString(it[8:])
	if err != nil {
		t.Fatalf("iterator form changed: %v", err)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	must(t, dec.Decode(&m))
	m["i"] = time.Now().Add(-age).UnixMilli()
	body, _ = json.Marshal(m)
	return fmt.Sprintf("%08x", crc32.ChecksumIEEE(body)) + base64.RawURLEncoding.EncodeToString(body)
}

// TestStreamsUnchangedWrites: a write that leaves an item as it was writes
// no stream record, as the service does: an identical re-put (sets in
// another order, a number written another way), an UpdateItem that REMOVEs
// an absent attribute or SETs the values already there, the same put
// through BatchWriteItem, TransactWriteItems and PartiQL. A real change
// and the delete still write theirs.
func TestStreamsUnchangedWrites(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c, sc := s.Client(), streamsClient(s)
		ctx := harness.Ctx(t)
		name, created := createStreamTable(t, c, "str_same", types.StreamViewTypeNewAndOldImages)
		arn := aws.ToString(created.LatestStreamArn)
		key := Item{"pk": S("a")}
		item := Item{"pk": S("a"), "n": N("1"), "ss": SS("x", "y"), "ns": NS("10", "2"),
			"m": &types.AttributeValueMemberM{Value: Item{"k": S("v"), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{N("1"), S("b")}}}}}
		same := Item{"pk": S("a"), "n": N("1.0"), "ss": SS("y", "x"), "ns": NS("2", "10.00"),
			"m": &types.AttributeValueMemberM{Value: Item{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{N("1"), S("b")}}, "k": S("v")}}}
		step := func(what string, err error) {
			t.Helper()
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
		put(t, c, name, item)
		put(t, c, name, item)
		put(t, c, name, same)
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: key, UpdateExpression: aws.String("REMOVE absent")})
		step("UpdateItem REMOVE of an absent attribute", err)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: key,
			UpdateExpression: aws.String("SET n = :one, ss = :ss"), ExpressionAttributeValues: Item{":one": N("1"), ":ss": SS("y", "x")}})
		step("UpdateItem SET of the same values", err)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: key,
			UpdateExpression: aws.String("SET n = n + :zero"), ExpressionAttributeValues: Item{":zero": N("0")}})
		step("UpdateItem adding 0", err)
		_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			name: {{PutRequest: &types.PutRequest{Item: same}}}}})
		step("BatchWriteItem of the same item", err)
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(name), Item: same}}}})
		step("TransactWriteItems of the same item", err)
		_, err = c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`UPDATE "` + name + `" SET n = 1 WHERE pk = 'a'`)})
		step("PartiQL UPDATE of the same value", err)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: key,
			UpdateExpression: aws.String("SET n = :two"), ExpressionAttributeValues: Item{":two": N("2")}})
		step("UpdateItem of a new value", err)
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(name), Key: key})
		step("DeleteItem", err)

		recs, _ := readAll(t, sc, shardIterator(t, sc, arn, stypes.ShardIteratorTypeTrimHorizon, ""))
		if got := eventNames(recs); got != "INSERT,MODIFY,REMOVE" {
			t.Fatalf("events %s, want INSERT,MODIFY,REMOVE", got)
		}
		if n := recs[1].Dynamodb.OldImage["n"].(*stypes.AttributeValueMemberN).Value; n != "1" {
			t.Errorf("MODIFY's old n = %s, want 1", n)
		}
		if n := recs[1].Dynamodb.NewImage["n"].(*stypes.AttributeValueMemberN).Value; n != "2" {
			t.Errorf("MODIFY's new n = %s, want 2", n)
		}
	})
}
