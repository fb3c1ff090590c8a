package e2e

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
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
