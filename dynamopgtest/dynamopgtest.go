// Package dynamopgtest runs a DynamoDB-compatible server inside a Go test:
// dynamopg itself, in-process, on a free loopback port, with nothing to
// install (no Java, Docker or Node). By default its database is a private
// in-memory SQLite database; WithSQLiteFile and WithPostgres choose another.
//
//	func TestOrders(t *testing.T) {
//		t.Parallel()
//		srv := dynamopgtest.New(t) // stopped and cleaned up in t.Cleanup
//		_, err := srv.Client.CreateTable(ctx, &dynamodb.CreateTableInput{…})
//		…
//		other := myapp.New(srv.Config) // any aws.Config user
//	}
//
// Each server has its own database, listener, metrics and HTTP client, so
// parallel tests each start their own; it runs under -race.
package dynamopgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamopg/dynamopg/server"
	"github.com/dynamopg/dynamopg/server/api"
	"github.com/dynamopg/dynamopg/server/backend"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/tests/sdkhttp"
)

// Region and the static credentials Config carries. The server accepts any
// credentials and region.
const (
	Region          = "us-east-1"
	AccessKeyID     = "dynamopgtest"
	SecretAccessKey = "dynamopgtest"
)

// Server is one running dynamopg.
type Server struct {
	// URL is the endpoint, http://127.0.0.1:PORT.
	URL string
	// Config is ready for the SDK: region, static credentials, BaseEndpoint
	// URL and an HTTP client of the server's own.
	Config aws.Config
	// Client is a DynamoDB client built from Config.
	Client *dynamodb.Client

	be        *backend.Backend
	http      *http.Server
	served    chan error
	transport http.RoundTripper
	logs      *logBuffer // nil when WithLogger gave a logger
	closeOnce sync.Once
	closeErr  error
}

// Option configures a server.
type Option func(*settings)

type settings struct {
	db          string
	log         *slog.Logger
	ttl         time.Duration
	propagation string
}

// WithSQLiteFile keeps the database in a SQLite file (created if missing,
// kept after the server stops) instead of in memory.
func WithSQLiteFile(path string) Option { return func(s *settings) { s.db = "sqlite:" + path } }

// WithPostgres serves from the PostgreSQL database at url (postgres://…);
// its schema is installed or brought up to date at start. The database is
// left as it is when the server stops.
func WithPostgres(url string) Option { return func(s *settings) { s.db = url } }

// WithLogger sends the server's log records to log. Without it, records at
// warning level and above are kept and printed with t.Log when the test
// fails.
func WithLogger(log *slog.Logger) Option { return func(s *settings) { s.log = log } }

// WithTTLInterval sets how often the TTL sweeper deletes expired items
// (default 30 s, as `dynamopg serve`; 0 runs no sweeper).
func WithTTLInterval(d time.Duration) Option { return func(s *settings) { s.ttl = d } }

// WithAsyncIndexes propagates writes to secondary indexes through the
// asynchronous queue (serve's --index-propagation async) instead of in the
// write's transaction.
func WithAsyncIndexes() Option {
	return func(s *settings) { s.propagation = store.PropagationAsync }
}

// New starts a server for the test and stops it, closing its database, in
// t.Cleanup. It fails the test when the server cannot start.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, opts...)
	if err != nil {
		t.Fatalf("dynamopgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("dynamopgtest: %v", err)
		}
		if s.logs != nil && t.Failed() {
			if logs := s.logs.String(); logs != "" {
				t.Logf("dynamopg logs:\n%s", logs)
			}
		}
	})
	return s
}

// Start starts a server and returns once it answers; Close stops it. Use it
// where no testing.TB is at hand (TestMain, a server shared by a package).
func Start(ctx context.Context, opts ...Option) (*Server, error) {
	set := settings{db: "memory", ttl: backend.DefaultTTLInterval, propagation: store.PropagationSync}
	for _, o := range opts {
		o(&set)
	}
	s := &Server{served: make(chan error, 1)}
	log := set.log
	if log == nil {
		s.logs = &logBuffer{}
		log = slog.New(server.ContextHandler{Handler: slog.NewTextHandler(s.logs, &slog.HandlerOptions{Level: slog.LevelWarn})})
	}
	be, err := backend.Open(ctx, set.db, backend.Options{Migrate: true, TTLInterval: set.ttl, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	s.be = be
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		be.Close()
		return nil, fmt.Errorf("listen: %w", err)
	}
	srv := server.NewWithConfig(be.Store, log, server.Config{
		API:            api.Options{IndexPropagation: set.propagation},
		RequestTimeout: 30 * time.Second, // serve's --request-timeout
		Version:        "dynamopgtest",
	})
	s.http = &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	go func() { s.served <- s.http.Serve(ln) }()

	s.URL = "http://" + ln.Addr().String()
	s.transport = sdkhttp.Transport()
	s.Config = aws.Config{
		Region:       Region,
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKeyID, SecretAccessKey, ""),
		BaseEndpoint: aws.String(s.URL),
		HTTPClient:   &http.Client{Transport: s.transport},
	}
	s.Client = dynamodb.NewFromConfig(s.Config)
	if err := s.waitHealthy(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// waitHealthy returns once GET /health answers 200.
func (s *Server) waitHealthy(ctx context.Context) error {
	hc := &http.Client{Transport: s.transport}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/health", nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("GET /health: %s", resp.Status)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("server did not answer: %w", err)
		case err := <-s.served:
			s.served <- err // for Close
			return fmt.Errorf("serve: %w", err)
		case <-time.After(time.Millisecond):
		}
	}
}

// Close stops the server: it finishes the requests in flight (for at most
// 10 s), stops the background loops and closes the database. Calls after
// the first return the first's result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.http.Shutdown(ctx); err != nil {
			s.closeErr = fmt.Errorf("shutdown: %w", err)
			_ = s.http.Close()
		}
		if err := <-s.served; err != nil && !errors.Is(err, http.ErrServerClosed) && s.closeErr == nil {
			s.closeErr = fmt.Errorf("serve: %w", err)
		}
		if c, ok := s.transport.(interface{ CloseIdleConnections() }); ok {
			c.CloseIdleConnections()
		}
		s.be.Close()
	})
	return s.closeErr
}

// Logs returns the log records kept so far (warning level and above), or
// "" when WithLogger gave a logger.
func (s *Server) Logs() string {
	if s.logs == nil {
		return ""
	}
	return s.logs.String()
}

// logBuffer is a bytes.Buffer safe for the server's goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
