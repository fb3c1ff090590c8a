package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/dynamopg/dynamopg/server"
	"github.com/dynamopg/dynamopg/server/api"
	"github.com/dynamopg/dynamopg/server/store"
)

const shutdownGrace = 30 * time.Second

func serve(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", envOr("DYNAMOPG_LISTEN", "127.0.0.1:8000"), "address to listen on (env DYNAMOPG_LISTEN)")
	db := fs.String("db", envOr("DYNAMOPG_DB", "sqlite:dynamopg.db"), "database: postgres://…, sqlite:PATH or memory (env DYNAMOPG_DB)")
	noMigrate := fs.Bool("no-migrate", envOr("DYNAMOPG_NO_MIGRATE", "") == "true", "do not apply migrations at start (env DYNAMOPG_NO_MIGRATE=true)")
	logLevel := fs.String("log-level", envOr("DYNAMOPG_LOG_LEVEL", "info"), "log level: debug, info, warn, error (env DYNAMOPG_LOG_LEVEL)")
	propagation := fs.String("index-propagation", envOr("DYNAMOPG_INDEX_PROPAGATION", "sync"), "how writes reach new secondary indexes: sync (in the write's transaction) or async (through the queue) (env DYNAMOPG_INDEX_PROPAGATION)")
	collLimit := fs.Int64("item-collection-limit", envInt64("DYNAMOPG_ITEM_COLLECTION_LIMIT", 0), "item collection size limit in bytes on tables with local secondary indexes; 0 is the service's 10 GB (env DYNAMOPG_ITEM_COLLECTION_LIMIT)")
	logFormat := fs.String("log-format", envOr("DYNAMOPG_LOG_FORMAT", "text"), "log format: text or json (env DYNAMOPG_LOG_FORMAT)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	log := newLogger(*logLevel, *logFormat)
	if *propagation != store.PropagationSync && *propagation != store.PropagationAsync {
		return fmt.Errorf("--index-propagation %q: want sync or async", *propagation)
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	st, err := openStore(ctx, *db, !*noMigrate, log)
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	defer st.Close()

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := server.New(st, log, api.Options{IndexPropagation: *propagation, ItemCollectionLimit: *collLimit})
	// IdleTimeout is set on its own: left at zero, Go falls back to
	// ReadHeaderTimeout and closes idle keep-alive connections after 10 s,
	// racing clients that reuse them.
	httpSrv := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 5 * time.Minute}
	log.Info("dynamopg serving", "version", version, "listen", ln.Addr().String(), "db", maskURL(*db), "auth", "accept-any", "index_propagation", *propagation)

	errc := make(chan error, 1)
	go func() { errc <- httpSrv.Serve(ln) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := httpSrv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

func newLogger(level, format string) *slog.Logger {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		lv = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}
