package e2e

// Protocol-level answers (issue 20, item 9): a wrong method or path and
// oversized headers got plain or typeless bodies (Echo's {"message":"Not
// Found"}, net/http's "431 Request Header Fields Too Large"); they get the
// service's JSON error bodies now. A request net/http cannot parse at all
// (an invalid Content-Length, headers far over the limit) still gets its
// plain answer: no request was read to answer in kind.

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// rawHTTP writes req on a fresh connection and reads one response.
func rawHTTP(t *testing.T, s *harness.Server, req string, closeWrite bool) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	if closeWrite {
		conn.(*net.TCPConn).CloseWrite()
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the response to %.60q: %v", req, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

func TestProtocolErrorsInJSON(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		host := strings.TrimPrefix(s.URL, "http://")
		target := "X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Type: application/x-amz-json-1.0\r\n"
		for _, tc := range []struct {
			what, req  string
			status     int
			code       string
			closeWrite bool
		}{
			{"POST to another path", "POST /tables HTTP/1.1\r\nHost: " + host + "\r\n" + target + "Content-Length: 2\r\n\r\n{}", 404, "UnknownOperationException", false},
			{"GET of another path", "GET /nope HTTP/1.1\r\nHost: " + host + "\r\n\r\n", 404, "UnknownOperationException", false},
			{"PUT /", "PUT / HTTP/1.1\r\nHost: " + host + "\r\n" + target + "Content-Length: 2\r\n\r\n{}", 405, "UnknownOperationException", false},
			{"DELETE /", "DELETE / HTTP/1.1\r\nHost: " + host + "\r\n\r\n", 405, "UnknownOperationException", false},
			{"headers over 64 KB", "POST / HTTP/1.1\r\nHost: " + host + "\r\n" + target + "X-Big: " + strings.Repeat("b", 80<<10) + "\r\nContent-Length: 2\r\n\r\n{}", 431, "ValidationException", false},
			{"a body shorter than its Content-Length", "POST / HTTP/1.1\r\nHost: " + host + "\r\n" + target + "Content-Length: 100\r\n\r\n{\"Lim", 400, "SerializationException", true},
		} {
			resp, body := rawHTTP(t, s, tc.req, tc.closeWrite)
			code, msg := rawError(body)
			if resp.StatusCode != tc.status || code != tc.code {
				t.Errorf("%s: %d %q, want %d with a %s body", tc.what, resp.StatusCode, body, tc.status, tc.code)
				continue
			}
			checkCRCAndType(t, tc.what, resp, body)
			t.Logf("%s: %d %s %q", tc.what, resp.StatusCode, code, msg)
		}
		// What net/http refuses before any handler: its plain answers.
		for _, tc := range []struct {
			what, req string
			status    int
		}{
			{"an invalid Content-Length", "POST / HTTP/1.1\r\nHost: " + host + "\r\n" + target + "Content-Length: abc\r\n\r\n{}", 400},
			{"headers far over the limit", "POST / HTTP/1.1\r\nHost: " + host + "\r\nX-Big: " + strings.Repeat("b", 300<<10) + "\r\n\r\n", 431},
		} {
			resp, body := rawHTTP(t, s, tc.req, false)
			if resp.StatusCode != tc.status {
				t.Errorf("%s: %d %.80q, want %d", tc.what, resp.StatusCode, body, tc.status)
			}
		}
		// The service's own GET / still answers.
		resp, body := rawHTTP(t, s, "GET / HTTP/1.1\r\nHost: "+host+"\r\n\r\n", false)
		if resp.StatusCode != 200 || !strings.HasPrefix(string(body), "healthy: ") {
			t.Errorf("GET /: %d %q", resp.StatusCode, body)
		}
	})
}
