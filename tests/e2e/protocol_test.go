package e2e

import (
	"encoding/json"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func checkCRCAndType(t *testing.T, what string, resp *http.Response, body []byte) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/x-amz-json-1.0" {
		t.Errorf("%s: Content-Type = %q, want application/x-amz-json-1.0", what, ct)
	}
	want := strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10)
	if got := resp.Header.Get("X-Amz-Crc32"); got != want {
		t.Errorf("%s: x-amz-crc32 = %q, want %s (crc32 IEEE of the %d-byte body)", what, got, want, len(body))
	}
	if resp.Header.Get("X-Amzn-Requestid") == "" {
		t.Errorf("%s: no x-amzn-RequestId header", what)
	}
}

func TestProtocol(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()

		t.Run("unknown operation", func(t *testing.T) {
			resp, body := rawCall(t, s, "FrobnicateTable", `{}`)
			code, _ := rawError(body)
			if resp.StatusCode != 400 || code != "UnknownOperationException" {
				t.Errorf("unknown operation: %d %s", resp.StatusCode, body)
			}
			checkCRCAndType(t, "unknown operation", resp, body)
		})

		t.Run("missing target", func(t *testing.T) {
			resp, body := rawCall(t, s, "", `{}`)
			code, _ := rawError(body)
			if resp.StatusCode != 400 || code != "UnknownOperationException" {
				t.Errorf("no X-Amz-Target: %d %s", resp.StatusCode, body)
			}
		})

		t.Run("malformed JSON", func(t *testing.T) {
			resp, body := rawCall(t, s, "ListTables", `{"Limit": `)
			code, _ := rawError(body)
			if resp.StatusCode != 400 || code != "SerializationException" {
				t.Errorf("malformed JSON: %d %s", resp.StatusCode, body)
			}
			checkCRCAndType(t, "malformed JSON", resp, body)
		})

		t.Run("wrong JSON type", func(t *testing.T) {
			resp, body := rawCall(t, s, "ListTables", `{"Limit": "ten"}`)
			code, _ := rawError(body)
			if resp.StatusCode != 400 || code != "SerializationException" {
				t.Errorf("string Limit: %d %s", resp.StatusCode, body)
			}
		})

		t.Run("success response", func(t *testing.T) {
			resp, body := rawCall(t, s, "ListTables", `{}`)
			if resp.StatusCode != 200 {
				t.Fatalf("ListTables: %d %s", resp.StatusCode, body)
			}
			var out struct{ TableNames []string }
			if err := json.Unmarshal(body, &out); err != nil || out.TableNames == nil {
				t.Errorf("ListTables body %s: TableNames must be a JSON array (%v)", body, err)
			}
			checkCRCAndType(t, "ListTables", resp, body)
		})

		t.Run("validation error response", func(t *testing.T) {
			resp, body := rawCall(t, s, "DescribeTable", `{"TableName":"a"}`)
			code, msg := rawError(body)
			if resp.StatusCode != 400 || code != "ValidationException" ||
				msg != "1 validation error detected: Value 'a' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3" {
				t.Errorf("DescribeTable short name: %d %s", resp.StatusCode, body)
			}
			if !strings.HasPrefix(mustType(body), "com.amazon") {
				t.Errorf("__type %q should be namespaced like the service's (com.amazon…#ValidationException)", mustType(body))
			}
			checkCRCAndType(t, "ValidationException", resp, body)
		})

		t.Run("not found response", func(t *testing.T) {
			resp, body := rawCall(t, s, "DescribeTable", `{"TableName":"`+harness.TableName("nf")+`"}`)
			code, msg := rawError(body)
			if resp.StatusCode != 400 || code != "ResourceNotFoundException" || msg != "Requested resource not found" {
				t.Errorf("DescribeTable missing: %d %s", resp.StatusCode, body)
			}
			checkCRCAndType(t, "ResourceNotFoundException", resp, body)
		})

		t.Run("health", func(t *testing.T) {
			resp, err := http.Get(s.URL + "/health")
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("GET /health = %d", resp.StatusCode)
			}
		})
	})
}

func mustType(body []byte) string {
	var e map[string]any
	_ = json.Unmarshal(body, &e)
	s, _ := e["__type"].(string)
	return s
}
