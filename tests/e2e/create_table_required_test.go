package e2e

import (
	"testing"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// TestCreateTableMissingTableName: CreateTable without TableName is the
// required-parameter error (raw request: the SDKs refuse to send it).
func TestCreateTableMissingTableName(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		resp, body := rawCall(t, s, "CreateTable", `{"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],`+
			`"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5}}`)
		code, msg := rawError(body)
		if resp.StatusCode != 400 || code != "ValidationException" || msg != "The parameter 'TableName' is required but was not present in the request" {
			t.Errorf("CreateTable without TableName: %d %s", resp.StatusCode, body)
		}
	})
}
