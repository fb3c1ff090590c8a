package e2e

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// btMapKeys is the constraint a RequestItems table name breaks, on the map
// itself (dynalite test/batchGetItem.js and test/batchWriteItem.js).
const btMapKeys = `Value '\{.+\}' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: \[Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: \[a-zA-Z0-9_.-\]\+\]`

// btExpectRawRe sends a raw request and asserts a ValidationException whose
// message matches re.
func btExpectRawRe(t *testing.T, s *harness.Server, op, body, re string) {
	t.Helper()
	resp, data := rawCall(t, s, op, body)
	code, msg := rawError(data)
	if resp.StatusCode != 400 || code != "ValidationException" || !regexp.MustCompile(re).MatchString(msg) {
		t.Errorf("%s %s\n  want: ValidationException matching %s\n  got:  %d %s: %s", op, body, re, resp.StatusCode, code, msg)
	}
}

func TestBatchValidationMembers(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		// An empty RequestItems answers the operation's own sentence
		// (nubo-db/dynamodb-conformance tier3 error-messages; the us-east-1
		// answer of registry row batch-get-item-empty-request-items-message).
		_, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{}})
		expectValidation(t, err, "The requestItems parameter is required for BatchGetItem")
		_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{}})
		expectValidation(t, err, "The requestItems parameter is required for BatchWriteItem")

		// Table names, null Keys and null Item/Key members.
		btExpectRawRe(t, s, "BatchGetItem", `{"RequestItems":{"a":{}},"ReturnConsumedCapacity":"hi"}`,
			`^3 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: \[INDEXES, TOTAL, NONE\]; `+
				btMapKeys+`; Value null at 'requestItems\.a\.member\.keys' failed to satisfy constraint: Member must not be null$`)
		btExpectRawRe(t, s, "BatchGetItem", `{"RequestItems":{"a":{"Keys":[{"a":{"S":"a"}}]}}}`, `^1 validation error detected: `+btMapKeys+`$`)
		btExpectRawRe(t, s, "BatchWriteItem", `{"RequestItems":{"aa;":[{"PutRequest":{},"DeleteRequest":{}}]},"ReturnConsumedCapacity":"hi","ReturnItemCollectionMetrics":"hi"}`,
			`^5 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: \[INDEXES, TOTAL, NONE\]; `+
				`Value 'hi' at 'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: \[SIZE, NONE\]; `+btMapKeys+`; `+
				`Value null at 'requestItems\.aa;\.member\.1\.member\.deleteRequest\.key' failed to satisfy constraint: Member must not be null; `+
				`Value null at 'requestItems\.aa;\.member\.1\.member\.putRequest\.item' failed to satisfy constraint: Member must not be null$`)
		btExpectRawRe(t, s, "BatchWriteItem", `{"RequestItems":{"a":[{"PutRequest":{"Item":{"a":{"S":"a"}}}}]}}`, `^1 validation error detected: `+btMapKeys+`$`)

		// ProjectionExpression on one table and AttributesToGet on another
		// mix expression and non-expression parameters (conformance
		// batchGetItem, "mixing ... on another is rejected").
		h := createHashTable(t, c, "btmix")
		r := createRangeTable(t, c, "btmix", "S")
		_, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			h: {Keys: []Item{{"pk": S("a")}}, ProjectionExpression: aws.String("pk")},
			r: {Keys: []Item{{"pk": S("a"), "sk": S("z")}}, AttributesToGet: []string{"pk"}},
		}})
		expectValidation(t, err, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
		// Values are no member of KeysAndAttributes: ignored.
		resp, body := rawCall(t, s, "BatchGetItem", fmt.Sprintf(`{"RequestItems":{%q:{"Keys":[{"pk":{"S":"a"}}],"ExpressionAttributeValues":{":v":{"S":"x"}}}}}`, h))
		if resp.StatusCode != 200 {
			t.Errorf("BatchGetItem with ExpressionAttributeValues: %d %s; want success (the member is ignored)", resp.StatusCode, body)
		}
	})
}
