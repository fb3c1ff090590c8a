package e2e

// Bounded reads before authentication and admission (issue 20, item 3):
// request bodies used to be read whole before the signature check and
// before --max-in-flight, so 100 concurrent unsigned 15 MB requests took
// the process from 124 MB to 767 MB. Now an unsigned request is refused on
// its headers and its body never read, and a body is read only under an
// in-flight slot. The figure checked is the server process's peak resident
// set (VmHWM in /proc/PID/status).

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// peakRSS is a process's peak resident set size in MB (VmHWM).
func peakRSS(t *testing.T, pid int) float64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("peak RSS: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			var kb float64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb)
			return kb / 1024
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// filler yields n bytes of 'x' without holding them.
type filler struct{ n int64 }

func (f *filler) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, io.EOF
	}
	k := int64(len(p))
	if k > f.n {
		k = f.n
	}
	for i := range p[:k] {
		p[i] = 'x'
	}
	f.n -= k
	return int(k), nil
}

// floodBodies sends n concurrent PutItem requests with a size-byte body
// each, set up by prepare, and counts the answers by status and type
// (a request whose body the server refused to read may also end in a
// transport error: the server closes the connection after answering).
func floodBodies(t *testing.T, s *harness.Server, n int, size int64, prepare func(*http.Request)) map[string]int {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]int{}
	var wg sync.WaitGroup
	tr := harness.NewTransport()
	defer func() {
		if c, ok := tr.(interface{ CloseIdleConnections() }); ok {
			c.CloseIdleConnections()
		}
	}()
	hc := &http.Client{Transport: tr, Timeout: 2 * time.Minute}
	for range n {
		wg.Go(func() {
			req, err := http.NewRequest(http.MethodPost, s.URL+"/", &filler{size})
			if err != nil {
				t.Error(err)
				return
			}
			req.ContentLength = size
			req.Header.Set("Content-Type", "application/x-amz-json-1.0")
			req.Header.Set("X-Amz-Target", "DynamoDB_20120810.PutItem")
			prepare(req)
			key := ""
			resp, err := hc.Do(req)
			if err != nil {
				key = "transport error"
			} else {
				data, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				code, _ := rawError(data)
				key = fmt.Sprintf("%d %s", resp.StatusCode, code)
			}
			mu.Lock()
			seen[key]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return seen
}

func TestOpsBoundedBodyReads(t *testing.T) {
	credFile := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(credFile, []byte("AKIDTEST secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const slots = 4
	s := opsStart(t, "sqlite", "--auth", "sigv4", "--credentials-file", credFile,
		"--max-in-flight", fmt.Sprint(slots), "--in-flight-wait", "2m")
	createHashTable(t, s.Client(), "bounded") // the server has served a signed request
	base := peakRSS(t, s.PID())

	const n, size = 40, 15 << 20
	// Unsigned: refused on the headers, the bodies never read.
	seen := floodBodies(t, s, n, size, func(*http.Request) {})
	unsigned := peakRSS(t, s.PID())
	t.Logf("%d unsigned %d MB requests: %v; peak RSS %.0f MB -> %.0f MB", n, size>>20, seen, base, unsigned)
	for k := range seen {
		if k != "400 MissingAuthenticationTokenException" && k != "transport error" {
			t.Errorf("an unsigned request was answered %q", k)
		}
	}
	if unsigned-base > 64 {
		t.Errorf("unsigned requests raised the peak RSS by %.0f MB (from %.0f MB), want at most 64 MB: their bodies were read", unsigned-base, base)
	}

	// Signed headers, wrong signature: the bodies are read (the signature
	// covers them), but only under one of the 4 in-flight slots at a time.
	seen = floodBodies(t, s, n, size, func(req *http.Request) {
		manualSign(req, "AKIDTEST", "secret", []string{"content-type", "host", "x-amz-date", "x-amz-target"}, strings.Repeat("0", 64), time.Now())
	})
	signed := peakRSS(t, s.PID())
	t.Logf("%d badly signed %d MB requests under --max-in-flight %d: %v; peak RSS %.0f MB -> %.0f MB", n, size>>20, slots, seen, base, signed)
	for k, c := range seen {
		if k != "400 InvalidSignatureException" {
			t.Errorf("%d badly signed requests were answered %q", c, k)
		}
	}
	// Each slot holds at most one body: 15 MB, its last growth copy, and
	// as much garbage again before the collector runs (GOGC=100 for a
	// live heap this large; --gc-headroom's 64 MB is below it); 40
	// bodies read at once would take 600 MB and more.
	if bound := float64(slots) * 4 * size / (1 << 20); signed-base > bound {
		t.Errorf("badly signed requests raised the peak RSS by %.0f MB (from %.0f MB), want at most %.0f MB (%d slots): bodies were read outside the slots", signed-base, base, bound, slots)
	}
}
