package e2e

// A request over 16 MB (issue 18, HTTP) is answered 413, whether its size
// is declared in Content-Length or found while reading a chunked body, and
// without reading the rest: the client gets its answer while it is still
// sending (or has sent nothing more). Before, the answer was 400.

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/tests/harness"
)

const maxRequestBytes = 16 << 20

func TestBodyOverLimit(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		host := strings.TrimPrefix(s.URL, "http://")
		head := "POST / HTTP/1.1\r\nHost: " + host + "\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Type: application/x-amz-json-1.0\r\n"

		t.Run("declared", func(t *testing.T) {
			// Declares 16 MB + 1 and sends 2 bytes: the answer must not wait for the rest.
			resp, body := sendAndRead(t, host, head+fmt.Sprintf("Content-Length: %d\r\n\r\n{}", maxRequestBytes+1), nil)
			expect413(t, resp, body)
		})
		t.Run("declared at the limit is read", func(t *testing.T) {
			pad := strings.Repeat(" ", maxRequestBytes-2)
			resp, body := sendAndRead(t, host, head+fmt.Sprintf("Content-Length: %d\r\n\r\n{", maxRequestBytes), func(w io.Writer) {
				io.WriteString(w, pad+"}")
			})
			if resp.StatusCode != 200 {
				t.Errorf("a body of exactly 16 MB: %d %.200s", resp.StatusCode, body)
			}
		})
		t.Run("chunked", func(t *testing.T) {
			// 16 MB + 1 in chunks, and no last chunk: the server must answer
			// once it has read one byte too many.
			resp, body := sendAndRead(t, host, head+"Transfer-Encoding: chunked\r\n\r\n", func(w io.Writer) {
				chunk := strings.Repeat(" ", 1<<20)
				for sent := 0; sent <= maxRequestBytes; sent += len(chunk) {
					if _, err := fmt.Fprintf(w, "%x\r\n%s\r\n", len(chunk), chunk); err != nil {
						return // the server answered and closed: what the test wants
					}
				}
			})
			expect413(t, resp, body)
		})
	})
}

// sendAndRead writes head, then runs more (if any) while it reads one
// response; it fails if no response comes within 20 seconds.
func sendAndRead(t *testing.T, host, head string, more func(io.Writer)) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	if more != nil {
		go more(conn)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

func expect413(t *testing.T, resp *http.Response, body []byte) {
	t.Helper()
	code, msg := rawError(body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || code != "ValidationException" {
		t.Errorf("over 16 MB: %d %s, want 413", resp.StatusCode, body)
	}
	if want := fmt.Sprintf("Request size exceeded the maximum allowed size of %d bytes", maxRequestBytes); msg != want {
		t.Errorf("message %q, want %q", msg, want)
	}
}
