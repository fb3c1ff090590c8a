package e2e

// Request bodies that are not Unicode text (issue 20, item 7). A JSON
// decoder that replaces invalid UTF-8 and lone surrogate escapes with
// U+FFFD turns distinct wire keys into one item: keys k\xff, k\xfe and
// k\ud800 were each acknowledged and collapsed into the item "k\ufffd".
// The service reads requests with a strict UTF-8 parser and answers what it
// cannot read with SerializationException; so does dynamopg, and nothing
// is written. The SDKs cannot send such bodies (they encode invalid UTF-8
// as U+FFFD themselves), so the requests are raw.

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func TestInvalidUnicodeRefused(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createHashTable(t, c, "utf8")
		for _, key := range []string{`k` + "\xff", `k` + "\xfe", `k\ud800`, `k\udc00`, `k\ud800\u0041`, `k` + "\xed\xa0\x80"} {
			body := `{"TableName":"` + table + `","Item":{"pk":{"S":"` + key + `"},"v":{"S":"x"}}}`
			resp, data := rawCall(t, s, "PutItem", body)
			if code, msg := rawError(data); resp.StatusCode != 400 || code != "SerializationException" {
				t.Errorf("PutItem key %q: %d %s %q, want 400 SerializationException", key, resp.StatusCode, code, msg)
			}
		}
		// Elsewhere in a request too: a table name, an expression, a stream call.
		for _, p := range []struct{ op, body string }{
			{"DescribeTable", `{"TableName":"` + table + "\xff" + `"}`},
			{"GetItem", `{"TableName":"` + table + `","Key":{"pk":{"S":"a"}},"ProjectionExpression":"#n","ExpressionAttributeNames":{"#n":"v\udfff"}}`},
			{"Query", `{"TableName":"` + table + `","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"\ud83d"}}}`},
		} {
			resp, data := rawCall(t, s, p.op, p.body)
			if code, _ := rawError(data); resp.StatusCode != 400 || code != "SerializationException" {
				t.Errorf("%s %q: %d %s, want 400 SerializationException", p.op, p.body, resp.StatusCode, data)
			}
		}
		resp, data := rawCallTarget(t, s, "ListStreams", true, `{"TableName":"`+table+"\xc3"+`"}`)
		if code, _ := rawError(data); resp.StatusCode != 400 || code != "SerializationException" {
			t.Errorf("ListStreams: %d %s, want 400 SerializationException", resp.StatusCode, data)
		}

		out, err := c.Scan(harness.Ctx(t), &dynamodb.ScanInput{TableName: aws.String(table)})
		must(t, err)
		if len(out.Items) != 0 {
			t.Errorf("refused writes left %d items: %v", len(out.Items), out.Items)
		}

		// Valid text, escaped or not, is accepted and kept distinct.
		for _, key := range []string{`\ud83d\ude00`, "😀x", `\u00e9`, "e\u0301", `\\ud800`} {
			resp, data := rawCall(t, s, "PutItem", `{"TableName":"`+table+`","Item":{"pk":{"S":"`+key+`"}}}`)
			if resp.StatusCode != 200 {
				t.Errorf("PutItem key %q: %d %s", key, resp.StatusCode, data)
			}
		}
		out, err = c.Scan(harness.Ctx(t), &dynamodb.ScanInput{TableName: aws.String(table)})
		must(t, err)
		if len(out.Items) != 5 {
			t.Errorf("5 distinct valid keys stored %d items", len(out.Items))
		}
		if it := get(t, c, table, Item{"pk": S("😀")}); it == nil {
			t.Errorf("the escaped surrogate pair did not decode to U+1F600")
		}
	})
}
