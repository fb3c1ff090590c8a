package e2e

// SigV4 as strict as the service (issue 20, item 4): a signature must cover
// host and every x-amz-* header sent, and the body (no UNSIGNED-PAYLOAD);
// a date outside the 15 minutes of skew is refused with the service's
// texts. The requests are signed by a small signer of the test's own
// (manualSign), because the SDK's signer always signs host and the body:
// it cannot make the requests an attacker would.

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// manualSign signs req (whose headers are set) over the named headers
// only, with payloadHash as the canonical request's payload line, as
// SigV4 defines it (AWS General Reference, "Create a canonical request").
func manualSign(req *http.Request, akid, secret string, signed []string, payloadHash string, at time.Time) {
	amzDate := at.UTC().Format("20060102T150405Z")
	date := amzDate[:8]
	req.Header.Set("X-Amz-Date", amzDate)
	sort.Strings(signed)
	var canon strings.Builder
	canon.WriteString(req.Method + "\n/\n\n")
	for _, h := range signed {
		v := req.Header.Get(h)
		if h == "host" {
			v = req.URL.Host
		}
		canon.WriteString(h + ":" + strings.TrimSpace(v) + "\n")
	}
	canon.WriteString("\n" + strings.Join(signed, ";") + "\n" + payloadHash)
	sum := sha256.Sum256([]byte(canon.String()))
	scope := date + "/us-east-1/dynamodb/aws4_request"
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	mac := func(key []byte, data string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(data))
		return m.Sum(nil)
	}
	k := mac(mac(mac(mac([]byte("AWS4"+secret), date), "us-east-1"), "dynamodb"), "aws4_request")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+akid+"/"+scope+", SignedHeaders="+strings.Join(signed, ";")+", Signature="+hex.EncodeToString(mac(k, toSign)))
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// sendRaw sends req and returns its status, error type and message.
func sendRaw(t *testing.T, req *http.Request) (int, string, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	code, msg := rawError(data)
	return resp.StatusCode, code, msg
}

func newRaw(t *testing.T, s *harness.Server, op string, body []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL+"/", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	if op != "" {
		req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	}
	return req
}

func TestOpsSigV4Strict(t *testing.T) {
	t.Parallel()
	credFile := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(credFile, []byte("AKIDTEST secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := opsStart(t, "sqlite", "--auth", "sigv4", "--credentials-file", credFile)
	c := s.Client()
	ctx := harness.Ctx(t)
	table := createHashTable(t, c, "sigv4_strict")
	put(t, c, table, Item{"pk": S("keep")})
	keyBody := []byte(`{"TableName":"` + table + `","Key":{"pk":{"S":"keep"}}}`)
	all := []string{"content-type", "host", "x-amz-date", "x-amz-target"}

	// A well-formed signature of the test's signer is accepted, so the
	// refusals below are the rules' doing.
	req := newRaw(t, s, "GetItem", keyBody)
	manualSign(req, "AKIDTEST", "secret", all, sha256Hex(keyBody), time.Now())
	if status, code, msg := sendRaw(t, req); status != 200 {
		t.Fatalf("signed GetItem: %d %s %s", status, code, msg)
	}

	// A GetItem signed without X-Amz-Target, replayed as a DeleteItem.
	req = newRaw(t, s, "", keyBody)
	manualSign(req, "AKIDTEST", "secret", []string{"content-type", "host", "x-amz-date"}, sha256Hex(keyBody), time.Now())
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.DeleteItem")
	if status, code, msg := sendRaw(t, req); status != 400 || code != "InvalidSignatureException" || msg != invalidSignatureText {
		t.Errorf("X-Amz-Target not signed: %d %s %q, want 400 InvalidSignatureException", status, code, msg)
	}
	if get(t, c, table, Item{"pk": S("keep")}) == nil {
		t.Errorf("the replayed DeleteItem deleted the item")
	}

	// Any other x-amz-* header sent must be signed too.
	req = newRaw(t, s, "GetItem", keyBody)
	manualSign(req, "AKIDTEST", "secret", all, sha256Hex(keyBody), time.Now())
	req.Header.Set("X-Amz-Security-Token", "added-after-signing")
	if status, code, _ := sendRaw(t, req); status != 400 || code != "InvalidSignatureException" {
		t.Errorf("unsigned X-Amz-Security-Token: %d %s, want 400 InvalidSignatureException", status, code)
	}

	// host must be signed: the service's own text.
	req = newRaw(t, s, "GetItem", keyBody)
	manualSign(req, "AKIDTEST", "secret", []string{"content-type", "x-amz-date", "x-amz-target"}, sha256Hex(keyBody), time.Now())
	if status, code, msg := sendRaw(t, req); status != 400 || code != "InvalidSignatureException" ||
		msg != "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization." {
		t.Errorf("host not signed: %d %s %q", status, code, msg)
	}

	// UNSIGNED-PAYLOAD: the body could be replaced; it must be signed.
	putBody := []byte(`{"TableName":"` + table + `","Item":{"pk":{"S":"unsigned-payload"}}}`)
	req = newRaw(t, s, "PutItem", putBody)
	req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	manualSign(req, "AKIDTEST", "secret", append([]string{"x-amz-content-sha256"}, all...), "UNSIGNED-PAYLOAD", time.Now())
	if status, code, _ := sendRaw(t, req); status != 400 || code != "InvalidSignatureException" {
		t.Errorf("UNSIGNED-PAYLOAD: %d %s, want 400 InvalidSignatureException", status, code)
	}
	if get(t, c, table, Item{"pk": S("unsigned-payload")}) != nil {
		t.Errorf("the UNSIGNED-PAYLOAD PutItem wrote its item")
	}

	// A signed X-Amz-Content-Sha256 that matches the body is accepted; the
	// same signature over another body is not.
	req = newRaw(t, s, "PutItem", putBody)
	req.Header.Set("X-Amz-Content-Sha256", sha256Hex(putBody))
	manualSign(req, "AKIDTEST", "secret", append([]string{"x-amz-content-sha256"}, all...), sha256Hex(putBody), time.Now())
	if status, code, msg := sendRaw(t, req); status != 200 {
		t.Errorf("signed X-Amz-Content-Sha256: %d %s %s", status, code, msg)
	}
	other := []byte(`{"TableName":"` + table + `","Item":{"pk":{"S":"swapped-body"}}}`)
	req = newRaw(t, s, "PutItem", other)
	req.Header.Set("X-Amz-Content-Sha256", sha256Hex(putBody))
	manualSign(req, "AKIDTEST", "secret", append([]string{"x-amz-content-sha256"}, all...), sha256Hex(putBody), time.Now())
	if status, code, _ := sendRaw(t, req); status != 400 || code != "InvalidSignatureException" {
		t.Errorf("body swapped under a signed hash: %d %s, want 400 InvalidSignatureException", status, code)
	}
	if get(t, c, table, Item{"pk": S("swapped-body")}) != nil {
		t.Errorf("the swapped body was written")
	}

	// Dates outside the skew, in the service's words.
	for _, tc := range []struct {
		skew         time.Duration
		prefix, tail string
	}{
		{-20 * time.Minute, "Signature expired: %s is now earlier than ", " - 15 min.)"},
		{20 * time.Minute, "Signature not yet current: %s is still later than ", " + 15 min.)"},
	} {
		at := time.Now().Add(tc.skew)
		req = newRaw(t, s, "GetItem", keyBody)
		manualSign(req, "AKIDTEST", "secret", all, sha256Hex(keyBody), at)
		status, code, msg := sendRaw(t, req)
		prefix := strings.Replace(tc.prefix, "%s", at.UTC().Format("20060102T150405Z"), 1)
		if status != 400 || code != "InvalidSignatureException" || !strings.HasPrefix(msg, prefix) || !strings.HasSuffix(msg, tc.tail) {
			t.Errorf("skew %v: %d %s %q, want InvalidSignatureException %q…(…%s", tc.skew, status, code, msg, prefix, tc.tail)
		}
	}

	// The SDK's own signatures still pass, reads and writes.
	if _, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("keep")}}); err != nil {
		t.Errorf("SDK GetItem: %v", err)
	}
}
