package e2e

import (
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// The WarmThroughput of tables and global indexes and the
// OnDemandThroughput of global indexes: validated, stored and echoed as the
// service does (Terraform reads them back).

const onDemandInitialURL = "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html#on-demand-capacity-mode-initial"

func pt(r, w int64) *types.ProvisionedThroughput {
	return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
}

func warm(r, w int64) *types.WarmThroughput {
	wt := &types.WarmThroughput{}
	if r != 0 {
		wt.ReadUnitsPerSecond = aws.Int64(r)
	}
	if w != 0 {
		wt.WriteUnitsPerSecond = aws.Int64(w)
	}
	return wt
}

func odt(r, w int64) *types.OnDemandThroughput {
	o := &types.OnDemandThroughput{}
	if r != 0 {
		o.MaxReadRequestUnits = aws.Int64(r)
	}
	if w != 0 {
		o.MaxWriteRequestUnits = aws.Int64(w)
	}
	return o
}

// warmText renders a table's WarmThroughput: "read/write STATUS", or "nil".
func warmText(w *types.TableWarmThroughputDescription) string {
	if w == nil {
		return "nil"
	}
	return itoa64(aws.ToInt64(w.ReadUnitsPerSecond)) + "/" + itoa64(aws.ToInt64(w.WriteUnitsPerSecond)) + " " + string(w.Status)
}

func gsiWarmText(w *types.GlobalSecondaryIndexWarmThroughputDescription) string {
	if w == nil {
		return "nil"
	}
	return itoa64(aws.ToInt64(w.ReadUnitsPerSecond)) + "/" + itoa64(aws.ToInt64(w.WriteUnitsPerSecond)) + " " + string(w.Status)
}

// odtText renders an index's OnDemandThroughput: "read/write" with "-" for
// a member left out, or "nil".
func odtText(o *types.OnDemandThroughput) string {
	if o == nil {
		return "nil"
	}
	m := func(v *int64) string {
		if v == nil {
			return "-"
		}
		return itoa64(*v)
	}
	return m(o.MaxReadRequestUnits) + "/" + m(o.MaxWriteRequestUnits)
}

func itoa64(v int64) string { return strconv.FormatInt(v, 10) }

func findGSI(d *types.TableDescription, name string) *types.GlobalSecondaryIndexDescription {
	for i := range d.GlobalSecondaryIndexes {
		if aws.ToString(d.GlobalSecondaryIndexes[i].IndexName) == name {
			return &d.GlobalSecondaryIndexes[i]
		}
	}
	return nil
}

// waitIndexesActive polls DescribeTable until the table and every global
// index are ACTIVE.
func waitIndexesActive(t *testing.T, c *dynamodb.Client, name string) *types.TableDescription {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		d := describe(t, c, name)
		active := d.TableStatus == types.TableStatusActive
		for _, g := range d.GlobalSecondaryIndexes {
			active = active && g.IndexStatus == types.IndexStatusActive
		}
		if active {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("table %s: indexes not ACTIVE: %+v", name, d.GlobalSecondaryIndexes)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func gsiUpdate(name string, u types.UpdateGlobalSecondaryIndexAction) []types.GlobalSecondaryIndexUpdate {
	u.IndexName = aws.String(name)
	return []types.GlobalSecondaryIndexUpdate{{Update: &u}}
}

func TestControlWarmThroughput(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		create := func(name string, in dynamodb.CreateTableInput) (*dynamodb.CreateTableOutput, error) {
			in.TableName, in.AttributeDefinitions, in.KeySchema = aws.String(name), attrDefs("pk", "S"), keySchema("pk")
			return c.CreateTable(ctx, &in)
		}

		// Defaults: on demand 12000/4000, provisioned its capacity; the
		// CreateTable answer has none.
		ppr := harness.TableName("ctl_warm_ppr")
		out, err := create(ppr, dynamodb.CreateTableInput{BillingMode: types.BillingModePayPerRequest})
		must(t, err)
		if out.TableDescription.WarmThroughput != nil {
			t.Errorf("CreateTable answer WarmThroughput = %s", warmText(out.TableDescription.WarmThroughput))
		}
		if got := warmText(describe(t, c, ppr).WarmThroughput); got != "12000/4000 ACTIVE" {
			t.Errorf("on-demand table WarmThroughput = %s", got)
		}
		prov := harness.TableName("ctl_warm_prov")
		_, err = create(prov, dynamodb.CreateTableInput{ProvisionedThroughput: pt(5, 5)})
		must(t, err)
		if got := warmText(describe(t, c, prov).WarmThroughput); got != "5/5 ACTIVE" {
			t.Errorf("provisioned table WarmThroughput = %s", got)
		}

		// It follows increases of the provisioned throughput, not decreases.
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(prov), ProvisionedThroughput: pt(7, 6)})
		must(t, err)
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(prov), ProvisionedThroughput: pt(2, 2)})
		must(t, err)
		if got := warmText(describe(t, c, prov).WarmThroughput); got != "7/6 ACTIVE" {
			t.Errorf("WarmThroughput after 7/6 then 2/2 = %s", got)
		}
		// A request raises it, never lowers it; a member left out stays.
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(prov), WarmThroughput: warm(6, 0)})
		expectValidation(t, err, "One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for table is lower than current WarmThroughput, decreasing WarmThroughput is not supported")
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(prov), WarmThroughput: warm(50, 5)})
		expectValidation(t, err, "One or more parameter values were invalid: Requested WriteUnitsPerSecond for WarmThroughput for table is lower than current WarmThroughput, decreasing WarmThroughput is not supported")
		up, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(prov), WarmThroughput: warm(50, 0)})
		must(t, err)
		if got := warmText(up.TableDescription.WarmThroughput); got != "50/6 ACTIVE" {
			t.Errorf("UpdateTable answer WarmThroughput = %s", got)
		}
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(prov), WarmThroughput: warm(50, 6)})
		must(t, err) // the current value again
		// A switch to on demand raises it to the on-demand floor, which stays.
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(prov), BillingMode: types.BillingModePayPerRequest})
		must(t, err)
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(prov), BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: pt(1, 1)})
		must(t, err)
		if got := warmText(describe(t, c, prov).WarmThroughput); got != "12000/4000 ACTIVE" {
			t.Errorf("WarmThroughput after on demand and back = %s", got)
		}

		// Given at creation: at least the floor; the answer shows it UPDATING.
		hot := harness.TableName("ctl_warm_hot")
		out, err = create(hot, dynamodb.CreateTableInput{BillingMode: types.BillingModePayPerRequest, WarmThroughput: warm(13000, 0)})
		must(t, err)
		if got := warmText(out.TableDescription.WarmThroughput); got != "13000/4000 UPDATING" {
			t.Errorf("CreateTable answer WarmThroughput = %s", got)
		}
		if got := warmText(describe(t, c, hot).WarmThroughput); got != "13000/4000 ACTIVE" {
			t.Errorf("WarmThroughput given at creation = %s", got)
		}
		for _, tc := range []struct {
			in  dynamodb.CreateTableInput
			msg string
		}{
			{dynamodb.CreateTableInput{BillingMode: types.BillingModePayPerRequest, WarmThroughput: warm(1, 1)},
				"One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand. See: " + onDemandInitialURL},
			{dynamodb.CreateTableInput{BillingMode: types.BillingModePayPerRequest, WarmThroughput: warm(12000, 3999)},
				"One or more parameter values were invalid: Requested WriteUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand. See: " + onDemandInitialURL},
			{dynamodb.CreateTableInput{ProvisionedThroughput: pt(10, 10), WarmThroughput: warm(5, 5)},
				"One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for table is lower than ReadCapacityUnits of ProvisionedThroughput"},
		} {
			bad := harness.TableName("ctl_warm_bad")
			_, err := create(bad, tc.in)
			expectValidation(t, err, tc.msg)
			_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(bad)})
			expectNotFound(t, err)
		}

		// WarmThroughput is an UpdateTable of its own.
		for _, tc := range []struct {
			in  dynamodb.UpdateTableInput
			msg string
		}{
			{dynamodb.UpdateTableInput{DeletionProtectionEnabled: aws.Bool(true)}, "DeletionProtection modification must be the only operation in the request"},
			{dynamodb.UpdateTableInput{TableClass: types.TableClassStandard}, "TableClass modification must be the only operation in the request"},
			{dynamodb.UpdateTableInput{OnDemandThroughput: odt(10, 0)}, "OnDemandThroughput can only be combined with BillingMode in an UpdateTable request"},
			{dynamodb.UpdateTableInput{BillingMode: types.BillingModePayPerRequest}, "WarmThroughput must be the only operation in the request"},
			{dynamodb.UpdateTableInput{StreamSpecification: streamSpec(true, types.StreamViewTypeKeysOnly)}, "WarmThroughput must be the only operation in the request"},
			{dynamodb.UpdateTableInput{AttributeDefinitions: attrDefs("g", "S"), GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("gsi"), KeySchema: keySchema("g"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}},
				"Create global secondary index cannot be specified when updating WarmThroughput"},
		} {
			in := tc.in
			in.TableName, in.WarmThroughput = aws.String(hot), warm(14000, 0)
			_, err := c.UpdateTable(ctx, &in)
			expectValidation(t, err, "One or more parameter values were invalid: "+tc.msg)
		}
		if got := warmText(describe(t, c, hot).WarmThroughput); got != "13000/4000 ACTIVE" {
			t.Errorf("refused updates changed WarmThroughput: %s", got)
		}
	})
}

func TestControlGSIThroughput(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := harness.TableName("ctl_gsi_tp")
		all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
		out, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S", "a", "S", "b", "S"), KeySchema: keySchema("pk"),
			BillingMode: types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
				{IndexName: aws.String("gsa"), KeySchema: keySchema("a"), Projection: all, OnDemandThroughput: odt(100, 50), WarmThroughput: warm(13000, 5000)},
				{IndexName: aws.String("gsb"), KeySchema: keySchema("b"), Projection: all},
			},
		})
		must(t, err)
		for _, g := range out.TableDescription.GlobalSecondaryIndexes {
			if g.WarmThroughput != nil {
				t.Errorf("CreateTable answer: index %s WarmThroughput %s", aws.ToString(g.IndexName), gsiWarmText(g.WarmThroughput))
			}
		}
		check := func(what, index, wantODT, wantWarm string) {
			t.Helper()
			g := findGSI(describe(t, c, name), index)
			if g == nil {
				t.Fatalf("%s: no index %s", what, index)
			}
			if got := odtText(g.OnDemandThroughput); got != wantODT {
				t.Errorf("%s: index %s OnDemandThroughput = %s, want %s", what, index, got, wantODT)
			}
			if got := gsiWarmText(g.WarmThroughput); got != wantWarm {
				t.Errorf("%s: index %s WarmThroughput = %s, want %s", what, index, got, wantWarm)
			}
		}
		waitIndexesActive(t, c, name)
		check("created", "gsa", "100/50", "13000/5000 ACTIVE")
		check("created", "gsb", "nil", "12000/4000 ACTIVE")

		// Update: OnDemandThroughput merges by member, -1 clears one.
		update := func(index string, u types.UpdateGlobalSecondaryIndexAction) error {
			_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), GlobalSecondaryIndexUpdates: gsiUpdate(index, u)})
			return err
		}
		must(t, update("gsa", types.UpdateGlobalSecondaryIndexAction{OnDemandThroughput: odt(200, 0)}))
		check("read maximum raised", "gsa", "200/50", "13000/5000 ACTIVE")
		must(t, update("gsa", types.UpdateGlobalSecondaryIndexAction{OnDemandThroughput: odt(0, -1)}))
		check("write maximum cleared", "gsa", "200/-", "13000/5000 ACTIVE")
		must(t, update("gsb", types.UpdateGlobalSecondaryIndexAction{WarmThroughput: warm(0, 4500), OnDemandThroughput: odt(7, 8)}))
		check("warm and maxima set", "gsb", "7/8", "12000/4500 ACTIVE")
		err = update("gsa", types.UpdateGlobalSecondaryIndexAction{WarmThroughput: warm(12999, 0)})
		expectValidation(t, err, "One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for index gsa is lower than current WarmThroughput, decreasing WarmThroughput is not supported")
		err = update("gsa", types.UpdateGlobalSecondaryIndexAction{OnDemandThroughput: odt(0, -2)})
		expectValidation(t, err, "One or more parameter values were invalid: Requested MaxWriteRequestUnits for OnDemandThroughput for index : gsa is outside of valid range")
		err = update("gsa", types.UpdateGlobalSecondaryIndexAction{ProvisionedThroughput: pt(1, 1)})
		expectValidation(t, err, "One or more parameter values were invalid: The only Updates for index: gsa when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput")
		err = update("ghost", types.UpdateGlobalSecondaryIndexAction{OnDemandThroughput: odt(1, 1)})
		expectAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: Index ghost for table "+name)
		check("refused updates", "gsa", "200/-", "13000/5000 ACTIVE")

		// A Create carries them too; they survive the online build.
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("c", "S"),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: aws.String("gsc"), KeySchema: keySchema("c"), Projection: all, OnDemandThroughput: odt(10, 0), WarmThroughput: warm(12500, 0)}}}})
		must(t, err)
		waitIndexesActive(t, c, name)
		check("created by UpdateTable", "gsc", "10/-", "12500/4000 ACTIVE")

		// Provisioned: the maxima go, the warm throughput stays.
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), BillingMode: types.BillingModeProvisioned, ProvisionedThroughput: pt(5, 5),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
				{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("gsa"), ProvisionedThroughput: pt(5, 5)}},
				{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("gsb"), ProvisionedThroughput: pt(5, 5)}},
				{Update: &types.UpdateGlobalSecondaryIndexAction{IndexName: aws.String("gsc"), ProvisionedThroughput: pt(5, 5)}},
			}})
		must(t, err)
		waitIndexesActive(t, c, name)
		check("provisioned", "gsa", "nil", "13000/5000 ACTIVE")
		check("provisioned", "gsc", "nil", "12500/4000 ACTIVE")
		err = update("gsa", types.UpdateGlobalSecondaryIndexAction{OnDemandThroughput: odt(10, 0)})
		expectValidation(t, err, "One or more parameter values were invalid: MaxReadRequestUnits for OnDemandThroughput for index : gsa cannot be specified when the table BillingMode is PROVISIONED")
		err = update("gsa", types.UpdateGlobalSecondaryIndexAction{ProvisionedThroughput: pt(5, 5)})
		expectValidation(t, err, "The provisioned throughput for the index gsa will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for index gsa: 5. Requested ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for index gsa: 5. Requested WriteCapacityUnits: 5. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")
		must(t, update("gsa", types.UpdateGlobalSecondaryIndexAction{WarmThroughput: warm(14000, 0)}))
		check("warm raised on a provisioned table", "gsa", "nil", "14000/5000 ACTIVE")
	})
}

func TestControlGSIThroughputValidation(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
		for _, tc := range []struct {
			prov bool
			gsi  types.GlobalSecondaryIndex
			msg  string
		}{
			{true, types.GlobalSecondaryIndex{ProvisionedThroughput: pt(1, 1), OnDemandThroughput: odt(10, 10)},
				"MaxReadRequestUnits for OnDemandThroughput for index : gsi cannot be specified when the table BillingMode is PROVISIONED"},
			{false, types.GlobalSecondaryIndex{OnDemandThroughput: odt(-1, 0)},
				"Requested MaxReadRequestUnits for OnDemandThroughput for index : gsi is outside of valid range"},
			{false, types.GlobalSecondaryIndex{WarmThroughput: warm(100, 0)},
				"Requested ReadUnitsPerSecond for WarmThroughput for index gsi is lower than initial throughput for OnDemand. See: " + onDemandInitialURL},
			{true, types.GlobalSecondaryIndex{ProvisionedThroughput: pt(10, 10), WarmThroughput: warm(0, 9)},
				"Requested WriteUnitsPerSecond for WarmThroughput for index gsi is lower than WriteCapacityUnits of ProvisionedThroughput"},
		} {
			g := tc.gsi
			g.IndexName, g.KeySchema, g.Projection = aws.String("gsi"), keySchema("g"), all
			in := &dynamodb.CreateTableInput{TableName: aws.String(harness.TableName("ctl_gsi_bad")), AttributeDefinitions: attrDefs("pk", "S", "g", "S"),
				KeySchema: keySchema("pk"), GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{g}, BillingMode: types.BillingModePayPerRequest}
			if tc.prov {
				in.BillingMode, in.ProvisionedThroughput = types.BillingModeProvisioned, pt(1, 1)
			}
			_, err := c.CreateTable(ctx, in)
			expectValidation(t, err, "One or more parameter values were invalid: "+tc.msg)
		}

		// Empty structures are ignored at creation; an Update must name a
		// member of its WarmThroughput, checked before the table is read.
		name := harness.TableName("ctl_gsi_val")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S", "g", "S"),
			KeySchema: keySchema("pk"), BillingMode: types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"), KeySchema: keySchema("g"), Projection: all,
				OnDemandThroughput: &types.OnDemandThroughput{}, WarmThroughput: &types.WarmThroughput{}}}})
		must(t, err)
		g := findGSI(waitIndexesActive(t, c, name), "gsi")
		if g.OnDemandThroughput != nil || gsiWarmText(g.WarmThroughput) != "12000/4000 ACTIVE" {
			t.Errorf("index with empty structures: %s %s", odtText(g.OnDemandThroughput), gsiWarmText(g.WarmThroughput))
		}
		for _, table := range []string{name, harness.TableName("ctl_gsi_none")} {
			expectRawValidation(t, s, "UpdateTable", `{"TableName":"`+table+`","GlobalSecondaryIndexUpdates":[{"Update":{"IndexName":"gsi","WarmThroughput":{}}}]}`,
				"One or more parameter values were invalid: WarmThroughput must have at least one of ReadUnitsPerSecond or WriteUnitsPerSecond specified for index: gsi")
		}
		expectRawValidation(t, s, "UpdateTable", `{"TableName":"`+name+`","GlobalSecondaryIndexUpdates":[{"Update":{"IndexName":"gsi"}}]}`,
			"One or more parameter values were invalid: The only Updates for index: gsi when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput")
		expectRawValidation(t, s, "UpdateTable", `{"TableName":"`+name+`","GlobalSecondaryIndexUpdates":[{"Update":{"IndexName":"gsi","OnDemandThroughput":{}}}]}`,
			"One or more parameter values were invalid: The only Updates for index: gsi when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput")
		expectRawValidation(t, s, "UpdateTable", `{"TableName":"`+name+`","GlobalSecondaryIndexUpdates":[{"Update":{"IndexName":"gsi","ProvisionedThroughput":{}}}]}`,
			"2 validation errors detected: Value null at 'globalSecondaryIndexUpdates.1.member.update.provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must not be null; Value null at 'globalSecondaryIndexUpdates.1.member.update.provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must not be null")
	})
}
