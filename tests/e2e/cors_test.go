package e2e

// CORS (issue 18, HTTP), as the service answers it (dynalite's and
// alternator's CORS tests, both measured against DynamoDB): a preflight
// OPTIONS with an Origin gets 200, no body, Access-Control-Allow-Origin *,
// the requested method and headers allowed, and a max age; any request
// with an Origin gets Allow-Origin and Expose-Headers; a request without
// one gets no CORS header. Before, a preflight was a 405.

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/dynamopg/dynamopg/tests/harness"
)

var corsHeaders = []string{
	"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
	"Access-Control-Expose-Headers", "Access-Control-Max-Age", "Access-Control-Allow-Credentials",
}

func corsRequest(t *testing.T, s *harness.Server, method string, hdr map[string]string, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(harness.Ctx(t), method, s.URL+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, data
}

func TestCORS(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		api := map[string]string{"X-Amz-Target": "DynamoDB_20120810.ListTables", "Content-Type": "application/x-amz-json-1.0"}

		t.Run("preflight", func(t *testing.T) {
			resp, body := corsRequest(t, s, http.MethodOptions, map[string]string{
				"Origin":                         "http://localhost:3000",
				"Access-Control-Request-Method":  "POST",
				"Access-Control-Request-Headers": "authorization,content-type,x-amz-date,x-amz-target,x-amz-user-agent",
			}, "")
			want := map[string]string{
				"Access-Control-Allow-Origin":   "*",
				"Access-Control-Allow-Methods":  "POST",
				"Access-Control-Allow-Headers":  "authorization,content-type,x-amz-date,x-amz-target,x-amz-user-agent",
				"Access-Control-Expose-Headers": "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date",
				"Access-Control-Max-Age":        "172800",
				"Content-Length":                "0",
			}
			if resp.StatusCode != 200 || len(body) != 0 {
				t.Errorf("preflight: %d %q, want 200 and no body", resp.StatusCode, body)
			}
			for k, v := range want {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("preflight %s = %q, want %q", k, got, v)
				}
			}
			if resp.Header.Get("X-Amzn-Requestid") == "" {
				t.Error("preflight: no x-amzn-RequestId")
			}
		})

		t.Run("request with an Origin", func(t *testing.T) {
			hdr := map[string]string{"Origin": "http://localhost:3000"}
			for k, v := range api {
				hdr[k] = v
			}
			for _, body := range []string{`{}`, `{"Limit":0}`} {
				resp, data := corsRequest(t, s, http.MethodPost, hdr, body)
				if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
					t.Errorf("POST %s (%d): Access-Control-Allow-Origin = %q, want *", body, resp.StatusCode, got)
				}
				if got := resp.Header.Get("Access-Control-Expose-Headers"); got != "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date" {
					t.Errorf("POST %s: Access-Control-Expose-Headers = %q", body, got)
				}
				for _, h := range []string{"Access-Control-Max-Age", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers"} {
					if got := resp.Header.Get(h); got != "" {
						t.Errorf("POST %s: %s = %q, only a preflight has it", body, h, got)
					}
				}
				checkCRCAndType(t, body, resp, data)
			}
		})

		t.Run("no Origin, no CORS", func(t *testing.T) {
			for _, m := range []string{http.MethodPost, http.MethodOptions, http.MethodGet} {
				resp, _ := corsRequest(t, s, m, api, `{}`)
				for _, h := range corsHeaders {
					if got := resp.Header.Get(h); got != "" {
						t.Errorf("%s without Origin: %s = %q", m, h, got)
					}
				}
				if m == http.MethodOptions && resp.StatusCode == 200 {
					t.Errorf("OPTIONS without Origin answered 200")
				}
			}
		})
	})
}
