package e2e

import (
	"net/url"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

const msgDeletionProtected = "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first."

func describe(t *testing.T, c *dynamodb.Client, name string) *types.TableDescription {
	t.Helper()
	out, err := c.DescribeTable(harness.Ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	must(t, err)
	return out.Table
}

func TestControlDeletionProtection(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := harness.TableName("ctl_dp")
		out, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
			BillingMode: types.BillingModePayPerRequest, DeletionProtectionEnabled: aws.Bool(true),
		})
		must(t, err)
		if !aws.ToBool(out.TableDescription.DeletionProtectionEnabled) {
			t.Error("CreateTable DeletionProtectionEnabled = false")
		}
		put(t, c, name, Item{"pk": S("a")})
		_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		expectValidation(t, err, msgDeletionProtected)
		d := describe(t, c, name)
		if !aws.ToBool(d.DeletionProtectionEnabled) || d.TableStatus != types.TableStatusActive {
			t.Errorf("after refused delete: protection=%v status=%s", aws.ToBool(d.DeletionProtectionEnabled), d.TableStatus)
		}
		if get(t, c, name, Item{"pk": S("a")}) == nil {
			t.Error("refused DeleteTable lost the item")
		}

		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(false), TableClass: types.TableClassStandard})
		expectValidation(t, err, "One or more parameter values were invalid: TableClass modification must be the only operation in the request")
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(false), BillingMode: types.BillingModePayPerRequest})
		expectValidation(t, err, "One or more parameter values were invalid: DeletionProtection modification must be the only operation in the request")
		if !aws.ToBool(describe(t, c, name).DeletionProtectionEnabled) {
			t.Error("a refused UpdateTable turned protection off")
		}

		up, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(false)})
		must(t, err)
		if aws.ToBool(up.TableDescription.DeletionProtectionEnabled) {
			t.Error("UpdateTable answer still protected")
		}
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(true)})
		must(t, err)
		_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		expectValidation(t, err, msgDeletionProtected)
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), DeletionProtectionEnabled: aws.Bool(false)})
		must(t, err)
		_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		must(t, err)

		expectRawValidation(t, s, "UpdateTable", `{"TableName":"`+name+`"}`,
			"At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, DeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is required")
	})
}

func TestControlTableClassAndSSE(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)

		// Defaults: no summary, no SSE description (AWS owned key).
		plain := createHashTable(t, c, "ctl_plain")
		d := describe(t, c, plain)
		if d.TableClassSummary != nil || d.SSEDescription != nil || d.OnDemandThroughput != nil || aws.ToBool(d.DeletionProtectionEnabled) {
			t.Errorf("defaults: class=%+v sse=%+v od=%+v", d.TableClassSummary, d.SSEDescription, d.OnDemandThroughput)
		}

		name := harness.TableName("ctl_class")
		out, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
			BillingMode: types.BillingModePayPerRequest, TableClass: types.TableClassStandardInfrequentAccess,
			SSESpecification: &types.SSESpecification{Enabled: aws.Bool(true), SSEType: types.SSETypeKms, KMSMasterKeyId: aws.String("1234abcd-12ab-34cd-56ef-1234567890ab")},
		})
		must(t, err)
		region := strings.Split(aws.ToString(out.TableDescription.TableArn), ":")[3]
		wantKey := "arn:aws:kms:" + region + ":000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab"
		for _, d := range []*types.TableDescription{out.TableDescription, describe(t, c, name)} {
			if d.TableClassSummary == nil || d.TableClassSummary.TableClass != types.TableClassStandardInfrequentAccess {
				t.Errorf("TableClassSummary = %+v", d.TableClassSummary)
			}
			if sse := d.SSEDescription; sse == nil || sse.Status != types.SSEStatusEnabled || sse.SSEType != types.SSETypeKms || aws.ToString(sse.KMSMasterKeyArn) != wantKey {
				t.Errorf("SSEDescription = %+v", sse)
			}
		}

		up, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), TableClass: types.TableClassStandard})
		must(t, err)
		if cs := up.TableDescription.TableClassSummary; cs == nil || cs.TableClass != types.TableClassStandard || cs.LastUpdateDateTime == nil {
			t.Errorf("UpdateTable TableClassSummary = %+v", cs)
		}
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), SSESpecification: &types.SSESpecification{Enabled: aws.Bool(false)}})
		must(t, err)
		if d := describe(t, c, name); d.SSEDescription != nil || d.TableClassSummary.TableClass != types.TableClassStandard {
			t.Errorf("after updates: sse=%+v class=%+v", d.SSEDescription, d.TableClassSummary)
		}
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), SSESpecification: &types.SSESpecification{Enabled: aws.Bool(false)}})
		expectValidation(t, err, "One or more parameter values were invalid: Table is already encrypted by default")
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), SSESpecification: &types.SSESpecification{Enabled: aws.Bool(true)}})
		must(t, err)
		if sse := describe(t, c, name).SSEDescription; sse == nil || !strings.HasPrefix(aws.ToString(sse.KMSMasterKeyArn), "arn:aws:kms:"+region+":000000000000:key/") {
			t.Errorf("managed-key SSEDescription = %+v", sse)
		}
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), SSESpecification: &types.SSESpecification{Enabled: aws.Bool(false)}, DeletionProtectionEnabled: aws.Bool(true)})
		expectValidation(t, err, "One or more parameter values were invalid: Server-Side Encryption modification must be the only operation in the request")

		// Refusals at CreateTable create nothing.
		for _, tc := range []struct {
			body, msg string
		}{
			{`"TableClass":"GLACIER"`, "Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS]."},
			{`"SSESpecification":{"Enabled":false,"SSEType":"KMS"}`, "One or more parameter values were invalid: SSEType can not be specified if Enabled is false"},
			{`"SSESpecification":{"KMSMasterKeyId":"k"}`, "One or more parameter values were invalid: KMSMasterKeyId can not be specified if Enabled is false"},
			{`"SSESpecification":{"Enabled":true,"SSEType":"AES256"}`, "One or more parameter values were invalid: SSEType AES256 is not supported"},
			{`"SSESpecification":{"Enabled":true,"SSEType":"XX"}`, "1 validation error detected: Value 'XX' at 'sSESpecification.sSEType' failed to satisfy constraint: Member must satisfy enum value set: [AES256, KMS]"},
			{`"OnDemandThroughput":{"MaxReadRequestUnits":0}`, "One or more parameter values were invalid: Requested MaxReadRequestUnits for OnDemandThroughput for table is outside of valid range"},
		} {
			bad := harness.TableName("ctl_bad")
			body := `{"TableName":"` + bad + `","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST",` + tc.body + `}`
			expectRawValidation(t, s, "CreateTable", body, tc.msg)
			_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(bad)})
			expectNotFound(t, err)
		}
		expectRawValidation(t, s, "UpdateTable", `{"TableName":"`+name+`","TableClass":"GLACIER"}`,
			"Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS].")
	})
}

func TestControlOnDemandThroughput(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := harness.TableName("ctl_odt")
		out, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
			BillingMode:        types.BillingModePayPerRequest,
			OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(100), MaxWriteRequestUnits: aws.Int64(50)},
		})
		must(t, err)
		for _, d := range []*types.TableDescription{out.TableDescription, describe(t, c, name)} {
			if od := d.OnDemandThroughput; od == nil || aws.ToInt64(od.MaxReadRequestUnits) != 100 || aws.ToInt64(od.MaxWriteRequestUnits) != 50 {
				t.Errorf("OnDemandThroughput = %+v", od)
			}
		}
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(200)}})
		must(t, err)
		if od := describe(t, c, name).OnDemandThroughput; od == nil || aws.ToInt64(od.MaxReadRequestUnits) != 200 || aws.ToInt64(od.MaxWriteRequestUnits) != 50 {
			t.Errorf("after update OnDemandThroughput = %+v", od)
		}
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(300)}, TableClass: types.TableClassStandard})
		expectValidation(t, err, "One or more parameter values were invalid: TableClass modification must be the only operation in the request")
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(300)},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String("nope")}}}})
		expectValidation(t, err, "One or more parameter values were invalid: OnDemandThroughput can only be combined with BillingMode in an UpdateTable request")
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), OnDemandThroughput: &types.OnDemandThroughput{MaxWriteRequestUnits: aws.Int64(-5)}})
		expectValidation(t, err, "One or more parameter values were invalid: Requested MaxWriteRequestUnits for OnDemandThroughput for table is outside of valid range")
		if od := describe(t, c, name).OnDemandThroughput; od == nil || aws.ToInt64(od.MaxReadRequestUnits) != 200 {
			t.Errorf("refused updates changed OnDemandThroughput: %+v", od)
		}
		// -1 clears a maximum; switching to PROVISIONED drops them.
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(-1)}})
		must(t, err)
		if od := describe(t, c, name).OnDemandThroughput; od == nil || aws.ToInt64(od.MaxReadRequestUnits) != -1 || aws.ToInt64(od.MaxWriteRequestUnits) != 50 {
			t.Errorf("after clear OnDemandThroughput = %+v", od)
		}
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), BillingMode: types.BillingModeProvisioned,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}})
		must(t, err)
		if od := describe(t, c, name).OnDemandThroughput; od != nil {
			t.Errorf("PROVISIONED table still shows OnDemandThroughput %+v", od)
		}
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), OnDemandThroughput: &types.OnDemandThroughput{MaxReadRequestUnits: aws.Int64(10)}})
		expectValidation(t, err, "One or more parameter values were invalid: MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED")
	})
}

func TestControlGSIUpdateEcho(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := harness.TableName("ctl_gsiup")
		pt := func(r, w int64) *types.ProvisionedThroughput {
			return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
		}
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S", "g", "S"), KeySchema: keySchema("pk"),
			ProvisionedThroughput: pt(5, 5),
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
				IndexName: aws.String("gsi"), KeySchema: keySchema("g"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}, ProvisionedThroughput: pt(3, 4),
			}},
		})
		must(t, err)
		waitActive(t, c, name)
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
			{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("gsi"), ProvisionedThroughput: pt(7, 9)}},
		}})
		must(t, err)
		waitActive(t, c, name)
		d := describe(t, c, name)
		if len(d.GlobalSecondaryIndexes) != 1 {
			t.Fatalf("GSIs = %d", len(d.GlobalSecondaryIndexes))
		}
		g := d.GlobalSecondaryIndexes[0]
		if p := g.ProvisionedThroughput; p == nil || aws.ToInt64(p.ReadCapacityUnits) != 7 || aws.ToInt64(p.WriteCapacityUnits) != 9 {
			t.Errorf("GSI throughput after Update = %+v", p)
		}
		if p := d.ProvisionedThroughput; aws.ToInt64(p.ReadCapacityUnits) != 5 || aws.ToInt64(p.WriteCapacityUnits) != 5 {
			t.Errorf("table throughput changed: %+v", p)
		}
	})
}

func TestControlLimitsAndEndpoints(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		lim, err := c.DescribeLimits(ctx, &dynamodb.DescribeLimitsInput{})
		must(t, err)
		if aws.ToInt64(lim.AccountMaxReadCapacityUnits) != 80000 || aws.ToInt64(lim.AccountMaxWriteCapacityUnits) != 80000 ||
			aws.ToInt64(lim.TableMaxReadCapacityUnits) != 40000 || aws.ToInt64(lim.TableMaxWriteCapacityUnits) != 40000 {
			t.Errorf("DescribeLimits = %+v", lim)
		}
		ep, err := c.DescribeEndpoints(ctx, &dynamodb.DescribeEndpointsInput{})
		must(t, err)
		u, _ := url.Parse(s.URL)
		if len(ep.Endpoints) != 1 || aws.ToString(ep.Endpoints[0].Address) != u.Host || ep.Endpoints[0].CachePeriodInMinutes != 1440 {
			t.Errorf("DescribeEndpoints = %+v, want address %s", ep.Endpoints, u.Host)
		}
	})
}
