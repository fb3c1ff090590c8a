// Package harness runs dynamopg end to end for tests: it builds the binary
// once per test binary, starts it on a free port against a fresh SQLite file
// or a fresh PostgreSQL database, and hands out aws-sdk-go-v2 clients
// pointed at it. Every later test suite reuses it.
package harness

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamopg/dynamopg/dynamopgtest"
	"github.com/dynamopg/dynamopg/tests/pgtest"
	"github.com/dynamopg/dynamopg/tests/sdkhttp"
)

// Backends are the storage backends every end-to-end test runs against.
var Backends = []string{"sqlite", "postgres"}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary builds cmd/dynamopg once and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "dynamopg-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "dynamopg")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/dynamopg")
		cmd.Dir = repoRoot()
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// RemoveBinary removes the binary Binary built, if any: each test or
// benchmark process builds its own (about 40 MB), so a process removes it
// on its way out (Main does).
func RemoveBinary() {
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Server is one running dynamopg: a process of the binary (Start, StartDB),
// or a server inside the test process (Shared).
type Server struct {
	Backend string
	DB      string // the --db argument
	URL     string // http://127.0.0.1:PORT
	cmd     *exec.Cmd
	// embedded is the in-process server of Shared; nil for a process.
	embedded *dynamopgtest.Server
	logs     *bytesBuffer
	// transport pools this server's connections only: with the shared
	// default transport, a connection kept from a server that was killed
	// could be reused for a later server that got the same port.
	transport http.RoundTripper
	mu        sync.Mutex
	addr      string   // host:port it listens on
	args      []string // the extra serve flags it was started with
}

// Start runs dynamopg on a fresh database of the backend ("sqlite" or
// "postgres") and stops it when the test ends.
func Start(t testing.TB, backend string) *Server {
	t.Helper()
	var db string
	switch backend {
	case "sqlite":
		db = "sqlite:" + filepath.Join(t.TempDir(), "dynamopg.db")
	case "postgres":
		db = pgtest.URL(t)
	default:
		t.Fatalf("unknown backend %q", backend)
	}
	return StartDB(t, backend, db)
}

// StartDB runs dynamopg against an existing --db (several servers on one database).
func StartDB(t testing.TB, backend, db string, extraArgs ...string) *Server {
	t.Helper()
	s := &Server{Backend: backend, DB: db, logs: &bytesBuffer{}}
	s.start(t, extraArgs...)
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("dynamopg logs (%s):\n%s", backend, s.Logs())
		}
	})
	return s
}

func (s *Server) start(t testing.TB, extraArgs ...string) {
	t.Helper()
	s.addr = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	s.args = extraArgs
	s.run(t)
}

// run starts the process on s.addr with s.args and waits until it serves.
func (s *Server) run(t testing.TB) {
	t.Helper()
	addr := s.addr
	args := append([]string{"serve", "--listen", addr, "--db", s.DB, "--log-level", "warn"}, s.args...)
	cmd := exec.Command(Binary(t), args...)
	cmd.Stdout = &syncWriter{s: s}
	cmd.Stderr = &syncWriter{s: s}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dynamopg: %v", err)
	}
	s.cmd = cmd
	s.URL = "http://" + addr
	if s.transport == nil {
		s.transport = sdkhttp.Transport()
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := (&http.Client{Transport: s.transport}).Get(s.URL + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Stop()
	t.Fatalf("dynamopg did not become healthy; logs:\n%s", s.Logs())
}

type syncWriter struct{ s *Server }

func (w *syncWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.logs.Write(p)
}

// Logs returns what the process printed so far (an in-process server: its
// records at warning level and above).
func (s *Server) Logs() string {
	if s.embedded != nil {
		return s.embedded.Logs()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

// Stop sends SIGTERM and waits for a graceful exit (an in-process server:
// closes it).
func (s *Server) Stop() {
	if s.embedded != nil {
		defer closeIdle(s.transport)
		if err := s.embedded.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "harness: stop the in-process %s server: %v\n", s.Backend, err)
		}
		return
	}
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	defer closeIdle(s.transport)
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(35 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}

// PID is the process id of the running server (0 when stopped, and for the
// shared in-process server).
func (s *Server) PID() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Kill ends the process with SIGKILL (crash tests). A shared in-process
// server cannot be killed.
func (s *Server) Kill() {
	if s.embedded != nil {
		panic("harness: Kill on the shared in-process server; crash tests start a process (Start)")
	}
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	defer closeIdle(s.transport)
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Resume starts the process again after Kill or Stop, on the same
// database, port and flags, so that clients keep their endpoint.
func (s *Server) Resume(t testing.TB) {
	t.Helper()
	s.Stop()
	s.run(t)
}

// Restart starts the process again on the same database and a new port.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if s.embedded != nil {
		t.Fatal("harness: Restart on the shared in-process server; restart tests start a process (Start)")
	}
	s.Stop()
	s.start(t)
}

// Client returns an SDK client for the server. Retries are off so that tests
// see every error the server returns.
func (s *Server) Client(opts ...func(*dynamodb.Options)) *dynamodb.Client {
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		HTTPClient:  &http.Client{Transport: s.transport, Timeout: 60 * time.Second},
	}
	all := append([]func(*dynamodb.Options){func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(s.URL)
		o.RetryMaxAttempts = 1
	}}, opts...)
	return dynamodb.NewFromConfig(cfg, all...)
}

// NewTransport is a client transport of its own for an SDK client built
// outside Client (see package sdkhttp for why it is not a plain one).
func NewTransport() http.RoundTripper { return sdkhttp.Transport() }

func closeIdle(rt http.RoundTripper) {
	if c, ok := rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Each runs f once per backend as a parallel-safe subtest with its own server.
func Each(t *testing.T, f func(t *testing.T, s *Server)) {
	for _, b := range Backends {
		t.Run(b, func(t *testing.T) {
			f(t, Start(t, b))
		})
	}
}

// Ctx is a test context with a generous deadline.
func Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

type bytesBuffer = bytes.Buffer
