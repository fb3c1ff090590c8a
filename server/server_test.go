package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
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
	fs := &fakeStore{stats: map[string]float64{"acquired_conns": 1, "max_conns": 4}}
	s := NewWithConfig(fs, slog.New(slog.DiscardHandler), Config{})
	bg := context.Background()
	expired, cancel := context.WithTimeout(bg, -time.Second)
	defer cancel()

	check := func(what string, ctx context.Context, err error, wantName string, wantStatus int) {
		t.Helper()
		e := s.fault(ctx, bg, err)
		if e.Name() != wantName || e.Status != wantStatus {
			t.Errorf("%s: %s %d, want %s %d", what, e.Name(), e.Status, wantName, wantStatus)
		}
	}
	check("deadline, pool free", expired, fmt.Errorf("get: %w", context.DeadlineExceeded), "InternalServerError", 500)
	fs.stats["acquired_conns"] = 4
	check("deadline, pool exhausted", expired, fmt.Errorf("get: %w", context.DeadlineExceeded), "ThrottlingException", 400)
	fs.stats = map[string]float64{"writer_acquired_conns": 1, "writer_max_conns": 1, "reader_acquired_conns": 0, "reader_max_conns": 8}
	check("deadline, sqlite writer busy", expired, context.DeadlineExceeded, "ThrottlingException", 400)
	check("connect refused", bg, fmt.Errorf("x: %w", syscall.ECONNREFUSED), "ServiceUnavailable", http.StatusServiceUnavailable)
	check("admin shutdown", bg, &pgconn.PgError{Code: "57P01"}, "ServiceUnavailable", http.StatusServiceUnavailable)
	check("other", bg, errors.New("boom"), "InternalServerError", 500)
}

func TestContextHandler(t *testing.T) {
	var b strings.Builder
	log := slog.New(ContextHandler{slog.NewTextHandler(&b, nil)})
	ctx := withLogAttrs(context.Background(), slog.String("request_id", "ABC"))
	log.InfoContext(ctx, "inner")
	if !strings.Contains(b.String(), "request_id=ABC") {
		t.Errorf("got %q", b.String())
	}
}
