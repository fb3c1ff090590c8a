package server

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

type logAttrsKey struct{}

// LogAttrs returns the request attributes attached to ctx (the request id
// and the operation, by requestCtx); a logger built on ContextHandler adds
// them to every line logged with that context (slog's *Context methods).
func LogAttrs(ctx context.Context) []slog.Attr {
	a, _ := ctx.Value(logAttrsKey{}).([]slog.Attr)
	return a
}

// ContextHandler wraps a slog.Handler so that records logged with a
// request's context carry its request id and operation.
type ContextHandler struct{ slog.Handler }

// Handle adds the context's request attributes.
func (h ContextHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx != nil {
		if attrs := LogAttrs(ctx); len(attrs) > 0 {
			r.AddAttrs(attrs...)
		}
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs keeps the wrapper.
func (h ContextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return ContextHandler{h.Handler.WithAttrs(attrs)}
}

// WithGroup keeps the wrapper.
func (h ContextHandler) WithGroup(name string) slog.Handler {
	return ContextHandler{h.Handler.WithGroup(name)}
}

// Repeated log lines. Under overload every refused request would write its
// "request failed" line (91,278 throttling WARNs in 30 s were measured), so
// the lines of one kind (level, operation, error type) are limited to
// logBurst per logInterval; the rest are counted, and the count is logged
// once that interval ends, as one "log lines suppressed" line of the same
// level. Metrics count every request whatever is logged.
const (
	logInterval = time.Second
	logBurst    = 10
)

type lineKind struct {
	level   slog.Level
	op, typ string
}

type lineCount struct {
	start      time.Time // the interval's start
	logged     int
	suppressed int
	flush      *time.Timer // set while a count waits for its interval's end
}

// lineLimiter limits repeated lines (see logBurst).
type lineLimiter struct {
	log   *slog.Logger
	mu    sync.Mutex
	kinds map[lineKind]*lineCount
}

func newLineLimiter(log *slog.Logger) *lineLimiter {
	return &lineLimiter{log: log, kinds: map[lineKind]*lineCount{}}
}

// allow reports whether a line of kind k may be written now; if not, it is
// counted for the interval's "log lines suppressed" line.
func (l *lineLimiter) allow(k lineKind) bool {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.kinds[k]
	if c == nil {
		c = &lineCount{start: now}
		l.kinds[k] = c
	}
	if now.Sub(c.start) >= logInterval && c.flush == nil {
		c.start, c.logged = now, 0
	}
	if c.logged < logBurst {
		c.logged++
		return true
	}
	c.suppressed++
	if c.flush == nil {
		c.flush = time.AfterFunc(c.start.Add(logInterval).Sub(now), func() { l.report(k) })
	}
	return false
}

// report logs the count of k's suppressed lines and starts a new interval.
func (l *lineLimiter) report(k lineKind) {
	l.mu.Lock()
	c := l.kinds[k]
	n := c.suppressed
	c.suppressed, c.flush = 0, nil
	c.start, c.logged = time.Now(), 0
	l.mu.Unlock()
	if n > 0 {
		l.log.LogAttrs(context.Background(), k.level, "log lines suppressed",
			slog.String("op", k.op), slog.String("error_type", k.typ), slog.Int("suppressed", n), slog.Duration("interval", logInterval))
	}
}

// requestCtx is a request's context as the API sees it: its Value answers
// the request's log attributes (LogAttrs), built only when a line is
// logged, so a request whose lines are all below the level pays nothing
// for them. It lives in the request's call, costing no allocation.
type requestCtx struct {
	context.Context
	cl *call
}

func (c *requestCtx) Value(key any) any {
	if _, ok := key.(logAttrsKey); ok {
		prev, _ := c.Context.Value(logAttrsKey{}).([]slog.Attr)
		return append(prev[:len(prev):len(prev)], slog.String("request_id", c.cl.id), slog.String("op", c.cl.op))
	}
	return c.Context.Value(key)
}
