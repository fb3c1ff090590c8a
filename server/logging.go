package server

import (
	"context"
	"log/slog"
)

type logAttrsKey struct{}

// withLogAttrs attaches attributes (the request id, the operation) to ctx;
// a logger built on ContextHandler adds them to every line logged with
// that context (slog's *Context methods).
func withLogAttrs(ctx context.Context, attrs ...slog.Attr) context.Context {
	prev, _ := ctx.Value(logAttrsKey{}).([]slog.Attr)
	all := make([]slog.Attr, 0, len(prev)+len(attrs))
	all = append(append(all, prev...), attrs...)
	return context.WithValue(ctx, logAttrsKey{}, all)
}

// LogAttrs returns the request attributes attached to ctx.
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
