package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

var tableIDRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

func arnRe(table string) *regexp.Regexp {
	return regexp.MustCompile(`^arn:aws:dynamodb:us-east-1:[0-9]{12}:table/` + regexp.QuoteMeta(table) + `$`)
}

func keySchemaString(ks []types.KeySchemaElement) string {
	var parts []string
	for _, k := range ks {
		parts = append(parts, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
	}
	return strings.Join(parts, ",")
}

func attrDefsString(ds []types.AttributeDefinition) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, aws.ToString(d.AttributeName)+":"+string(d.AttributeType))
	}
	return strings.Join(parts, ",")
}

func TestCreateTableProvisionedResponse(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		name := harness.TableName("ct_prov")
		before := time.Now().Add(-2 * time.Second)
		out, err := c.CreateTable(harness.Ctx(t), &dynamodb.CreateTableInput{
			TableName:             aws.String(name),
			AttributeDefinitions:  attrDefs("pk", "S", "sk", "N"),
			KeySchema:             keySchema("pk", "sk"),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(7)},
		})
		must(t, err)
		d := out.TableDescription
		if d == nil {
			t.Fatal("no TableDescription")
		}
		if d.TableStatus != types.TableStatusCreating {
			t.Errorf("CreateTable TableStatus = %q, want CREATING", d.TableStatus)
		}
		if aws.ToString(d.TableName) != name {
			t.Errorf("TableName = %q", aws.ToString(d.TableName))
		}
		if got := keySchemaString(d.KeySchema); got != "pk:HASH,sk:RANGE" {
			t.Errorf("KeySchema = %s", got)
		}
		if got := attrDefsString(d.AttributeDefinitions); got != "pk:S,sk:N" {
			t.Errorf("AttributeDefinitions = %s", got)
		}
		pt := d.ProvisionedThroughput
		if pt == nil || aws.ToInt64(pt.ReadCapacityUnits) != 5 || aws.ToInt64(pt.WriteCapacityUnits) != 7 || aws.ToInt64(pt.NumberOfDecreasesToday) != 0 {
			t.Errorf("ProvisionedThroughput = %+v", pt)
		}
		if aws.ToInt64(d.ItemCount) != 0 || aws.ToInt64(d.TableSizeBytes) != 0 {
			t.Errorf("ItemCount/TableSizeBytes = %d/%d", aws.ToInt64(d.ItemCount), aws.ToInt64(d.TableSizeBytes))
		}
		if !arnRe(name).MatchString(aws.ToString(d.TableArn)) {
			t.Errorf("TableArn = %q", aws.ToString(d.TableArn))
		}
		if !tableIDRe.MatchString(aws.ToString(d.TableId)) {
			t.Errorf("TableId = %q, want a UUID", aws.ToString(d.TableId))
		}
		if d.CreationDateTime == nil || d.CreationDateTime.Before(before) || d.CreationDateTime.After(time.Now().Add(2*time.Second)) {
			t.Errorf("CreationDateTime = %v", d.CreationDateTime)
		}

		active := waitActive(t, c, name)
		if active.TableStatus != types.TableStatusActive {
			t.Errorf("after waiting TableStatus = %q", active.TableStatus)
		}
		if aws.ToString(active.TableId) != aws.ToString(d.TableId) || aws.ToString(active.TableArn) != aws.ToString(d.TableArn) {
			t.Errorf("DescribeTable TableId/TableArn differ from CreateTable's: %s %s vs %s %s",
				aws.ToString(active.TableId), aws.ToString(active.TableArn), aws.ToString(d.TableId), aws.ToString(d.TableArn))
		}
		if active.CreationDateTime == nil || !active.CreationDateTime.Equal(*d.CreationDateTime) {
			t.Errorf("DescribeTable CreationDateTime %v != CreateTable's %v", active.CreationDateTime, d.CreationDateTime)
		}
		if got := keySchemaString(active.KeySchema); got != "pk:HASH,sk:RANGE" {
			t.Errorf("DescribeTable KeySchema = %s", got)
		}
		apt := active.ProvisionedThroughput
		if apt == nil || aws.ToInt64(apt.ReadCapacityUnits) != 5 || aws.ToInt64(apt.WriteCapacityUnits) != 7 {
			t.Errorf("DescribeTable ProvisionedThroughput = %+v", apt)
		}
		if active.BillingModeSummary != nil && active.BillingModeSummary.BillingMode != types.BillingModeProvisioned {
			t.Errorf("BillingModeSummary = %+v, want absent or PROVISIONED", active.BillingModeSummary)
		}
	})
}

func TestCreateTableOnDemandWithIndexes(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		name := harness.TableName("ct_idx")
		out, err := c.CreateTable(harness.Ctx(t), &dynamodb.CreateTableInput{
			TableName:            aws.String(name),
			AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "lsk", "N", "gpk", "S", "gsk", "B"),
			KeySchema:            keySchema("pk", "sk"),
			BillingMode:          types.BillingModePayPerRequest,
			LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
				IndexName:  aws.String("lsi1"),
				KeySchema:  keySchema("pk", "lsk"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			}},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
				IndexName:  aws.String("gsi1"),
				KeySchema:  keySchema("gpk", "gsk"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"x", "y"}},
			}, {
				IndexName:  aws.String("gsi2"),
				KeySchema:  keySchema("gpk"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
			}},
		})
		must(t, err)
		if out.TableDescription.TableStatus != types.TableStatusCreating {
			t.Errorf("CreateTable TableStatus = %q, want CREATING", out.TableDescription.TableStatus)
		}
		if bms := out.TableDescription.BillingModeSummary; bms == nil || bms.BillingMode != types.BillingModePayPerRequest {
			t.Errorf("CreateTable BillingModeSummary = %+v, want PAY_PER_REQUEST", bms)
		}

		d := waitActive(t, c, name)
		if bms := d.BillingModeSummary; bms == nil || bms.BillingMode != types.BillingModePayPerRequest {
			t.Errorf("BillingModeSummary = %+v, want PAY_PER_REQUEST", bms)
		}
		if pt := d.ProvisionedThroughput; pt == nil || aws.ToInt64(pt.ReadCapacityUnits) != 0 || aws.ToInt64(pt.WriteCapacityUnits) != 0 {
			t.Errorf("on-demand ProvisionedThroughput = %+v, want 0/0", pt)
		}
		if len(d.LocalSecondaryIndexes) != 1 {
			t.Fatalf("LocalSecondaryIndexes = %+v", d.LocalSecondaryIndexes)
		}
		lsi := d.LocalSecondaryIndexes[0]
		if aws.ToString(lsi.IndexName) != "lsi1" || keySchemaString(lsi.KeySchema) != "pk:HASH,lsk:RANGE" ||
			lsi.Projection == nil || lsi.Projection.ProjectionType != types.ProjectionTypeKeysOnly {
			t.Errorf("LSI description = name %s keys %s projection %+v", aws.ToString(lsi.IndexName), keySchemaString(lsi.KeySchema), lsi.Projection)
		}
		if aws.ToString(lsi.IndexArn) != aws.ToString(d.TableArn)+"/index/lsi1" {
			t.Errorf("LSI IndexArn = %q", aws.ToString(lsi.IndexArn))
		}
		if aws.ToInt64(lsi.ItemCount) != 0 || aws.ToInt64(lsi.IndexSizeBytes) != 0 {
			t.Errorf("LSI ItemCount/IndexSizeBytes = %d/%d", aws.ToInt64(lsi.ItemCount), aws.ToInt64(lsi.IndexSizeBytes))
		}
		gsis := map[string]types.GlobalSecondaryIndexDescription{}
		for _, g := range d.GlobalSecondaryIndexes {
			gsis[aws.ToString(g.IndexName)] = g
		}
		if len(gsis) != 2 {
			t.Fatalf("GlobalSecondaryIndexes = %+v", d.GlobalSecondaryIndexes)
		}
		g1 := gsis["gsi1"]
		if g1.IndexStatus != types.IndexStatusActive {
			t.Errorf("gsi1 IndexStatus = %q, want ACTIVE", g1.IndexStatus)
		}
		if keySchemaString(g1.KeySchema) != "gpk:HASH,gsk:RANGE" {
			t.Errorf("gsi1 KeySchema = %s", keySchemaString(g1.KeySchema))
		}
		if g1.Projection == nil || g1.Projection.ProjectionType != types.ProjectionTypeInclude ||
			strings.Join(g1.Projection.NonKeyAttributes, ",") != "x,y" {
			t.Errorf("gsi1 Projection = %+v", g1.Projection)
		}
		if aws.ToString(g1.IndexArn) != aws.ToString(d.TableArn)+"/index/gsi1" {
			t.Errorf("gsi1 IndexArn = %q", aws.ToString(g1.IndexArn))
		}
		if pt := g1.ProvisionedThroughput; pt == nil || aws.ToInt64(pt.ReadCapacityUnits) != 0 || aws.ToInt64(pt.WriteCapacityUnits) != 0 {
			t.Errorf("gsi1 ProvisionedThroughput = %+v, want 0/0 on an on-demand table", pt)
		}
		g2 := gsis["gsi2"]
		if g2.IndexStatus != types.IndexStatusActive || keySchemaString(g2.KeySchema) != "gpk:HASH" ||
			g2.Projection == nil || g2.Projection.ProjectionType != types.ProjectionTypeAll {
			t.Errorf("gsi2 = status %s keys %s projection %+v", g2.IndexStatus, keySchemaString(g2.KeySchema), g2.Projection)
		}
		if got := attrDefsString(d.AttributeDefinitions); got != "pk:S,sk:S,lsk:N,gpk:S,gsk:B" {
			// The service keeps the order the attributes were defined in.
			t.Errorf("AttributeDefinitions = %s", got)
		}
	})
}

func TestListTablesPaging(t *testing.T) {
	t.Parallel()
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			s := harness.Start(t, backend)
			c := s.Client()
			ctx := harness.Ctx(t)

			out, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
			must(t, err)
			if len(out.TableNames) != 0 || out.LastEvaluatedTableName != nil {
				t.Errorf("fresh server ListTables = %v / %v", out.TableNames, aws.ToString(out.LastEvaluatedTableName))
			}

			names := []string{"lt-c", "lt.a", "lt_e", "ltB", "lt0"}
			for _, n := range names {
				_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
					TableName: aws.String(n), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
					BillingMode: types.BillingModePayPerRequest,
				})
				must(t, err)
			}
			// Table names sort by their bytes: '-' < '.' < '0' < 'B' < '_'.
			sorted := []string{"lt-c", "lt.a", "lt0", "ltB", "lt_e"}

			all, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
			must(t, err)
			if strings.Join(all.TableNames, " ") != strings.Join(sorted, " ") || all.LastEvaluatedTableName != nil {
				t.Errorf("ListTables = %v last %q, want %v and no LastEvaluatedTableName", all.TableNames, aws.ToString(all.LastEvaluatedTableName), sorted)
			}

			var pages [][]string
			var lasts []string
			var start *string
			for i := 0; i < 10; i++ {
				p, err := c.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(2), ExclusiveStartTableName: start})
				must(t, err)
				pages = append(pages, p.TableNames)
				lasts = append(lasts, aws.ToString(p.LastEvaluatedTableName))
				if p.LastEvaluatedTableName == nil {
					break
				}
				start = p.LastEvaluatedTableName
			}
			if fmt.Sprint(pages) != "[[lt-c lt.a] [lt0 ltB] [lt_e]]" || fmt.Sprint(lasts) != "[lt.a ltB ]" {
				t.Errorf("paged ListTables = %v, LastEvaluatedTableName = %q", pages, lasts)
			}

			// ExclusiveStartTableName need not be an existing table.
			p, err := c.ListTables(ctx, &dynamodb.ListTablesInput{ExclusiveStartTableName: aws.String("lt1")})
			must(t, err)
			if strings.Join(p.TableNames, " ") != "ltB lt_e" || p.LastEvaluatedTableName != nil {
				t.Errorf("ListTables after lt1 = %v / %q", p.TableNames, aws.ToString(p.LastEvaluatedTableName))
			}

			_, err = c.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(0)})
			expectValidation(t, err, "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
			_, err = c.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(101)})
			expectValidation(t, err, "1 validation error detected: Value '101' at 'limit' failed to satisfy constraint: Member must have value less than or equal to 100")

			// A deleted table leaves the list.
			_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("lt0")})
			must(t, err)
			deadline := time.Now().Add(10 * time.Second)
			for {
				p, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
				must(t, err)
				if strings.Join(p.TableNames, " ") == "lt-c lt.a ltB lt_e" {
					break
				}
				if time.Now().After(deadline) {
					t.Errorf("after DeleteTable lt0, ListTables = %v", p.TableNames)
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

func TestDeleteTable(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := createHashTable(t, c, "dt")
		put(t, c, name, Item{"pk": S("a"), "v": N("1")})

		out, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		must(t, err)
		if out.TableDescription == nil || aws.ToString(out.TableDescription.TableName) != name {
			t.Fatalf("DeleteTable TableDescription = %+v", out.TableDescription)
		}
		if out.TableDescription.TableStatus != types.TableStatusDeleting {
			t.Errorf("DeleteTable TableStatus = %q, want DELETING", out.TableDescription.TableStatus)
		}

		// The table goes away (the service may take a moment).
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			if err != nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		expectNotFound(t, err)

		_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		expectNotFound(t, err)
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), Key: Item{"pk": S("a")}})
		expectNotFound(t, err)

		// The name can be reused and the new table starts empty.
		_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
			BillingMode: types.BillingModePayPerRequest,
		})
		must(t, err)
		waitActive(t, c, name)
		assertItem(t, "item of the recreated table", get(t, c, name, Item{"pk": S("a")}), nil)
	})
}

func TestDescribeMissingTable(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		_, err := s.Client().DescribeTable(harness.Ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(harness.TableName("nope"))})
		expectNotFound(t, err)
	})
}

func TestCreateTableDuplicate(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		name := createHashTable(t, c, "dup")
		_, err := c.CreateTable(harness.Ctx(t), &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: attrDefs("other", "N"), KeySchema: keySchema("other"),
			BillingMode: types.BillingModePayPerRequest,
		})
		expectInUse(t, err, "Table already exists: "+name)
		d := waitActive(t, c, name)
		if keySchemaString(d.KeySchema) != "pk:HASH" {
			t.Errorf("the failed CreateTable changed the key schema: %s", keySchemaString(d.KeySchema))
		}
	})
}

func TestUpdateTable(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := harness.TableName("ut")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
		})
		must(t, err)
		waitActive(t, c, name)
		put(t, c, name, Item{"pk": S("keep"), "v": S("x")})

		// Throughput change.
		out, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName:             aws.String(name),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(10), WriteCapacityUnits: aws.Int64(5)},
		})
		must(t, err)
		if st := out.TableDescription.TableStatus; st != types.TableStatusUpdating && st != types.TableStatusActive {
			t.Errorf("UpdateTable TableStatus = %q, want UPDATING", st)
		}
		d := waitActive(t, c, name)
		if pt := d.ProvisionedThroughput; aws.ToInt64(pt.ReadCapacityUnits) != 10 || aws.ToInt64(pt.WriteCapacityUnits) != 5 {
			t.Errorf("after UpdateTable throughput = %d/%d, want 10/5", aws.ToInt64(pt.ReadCapacityUnits), aws.ToInt64(pt.WriteCapacityUnits))
		}

		// Same values again: refused.
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName:             aws.String(name),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(10), WriteCapacityUnits: aws.Int64(5)},
		})
		expectValidation(t, err, "The provisioned throughput for the table will not change. The requested value equals the current value. "+
			"Current ReadCapacityUnits provisioned for the table: 10. Requested ReadCapacityUnits: 10. "+
			"Current WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5. "+
			"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")

		// PAY_PER_REQUEST together with throughput: refused.
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName:             aws.String(name),
			BillingMode:           types.BillingModePayPerRequest,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)},
		})
		expectValidation(t, err, "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")

		// Switch to on-demand.
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest})
		must(t, err)
		d = waitActive(t, c, name)
		if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
			t.Errorf("after switch BillingModeSummary = %+v", d.BillingModeSummary)
		} else if d.BillingModeSummary.LastUpdateToPayPerRequestDateTime == nil {
			t.Errorf("BillingModeSummary.LastUpdateToPayPerRequestDateTime missing after a switch to PAY_PER_REQUEST")
		}
		if pt := d.ProvisionedThroughput; aws.ToInt64(pt.ReadCapacityUnits) != 0 || aws.ToInt64(pt.WriteCapacityUnits) != 0 {
			t.Errorf("on-demand throughput = %d/%d, want 0/0", aws.ToInt64(pt.ReadCapacityUnits), aws.ToInt64(pt.WriteCapacityUnits))
		}

		// And back to provisioned with new throughput.
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName:             aws.String(name),
			BillingMode:           types.BillingModeProvisioned,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(3), WriteCapacityUnits: aws.Int64(4)},
		})
		must(t, err)
		d = waitActive(t, c, name)
		if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModeProvisioned {
			t.Errorf("after switch back BillingModeSummary = %+v", d.BillingModeSummary)
		}
		if pt := d.ProvisionedThroughput; aws.ToInt64(pt.ReadCapacityUnits) != 3 || aws.ToInt64(pt.WriteCapacityUnits) != 4 {
			t.Errorf("throughput = %d/%d, want 3/4", aws.ToInt64(pt.ReadCapacityUnits), aws.ToInt64(pt.WriteCapacityUnits))
		}
		assertItem(t, "item survives UpdateTable", get(t, c, name, Item{"pk": S("keep")}), Item{"pk": S("keep"), "v": S("x")})

		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(harness.TableName("ut_missing")), BillingMode: types.BillingModePayPerRequest})
		expectNotFound(t, err)
	})
}

func TestCreateTableValidation(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 256)
	ppr := types.BillingModePayPerRequest
	pt := func(r, w int64) *types.ProvisionedThroughput {
		return &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(w)}
	}
	cases := []struct {
		name string
		in   func(table string) *dynamodb.CreateTableInput
		msg  string
	}{
		{"table name too short", func(string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String("ab"), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"), BillingMode: ppr}
		}, "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		{"table name too long", func(string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String(long), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"), BillingMode: ppr}
		}, "1 validation error detected: Value '" + long + "' at 'tableName' failed to satisfy constraint: Member must have length less than or equal to 255"},
		{"table name bad characters", func(string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String("bad name!"), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"), BillingMode: ppr}
		}, "1 validation error detected: Value 'bad name!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"},
		{"table name short and bad", func(string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String("a;"), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"), BillingMode: ppr}
		}, "2 validation errors detected: Value 'a;' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; " +
			"Value 'a;' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3"},
		// The anchors file abbreviates these two; the full texts below are the
		// ones users report from the live service (e.g. pynamodb/PynamoDB#21,
		// awslabs/dynamodb-data-mapper-js#87) and dynalite asserts.
		{"first key not HASH", func(n string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String(n), AttributeDefinitions: attrDefs("a", "S", "b", "S"), BillingMode: ppr,
				KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("a"), KeyType: types.KeyTypeRange}, {AttributeName: aws.String("b"), KeyType: types.KeyTypeHash}}}
		}, "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"},
		{"second key not RANGE", func(n string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String(n), AttributeDefinitions: attrDefs("a", "S", "b", "S"), BillingMode: ppr,
				KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("a"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("b"), KeyType: types.KeyTypeHash}}}
		}, "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"},
		{"hash and range same name", func(n string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String(n), AttributeDefinitions: attrDefs("a", "S", "b", "S"), BillingMode: ppr,
				KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("a"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("a"), KeyType: types.KeyTypeRange}}}
		}, "Both the Hash Key and the Range Key element in the KeySchema have the same name"},
		{"key attribute not defined", func(n string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String(n), AttributeDefinitions: attrDefs("b", "S"), KeySchema: keySchema("a"), BillingMode: ppr}
		}, "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [a], AttributeDefinitions: [b]"},
		{"unused attribute definition", func(n string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String(n), AttributeDefinitions: attrDefs("a", "S", "b", "S"), KeySchema: keySchema("a"), BillingMode: ppr}
		}, "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"},
		{"PAY_PER_REQUEST with throughput", func(n string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String(n), AttributeDefinitions: attrDefs("a", "S"), KeySchema: keySchema("a"), BillingMode: ppr, ProvisionedThroughput: pt(1, 1)}
		}, "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"},
		{"no throughput with default billing", func(n string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String(n), AttributeDefinitions: attrDefs("a", "S"), KeySchema: keySchema("a")}
		}, "No provisioned throughput specified for the table"},
		{"LSI on hash-only table", func(n string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String(n), AttributeDefinitions: attrDefs("a", "S", "c", "S"), KeySchema: keySchema("a"), BillingMode: ppr,
				LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi"), KeySchema: keySchema("a", "c"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}
		}, "One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"},
		{"LSI with a different hash key", func(n string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String(n), AttributeDefinitions: attrDefs("a", "S", "b", "S", "c", "S"), KeySchema: keySchema("a", "b"), BillingMode: ppr,
				LocalSecondaryIndexes: []types.LocalSecondaryIndex{{IndexName: aws.String("lsi"), KeySchema: keySchema("c", "b"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}
		}, "One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table KeySchema for index: lsi. index hash key: c, table hash key: a"},
		{"duplicate index names", func(n string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String(n), AttributeDefinitions: attrDefs("a", "S", "g", "S"), KeySchema: keySchema("a"), BillingMode: ppr,
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
					{IndexName: aws.String("idx"), KeySchema: keySchema("g"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
					{IndexName: aws.String("idx"), KeySchema: keySchema("g"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
				}}
		}, "One or more parameter values were invalid: Duplicate index name: idx"},
		{"INCLUDE without NonKeyAttributes", func(n string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String(n), AttributeDefinitions: attrDefs("a", "S", "g", "S"), KeySchema: keySchema("a"), BillingMode: ppr,
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("idx"), KeySchema: keySchema("g"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude}}}}
		}, "One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified"},
		{"KEYS_ONLY with NonKeyAttributes", func(n string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String(n), AttributeDefinitions: attrDefs("a", "S", "g", "S"), KeySchema: keySchema("a"), BillingMode: ppr,
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("idx"), KeySchema: keySchema("g"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly, NonKeyAttributes: []string{"x"}}}}}
		}, "One or more parameter values were invalid: ProjectionType is KEYS_ONLY, but NonKeyAttributes is specified"},
		{"GSI throughput on an on-demand table", func(n string) *dynamodb.CreateTableInput {
			return &dynamodb.CreateTableInput{TableName: aws.String(n), AttributeDefinitions: attrDefs("a", "S", "g", "S"), KeySchema: keySchema("a"), BillingMode: ppr,
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gidx"), KeySchema: keySchema("g"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}, ProvisionedThroughput: pt(1, 1)}}}
		}, "One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: gidx when BillingMode is PAY_PER_REQUEST"},
	}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				name := harness.TableName("ctv")
				in := tc.in(name)
				_, err := c.CreateTable(harness.Ctx(t), in)
				expectValidation(t, err, tc.msg)
				if aws.ToString(in.TableName) == name {
					_, err = c.DescribeTable(harness.Ctx(t), &dynamodb.DescribeTableInput{TableName: in.TableName})
					expectNotFound(t, err)
				}
			})
		}
	})
}
