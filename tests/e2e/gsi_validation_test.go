package e2e

// GSI validation (issue 18, indexes): an UpdateTable Create must define
// its key attributes in the request's AttributeDefinitions, and may not
// give an attribute of the table's schema another type; an update object
// must hold exactly one action; and a write whose index key is over the
// key size limits (2048 bytes for the partition key, 1024 for the sort
// key) is refused. Before, the table's definitions were taken, {} and two
// actions were accepted, a redefinition had an invented text, and oversized
// index keys were written.

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func TestGSICreateValidation(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := harness.TableName("gsival")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "xyz", "S"), KeySchema: keySchema("pk", "sk"),
			BillingMode: types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("index1"), KeySchema: keySchema("xyz"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		})
		must(t, err)
		waitActive(t, c, name)
		all := &types.Projection{ProjectionType: types.ProjectionTypeAll}
		createGSI := func(defs []types.AttributeDefinition, ks []types.KeySchemaElement) error {
			_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(name), AttributeDefinitions: defs,
				GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
					IndexName: aws.String("index2"), KeySchema: ks, Projection: all}}}})
			return err
		}
		// Keys the table defines must still be defined in the request.
		err = createGSI(nil, keySchema("sk"))
		expectValidation(t, err, "One or more parameter values were invalid: AttributeDefinitions is not specified for index: index2")
		err = createGSI(attrDefs("other", "S"), keySchema("sk"))
		expectValidation(t, err, "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [sk], AttributeDefinitions: [other]")
		err = createGSI(attrDefs("sk", "S", "sk", "S"), keySchema("sk"))
		expectValidation(t, err, "Attribute Name is duplicated: sk")
		// Another type for an attribute of the table's schema.
		err = createGSI(attrDefs("xyz", "N"), keySchema("xyz"))
		expectValidation(t, err, "One or more parameter values were invalid: Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. Existing schema: Schema:[SchemaElement: key{xyz:S:HASH}] New schema: Schema:[SchemaElement: key{xyz:N:HASH}]")
		err = createGSI(attrDefs("g", "S", "sk", "N"), keySchema("g", "sk"))
		expectValidation(t, err, "One or more parameter values were invalid: Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. Existing schema: Schema:[SchemaElement: key{pk:S:HASH}, SchemaElement: key{sk:S:RANGE}] New schema: Schema:[SchemaElement: key{g:S:HASH}, SchemaElement: key{sk:N:RANGE}]")

		// An update object with no action, or with two.
		for _, tc := range []struct{ body, msg string }{
			{`{"TableName":"` + name + `","GlobalSecondaryIndexUpdates":[{}]}`,
				"One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null"},
			{`{"TableName":"` + name + `","AttributeDefinitions":[{"AttributeName":"x","AttributeType":"N"}],"GlobalSecondaryIndexUpdates":[{"Create":{"IndexName":"ind","KeySchema":[{"AttributeName":"x","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}},"Delete":{"IndexName":"index1"}}]}`,
				"One or more parameter values were invalid: Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object"},
		} {
			expectRawValidation(t, s, "UpdateTable", tc.body, tc.msg)
		}
		if d := describeTable(t, c, name); len(d.GlobalSecondaryIndexes) != 1 {
			t.Errorf("refused updates changed the indexes: %d", len(d.GlobalSecondaryIndexes))
		}
		// The same definition as the table's is fine.
		must(t, createGSI(attrDefs("sk", "S"), keySchema("sk")))
	})
}

func TestIndexKeySizeLimits(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := ixCreate(t, c, "ixsize")
		hash2049, range1025 := strings.Repeat("h", 2049), strings.Repeat("r", 1025)
		for _, tc := range []struct {
			item Item
			msg  string
		}{
			{Item{"pk": S("p"), "sk": S("a"), "g1": S(hash2049)}, "One or more parameter values were invalid: Size limit exceeded for Index Key g1 Actual Size: 2049 bytes Max Size: 2048 bytes IndexName: gkx"},
			{Item{"pk": S("p"), "sk": S("a"), "g2": S("g"), "g2r": N("1"), "g3": S(strings.Repeat("x", 3000))}, "One or more parameter values were invalid: Size limit exceeded for Index Key g3 Actual Size: 3000 bytes Max Size: 2048 bytes IndexName: gax"},
		} {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: tc.item})
			expectValidation(t, err, tc.msg)
		}
		// A sort key of an index: 1024 bytes at most (a B key of the gix index here: N keys are short).
		name := harness.TableName("ixsizer")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(name), AttributeDefinitions: attrDefs("pk", "S", "g", "S", "gr", "S"), KeySchema: keySchema("pk"),
			BillingMode: types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String("gsi"), KeySchema: keySchema("g", "gr"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}},
		})
		must(t, err)
		waitActive(t, c, name)
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: Item{"pk": S("p"), "g": S("g"), "gr": S(range1025)}})
		expectValidation(t, err, "One or more parameter values were invalid: Size limit exceeded for Index Key gr Actual Size: 1025 bytes Max Size: 1024 bytes IndexName: gsi")
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: Item{"pk": S("u")},
			UpdateExpression: aws.String("SET g = :g"), ExpressionAttributeValues: Item{":g": S(hash2049)}})
		expectValidation(t, err, "One or more parameter values were invalid: Size limit exceeded for Index Key g Actual Size: 2049 bytes Max Size: 2048 bytes IndexName: gsi")
		// At the limits: written.
		put(t, c, name, Item{"pk": S("p"), "g": S(strings.Repeat("h", 2048)), "gr": S(strings.Repeat("r", 1024))})
		if get(t, c, name, Item{"pk": S("u")}) != nil {
			t.Error("a refused UpdateItem created its item")
		}
	})
}
