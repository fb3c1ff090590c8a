package e2e

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

func ttlStatus(t *testing.T, c *dynamodb.Client, name string) string {
	t.Helper()
	out, err := c.DescribeTimeToLive(harness.Ctx(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	must(t, err)
	d := out.TimeToLiveDescription
	if d == nil {
		t.Fatal("no TimeToLiveDescription")
	}
	return string(d.TimeToLiveStatus) + ":" + aws.ToString(d.AttributeName)
}

func updateTTL(c *dynamodb.Client, t *testing.T, name, attr string, on bool) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return c.UpdateTimeToLive(harness.Ctx(t), &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(attr), Enabled: aws.Bool(on)},
	})
}

func TestControlTTL(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		name := createHashTable(t, c, "ctl_ttl")
		if got := ttlStatus(t, c, name); got != "DISABLED:" {
			t.Errorf("new table TTL = %s", got)
		}
		_, err := updateTTL(c, t, name, "exp", false)
		expectValidation(t, err, "TimeToLive is already disabled")

		out, err := updateTTL(c, t, name, "exp", true)
		must(t, err)
		if sp := out.TimeToLiveSpecification; sp == nil || aws.ToString(sp.AttributeName) != "exp" || !aws.ToBool(sp.Enabled) {
			t.Errorf("UpdateTimeToLive echo = %+v", sp)
		}
		if got := ttlStatus(t, c, name); got != "ENABLED:exp" {
			t.Errorf("TTL after enable = %s", got)
		}
		_, err = updateTTL(c, t, name, "exp", true)
		expectValidation(t, err, "TimeToLive is already enabled")
		_, err = updateTTL(c, t, name, "other", true)
		expectValidation(t, err, "TimeToLive is already enabled")
		_, err = updateTTL(c, t, name, "other", false)
		expectValidation(t, err, "TimeToLive is active on a different AttributeName: current AttributeName is exp")
		if got := ttlStatus(t, c, name); got != "ENABLED:exp" {
			t.Errorf("refused updates changed TTL: %s", got)
		}

		out, err = updateTTL(c, t, name, "exp", false)
		must(t, err)
		if sp := out.TimeToLiveSpecification; sp == nil || aws.ToBool(sp.Enabled) {
			t.Errorf("UpdateTimeToLive disable echo = %+v", sp)
		}
		if got := ttlStatus(t, c, name); got != "DISABLED:" {
			t.Errorf("TTL after disable = %s", got)
		}

		// The specification survives other table changes.
		_, err = updateTTL(c, t, name, "exp2", true)
		must(t, err)
		_, err = c.UpdateTable(harness.Ctx(t), &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(false)})
		must(t, err)
		if got := ttlStatus(t, c, name); got != "ENABLED:exp2" {
			t.Errorf("TTL after UpdateTable = %s", got)
		}
	})
}

func TestControlTTLValidation(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		missing := harness.TableName("ctl_ttl_none")
		_, err := updateTTL(c, t, missing, "exp", true)
		expectAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+missing+" not found")
		_, err = c.DescribeTimeToLive(harness.Ctx(t), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(missing)})
		expectAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Table: "+missing+" not found")

		lengthMsg := "TableName must be at least 3 characters long and at most 255 characters long"
		for _, op := range []string{"DescribeTimeToLive", "UpdateTimeToLive"} {
			expectRawValidation(t, s, op, `{}`, "The parameter 'TableName' is required but was not present in the request")
			expectRawValidation(t, s, op, `{"TableName":""}`, lengthMsg)
			expectRawValidation(t, s, op, `{"TableName":"a;"}`, lengthMsg)
			expectRawValidation(t, s, op, `{"TableName":"`+strings.Repeat("a", 256)+`"}`, lengthMsg)
		}
		expectRawValidation(t, s, "DescribeTimeToLive", `{"TableName":"abc;"}`,
			"1 validation error detected: Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
		expectRawValidation(t, s, "UpdateTimeToLive", `{"TableName":"abc"}`,
			"1 validation error detected: Value null at 'timeToLiveSpecification' failed to satisfy constraint: Member must not be null")
		expectRawValidation(t, s, "UpdateTimeToLive", `{"TableName":"abc","TimeToLiveSpecification":{}}`,
			"2 validation errors detected: Value null at 'timeToLiveSpecification.enabled' failed to satisfy constraint: Member must not be null; Value null at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must not be null")
	})
}

// ttlServer runs a dedicated server on a fresh database of the backend
// whose TTL sweeper passes every 100 ms.
func ttlServer(t *testing.T, backend string) *harness.Server {
	t.Helper()
	db := "sqlite:" + filepath.Join(t.TempDir(), "ttl.db")
	if backend == "postgres" {
		db = pgtest.URL(t)
	}
	return harness.StartDB(t, backend, db, "--ttl-interval", "100ms")
}

// TestTTLSweeperDeletes enables TTL on a table with a stream: the sweeper
// deletes the item whose TTL attribute is in the past, keeps those whose
// attribute is in the future, not a number or absent, and its deletion
// reaches the stream as a REMOVE by the service.
func TestTTLSweeperDeletes(t *testing.T) {
	t.Parallel()
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			s := ttlServer(t, backend)
			c, sc := s.Client(), streamsClient(s)
			name, created := createStreamTable(t, c, "ttl_sweep", types.StreamViewTypeNewAndOldImages)
			_, err := updateTTL(c, t, name, "exp", true)
			must(t, err)
			if got := ttlStatus(t, c, name); got != "ENABLED:exp" {
				t.Fatalf("DescribeTimeToLive = %s", got)
			}
			now := time.Now().Unix()
			epoch := func(d int64) types.AttributeValue { return N(strconv.FormatInt(now+d, 10)) }
			kept := []Item{
				{"pk": S("future"), "exp": epoch(3600)},
				{"pk": S("string"), "exp": S(strconv.FormatInt(now-3600, 10))},
				{"pk": S("none")},
			}
			for _, it := range kept {
				put(t, c, name, it)
			}
			put(t, c, name, Item{"pk": S("expired"), "exp": epoch(-60)})

			deadline := time.Now().Add(60 * time.Second)
			for get(t, c, name, Item{"pk": S("expired")}) != nil {
				if time.Now().After(deadline) {
					t.Fatal("the expired item was not deleted by the TTL sweeper")
				}
				time.Sleep(50 * time.Millisecond)
			}
			for _, it := range kept {
				if got := get(t, c, name, Item{"pk": it["pk"]}); got == nil {
					t.Errorf("the sweeper deleted %s", it["pk"].(*types.AttributeValueMemberS).Value)
				}
			}

			recs, _ := readAll(t, sc, shardIterator(t, sc, aws.ToString(created.LatestStreamArn), stypes.ShardIteratorTypeTrimHorizon, ""))
			var removes []stypes.Record
			for _, r := range recs {
				if r.EventName == stypes.OperationTypeRemove {
					removes = append(removes, r)
				} else if r.UserIdentity != nil {
					t.Errorf("a client's %s record has userIdentity %+v", r.EventName, r.UserIdentity)
				}
			}
			if len(removes) != 1 || imageText(removes[0].Dynamodb.Keys) != "pk=expired" {
				t.Fatalf("REMOVE records = %d (%s)", len(removes), eventNames(recs))
			}
			r := removes[0]
			if id := r.UserIdentity; id == nil || aws.ToString(id.PrincipalId) != "dynamodb.amazonaws.com" || aws.ToString(id.Type) != "Service" {
				t.Errorf("TTL REMOVE userIdentity = %+v, want {dynamodb.amazonaws.com Service}", id)
			}
			if r.Dynamodb.OldImage == nil || r.Dynamodb.NewImage != nil {
				t.Errorf("TTL REMOVE images: old %v new %v", r.Dynamodb.OldImage, r.Dynamodb.NewImage)
			}
		})
	}
}
