package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// TestPartiQLIndexQualifierErrors pins the texts of index-qualified reads
// (nubo-db/dynamodb-conformance tests/tier3/error-messages/
// partiqlIndexQualifier and partiql, measured against the service).
func TestPartiQLIndexQualifierErrors(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		tbl := harness.TableName("pqix")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(tbl),
			AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "gsiPk", "S", "gsiPk2", "S", "lsiSk", "S"),
			KeySchema:            keySchema("pk", "sk"),
			BillingMode:          types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
				{IndexName: aws.String("gsi-all"), KeySchema: keySchema("gsiPk"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
				{IndexName: aws.String("gsi-inc"), KeySchema: keySchema("gsiPk2"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"inc"}}},
			},
			LocalSecondaryIndexes: []types.LocalSecondaryIndex{
				{IndexName: aws.String("lsi-keys"), KeySchema: keySchema("pk", "lsiSk"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
			},
		})
		must(t, err)
		waitActive(t, c, tbl)
		q := `"` + tbl + `"`
		for stmt, msg := range map[string]string{
			`SELECT pk FROM ` + q + `."gsi-inc" WHERE gsiPk2 = 'y' AND np = 'np1'`: "One or more parameter values were invalid: Secondary index gsi-inc does not project one or more filter attributes: [np]",
			`SELECT pk FROM ` + q + `."lsi-keys" WHERE pk = 'p' AND np = 'np1'`:    "One or more parameter values were invalid: Secondary index lsi-keys does not project one or more filter attributes: [np]",
			`SELECT np FROM ` + q + `."gsi-inc" WHERE gsiPk2 = 'y'`:                "One or more parameter values were invalid: Global secondary index gsi-inc does not project [np]",
			`SELECT * FROM ` + q + `."no-such-index" WHERE pk = 'p'`:               "The table does not have the specified index",
			`SELECT * FROM ` + q + `.` + q + ` WHERE pk = 'p'`:                     "The table does not have the specified index",
			`SELECT * FROM ` + q + `."gsi-all"."extra" WHERE pk = 'p'`:             "A path may contain at most 2 components in the FROM clause",
			`SELECT * FROM ` + q + `."" WHERE pk = 'p'`:                            "Path component cannot be an empty string",
			// Before the table is looked up.
			`SELECT * FROM "" WHERE pk = 'x'`: "Path component cannot be an empty string",
		} {
			_, err := pqTry(t, c, stmt)
			expectValidation(t, err, msg)
		}
		// Attributes the index holds are fine.
		pq(t, c, `SELECT inc, pk FROM `+q+`."gsi-inc" WHERE gsiPk2 = 'y' AND inc = 'x'`)

		// In a transaction.
		_, err = c.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
			{Statement: aws.String(`SELECT * FROM ` + q + `."gsi-all" WHERE gsiPk = 'x'`)}}})
		expectValidation(t, err, "Validation failed in TransactStatements[0]: Reads on indices are not supported within transactions.")
		_, err = c.ExecuteTransaction(ctx, &dynamodb.ExecuteTransactionInput{TransactStatements: []types.ParameterizedStatement{
			{Statement: aws.String(`UPDATE ` + q + ` SET data = 'v' WHERE pk = 'x' AND sk = 'y' RETURNING ALL NEW *`)}}})
		expectValidation(t, err, "Validation failed in TransactStatements[0]: RETURNING clause is not supported in ExecuteTransaction.")
	})
}

// TestPartiQLOrderingOperands: an ordering operator refuses a constant of a
// type without order, on the statement, before the table is looked up
// (nubo-db/dynamodb-conformance tests/tier2/partiql/comparison and
// tests/tier3/validation-ordering/partiql).
func TestPartiQLOrderingOperands(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		tbl := createHashTable(t, c, "pqord")
		q := `"` + tbl + `"`
		for _, op := range []string{"<", "<=", ">", ">="} {
			_, err := pqTry(t, c, `SELECT pk FROM `+q+` WHERE pk = ? AND val `+op+` ?`, S("a"), BOOL(true))
			expectValidation(t, err, "Incorrect operand type for operator or function; operator or function: "+op+", operand type: BOOL")
		}
		for typ, v := range map[string]types.AttributeValue{"NULL": NULL(), "L": L(S("a")), "M": M(Item{"a": S("b")}), "SS": SS("a"), "NS": NS("1"), "BS": BS([]byte{1})} {
			_, err := pqTry(t, c, `SELECT pk FROM `+q+` WHERE pk = ? AND val < ?`, S("a"), v)
			expectValidation(t, err, "Incorrect operand type for operator or function; operator or function: <, operand type: "+typ)
		}
		_, err := pqTry(t, c, `SELECT pk FROM `+q+` WHERE pk = ? AND val BETWEEN ? AND ?`, S("a"), BOOL(true), BOOL(false))
		expectValidation(t, err, "Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: BOOL")
		_, err = pqTry(t, c, `SELECT pk FROM "`+harness.TableName("pqord_missing")+`" WHERE pk = ? AND val < ?`, S("a"), BOOL(true))
		expectValidation(t, err, "Incorrect operand type for operator or function; operator or function: <, operand type: BOOL")
		// Equality takes any type; ordering S against N is allowed.
		pq(t, c, `SELECT pk FROM `+q+` WHERE pk = ? AND val = ?`, S("a"), BOOL(true))
		pq(t, c, `SELECT pk FROM `+q+` WHERE pk = ? AND val < ?`, S("a"), N("5"))
	})
}
