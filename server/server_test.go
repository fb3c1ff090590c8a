package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dynamopg/dynamopg/server/store"
)

// fakeStore answers Ping and PoolStats; the other methods are not called.
type fakeStore struct {
	store.Store
	stats map[string]float64
}

func (f *fakeStore) Ping(context.Context) error    { return nil }
func (f *fakeStore) PoolStats() map[string]float64 { return f.stats }

func TestTableOf(t *testing.T) {
	for body, want := range map[string]string{
		`{"TableName":"T1","Item":{"a":{"S":"x"}}}`:                          "T1",
		`{"Key":{"TableName":{"S":"no"}},"TableName":"T2"}`:                  "T2",
		`{"RequestItems":{"B":{},"A":{}}}`:                                   "A,B",
		`{"ResourceArn":"arn:aws:dynamodb:us-east-1:000000000000:table/T3"}`: "T3",
		`not json`: "",
		`{}`:       "",
	} {
		if got := tableOf([]byte(body)); got != want {
			t.Errorf("tableOf(%s) = %q, want %q", body, got, want)
		}
	}
}

func TestFaultMapping(t *testing.T) {
	bg := context.Background()
	expired, cancel := context.WithTimeout(bg, -time.Second)
	defer cancel()
	gone, cancelGone := context.WithCancel(bg)
	cancelGone()
	connectErr := &pgconn.ConnectError{Config: &pgconn.Config{}}
	for _, tc := range []struct {
		what        string
		op          string
		ctx, client context.Context
		err         error
		want        string
		status      int
		applied     bool
	}{
		{"read out of time", "GetItem", expired, bg, fmt.Errorf("get: %w", context.DeadlineExceeded), "ThrottlingException", 400, false},
		{"write out of time waiting for a connection", "PutItem", expired, bg, fmt.Errorf("put: %w", context.DeadlineExceeded), "ThrottlingException", 400, false},
		{"write cancelled by PostgreSQL", "PutItem", expired, bg, fmt.Errorf("put: %w", &pgconn.PgError{Code: "57014"}), "ThrottlingException", 400, false},
		{"write, no connection", "PutItem", bg, bg, fmt.Errorf("put: %w", connectErr), "ServiceUnavailable", http.StatusServiceUnavailable, false},
		{"write, admin shutdown", "UpdateItem", bg, bg, &pgconn.PgError{Code: "57P01"}, "InternalServerError", 500, true},
		{"read, admin shutdown", "Query", bg, bg, &pgconn.PgError{Code: "57P01"}, "ServiceUnavailable", http.StatusServiceUnavailable, false},
		{"write, connection reset", "TransactWriteItems", bg, bg, fmt.Errorf("x: %w", syscall.ECONNRESET), "InternalServerError", 500, true},
		{"write, unexpected EOF", "BatchWriteItem", bg, bg, fmt.Errorf("x: %w", io.ErrUnexpectedEOF), "InternalServerError", 500, true},
		{"read, unexpected EOF", "Scan", bg, bg, fmt.Errorf("x: %w", io.ErrUnexpectedEOF), "ServiceUnavailable", http.StatusServiceUnavailable, false},
		{"write, COMMIT answer lost (pgx: conn closed)", "TransactWriteItems", bg, bg, fmt.Errorf("x: %w", pgconn.ErrConnClosed), "InternalServerError", 500, true},
		{"write, other fault", "PutItem", bg, bg, errors.New("boom"), "InternalServerError", 500, true},
		{"read, other fault", "GetItem", bg, bg, errors.New("boom"), "InternalServerError", 500, false},
		{"client gone", "PutItem", gone, gone, context.Canceled, "InternalServerError", 500, false},
	} {
		e, applied := fault(tc.op, tc.ctx, tc.client, tc.err)
		if e.Name() != tc.want || e.Status != tc.status || applied != tc.applied {
			t.Errorf("%s: %s %d (may have applied: %v), want %s %d (%v)", tc.what, e.Name(), e.Status, applied, tc.want, tc.status, tc.applied)
		}
	}
}

func TestContextHandler(t *testing.T) {
	var b strings.Builder
	log := slog.New(ContextHandler{slog.NewTextHandler(&b, nil)})
	ctx := &requestCtx{Context: context.Background(), cl: &call{id: "ABC", op: "GetItem"}}
	log.InfoContext(ctx, "inner")
	if !strings.Contains(b.String(), "request_id=ABC op=GetItem") {
		t.Errorf("got %q", b.String())
	}
}

func TestLineLimiter(t *testing.T) {
	var mu sync.Mutex
	var b strings.Builder
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return b.Write(p)
	}), nil))
	l := newLineLimiter(log)
	k := lineKind{slog.LevelWarn, "GetItem", "ThrottlingException"}
	other := lineKind{slog.LevelInfo, "GetItem", "ValidationException"}
	allowed := 0
	for range 1000 {
		if l.allow(k) {
			allowed++
		}
	}
	if allowed != logBurst {
		t.Errorf("%d of 1000 lines allowed in an interval, want %d", allowed, logBurst)
	}
	if !l.allow(other) {
		t.Errorf("another kind of line was suppressed")
	}
	time.Sleep(logInterval + 200*time.Millisecond)
	mu.Lock()
	out := b.String()
	mu.Unlock()
	if !strings.Contains(out, `level=WARN msg="log lines suppressed" op=GetItem error_type=ThrottlingException suppressed=990 interval=1s`) {
		t.Errorf("no count of the suppressed lines: %q", out)
	}
	if !l.allow(k) {
		t.Errorf("a line was suppressed in the next interval")
	}
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
