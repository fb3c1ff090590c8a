package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/dynamopg/dynamopg/server"
	"github.com/dynamopg/dynamopg/server/api"
	"github.com/dynamopg/dynamopg/server/auth"
	"github.com/dynamopg/dynamopg/server/backend"
	"github.com/dynamopg/dynamopg/server/store"
)

const shutdownGrace = 30 * time.Second

func serve(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	st := newSettings(fs)
	listen := st.String("listen", "DYNAMOPG_LISTEN", "127.0.0.1:8000", "address to listen on")
	db := st.String("db", "DYNAMOPG_DB", "sqlite:dynamopg.db", "database: postgres://…, sqlite:PATH or memory")
	st.mask("db", maskDB)
	dbMaxConns := st.Int("db-max-conns", "DYNAMOPG_DB_MAX_CONNS", 0, "PostgreSQL pool size; 0 is pgxpool's default (the larger of 4 and the number of CPUs)")
	noMigrate := st.Bool("no-migrate", "DYNAMOPG_NO_MIGRATE", false, "do not apply migrations at start")
	logLevel := st.String("log-level", "DYNAMOPG_LOG_LEVEL", "info", "log level: debug (every request), info (refused requests), warn (throttling), error")
	logFormat := st.String("log-format", "DYNAMOPG_LOG_FORMAT", "text", "log format: text or json")
	propagation := st.String("index-propagation", "DYNAMOPG_INDEX_PROPAGATION", "sync", "how writes reach new secondary indexes: sync (in the write's transaction) or async (through the queue)")
	ttlInterval := st.Duration("ttl-interval", "DYNAMOPG_TTL_INTERVAL", backend.DefaultTTLInterval, "how often the TTL sweeper deletes expired items; 0 runs no sweeper in this process")
	collLimit := st.Int64("item-collection-limit", "DYNAMOPG_ITEM_COLLECTION_LIMIT", 0, "item collection size limit in bytes on tables with local secondary indexes; 0 is the service's 10 GB")
	authMode := st.String("auth", "DYNAMOPG_AUTH", "none", "request authentication: none (accept any credentials) or sigv4 (verify signatures against --credentials-file and DYNAMOPG_CREDENTIALS)")
	credFile := st.String("credentials-file", "DYNAMOPG_CREDENTIALS_FILE", "", "with --auth sigv4: file of lines 'ACCESS_KEY_ID SECRET' (# comments allowed)")
	tlsCert := st.String("tls-cert", "DYNAMOPG_TLS_CERT", "", "PEM certificate file: serve HTTPS (with --tls-key)")
	tlsKey := st.String("tls-key", "DYNAMOPG_TLS_KEY", "", "PEM private key file of --tls-cert")
	reqTimeout := st.Duration("request-timeout", "DYNAMOPG_REQUEST_TIMEOUT", 30*time.Second, "deadline of one request's work; past it the running statement is cancelled and the client gets ThrottlingException (nothing applied) or, for a write whose outcome is unknown, InternalServerError; 0 for none")
	maxInFlight := st.Int("max-in-flight", "DYNAMOPG_MAX_IN_FLIGHT", 0, "requests served at once; more wait up to --in-flight-wait, then get ThrottlingException; 0 for no cap")
	inFlightWait := st.Duration("in-flight-wait", "DYNAMOPG_IN_FLIGHT_WAIT", time.Second, "how long a request waits for a slot under --max-in-flight")
	readHeaderTimeout := st.Duration("read-header-timeout", "DYNAMOPG_READ_HEADER_TIMEOUT", 10*time.Second, "time allowed to read a request's headers")
	readTimeout := st.Duration("read-timeout", "DYNAMOPG_READ_TIMEOUT", time.Minute, "time allowed to read a whole request, body included (bounds slow clients)")
	writeTimeout := st.Duration("write-timeout", "DYNAMOPG_WRITE_TIMEOUT", 2*time.Minute, "time allowed from the end of the request headers to the end of the response; keep it above --request-timeout")
	pprofAddr := st.String("pprof", "DYNAMOPG_PPROF", "", "address of a separate listener serving net/http/pprof (e.g. 127.0.0.1:6060); empty for none")
	gcHeadroom := st.Int("gc-headroom", "DYNAMOPG_GC_HEADROOM", 64, "MiB the heap may grow between garbage collections when the live heap is smaller (above it the collector runs as at GOGC=100); 0 for Go's default; ignored when GOGC or GOMEMLIMIT is set")
	idleTimeout := st.Duration("idle-timeout", "DYNAMOPG_IDLE_TIMEOUT", 5*time.Minute, "how long an idle keep-alive connection stays open")
	fs.Usage = st.usage("serve", "Run the DynamoDB-compatible server.", [][2]string{
		{"DYNAMOPG_CREDENTIALS", "with --auth sigv4: credentials as ACCESS_KEY_ID:SECRET,… (added to --credentials-file's)"},
	})
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	remember(*db)
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	log := newLogger(*logLevel, *logFormat)
	if *propagation != store.PropagationSync && *propagation != store.PropagationAsync {
		return fmt.Errorf("--index-propagation %q: want sync or async", *propagation)
	}
	if (*tlsCert == "") != (*tlsKey == "") {
		return fmt.Errorf("--tls-cert and --tls-key go together")
	}
	var verifier *auth.Verifier
	authDesc := "accept-any"
	switch *authMode {
	case "none", "":
	case "sigv4":
		creds := auth.Credentials{}
		if *credFile != "" {
			c, err := auth.LoadCredentialsFile(*credFile)
			if err != nil {
				return err
			}
			for k, v := range c {
				creds[k] = v
			}
		}
		if env := os.Getenv("DYNAMOPG_CREDENTIALS"); env != "" {
			c, err := auth.ParseCredentialsEnv(env)
			if err != nil {
				return fmt.Errorf("DYNAMOPG_CREDENTIALS: %w", err)
			}
			for k, v := range c {
				creds[k] = v
			}
		}
		if len(creds) == 0 {
			return fmt.Errorf("--auth sigv4 needs credentials: --credentials-file or DYNAMOPG_CREDENTIALS")
		}
		verifier = &auth.Verifier{Creds: creds}
		authDesc = fmt.Sprintf("sigv4 (%d access keys)", len(creds))
	default:
		return fmt.Errorf("--auth %q: want none or sigv4", *authMode)
	}
	log.Info("configuration", st.attrs()...)
	if *gcHeadroom < 0 {
		return fmt.Errorf("--gc-headroom %d: want 0 or more MiB", *gcHeadroom)
	}
	startGCTuner(uint64(*gcHeadroom) << 20)

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	be, err := backend.Open(ctx, *db, backend.Options{Migrate: !*noMigrate, MaxConns: int32(*dbMaxConns), ItemCollectionLimit: *collLimit, TTLInterval: *ttlInterval, Logger: log})
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	defer be.Close()

	var tlsCfg *tls.Config
	if *tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
		if err != nil {
			return fmt.Errorf("tls: %w", err)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	scheme := "http"
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
		scheme = "https"
	}
	srv := server.NewWithConfig(be.Store, log, server.Config{
		API:            api.Options{IndexPropagation: *propagation},
		Auth:           verifier,
		RequestTimeout: *reqTimeout,
		MaxInFlight:    *maxInFlight,
		QueueTimeout:   *inFlightWait,
		Version:        version,
	})
	// IdleTimeout is set on its own: left at zero, Go falls back to
	// ReadHeaderTimeout and closes idle keep-alive connections after 10 s,
	// racing clients that reuse them.
	httpSrv := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: *readHeaderTimeout,
		ReadTimeout:       *readTimeout,
		WriteTimeout:      *writeTimeout,
		IdleTimeout:       *idleTimeout,
		MaxHeaderBytes:    server.HeaderReadLimit,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	log.Info("dynamopg serving", "version", version, "listen", ln.Addr().String(), "scheme", scheme, "db", maskDB(*db), "auth", authDesc, "index_propagation", *propagation)

	if *pprofAddr != "" {
		if err := servePprof(ctx, *pprofAddr, log); err != nil {
			return err
		}
	}
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
	return newLoggerTo(os.Stderr, level, format)
}

func newLoggerTo(w io.Writer, level, format string) *slog.Logger {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		lv = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lv}
	var h slog.Handler
	if format == "json" {
		h = slog.NewJSONHandler(w, opts)
	} else {
		h = slog.NewTextHandler(w, opts)
	}
	return slog.New(server.ContextHandler{Handler: h})
}
