// Package server is the HTTP transport of dynamopg: it speaks the DynamoDB
// JSON 1.0 protocol (POST / with X-Amz-Target) over Echo, hands each call to
// the api package, and encodes results and errors exactly as the service
// does (status, __type, message, x-amz-crc32). Around each call it assigns
// a request id, logs, counts metrics, verifies SigV4 signatures when asked
// (auth), bounds the request's time and the number of requests in flight,
// and answers database overload with errors the SDKs retry.
package server

import (
	"context"
	"errors"
	"hash/crc32"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/dynamopg/dynamopg/server/api"
	"github.com/dynamopg/dynamopg/server/auth"
	"github.com/dynamopg/dynamopg/server/store"
)

// Target prefixes the service accepts in X-Amz-Target.
const (
	dynamoTarget  = "DynamoDB_20120810."
	streamsTarget = "DynamoDBStreams_20120810."
)

// MaxBodyBytes caps a request body (the service's 16 MB request limit).
const MaxBodyBytes = 16 << 20

// Config is everything the transport needs besides the store.
type Config struct {
	// API are the operations' settings.
	API api.Options
	// Auth verifies SigV4 signatures; nil accepts any credentials.
	Auth *auth.Verifier
	// RequestTimeout bounds one request's work (its context deadline); a
	// request past it answers ThrottlingException when nothing was applied,
	// InternalServerError (500) for a write whose outcome is unknown
	// (overload.go). 0: no deadline.
	RequestTimeout time.Duration
	// MaxInFlight caps the requests served at once; 0: no cap. A request
	// that waits longer than QueueTimeout for a slot is refused with
	// ThrottlingException.
	MaxInFlight  int
	QueueTimeout time.Duration
	// Version is reported by dynamopg_build_info.
	Version string
}

// Server is the HTTP front of one API.
type Server struct {
	api   *api.API
	store store.Store
	log   *slog.Logger
	echo  *echo.Echo
	cfg   Config
	ops   map[string]bool
	// streamOps are the operations of the Streams API (streamsTarget).
	streamOps map[string]bool
	slots     chan struct{} // nil when MaxInFlight is 0
	// serve is the middleware and the routing every request goes through
	// (ServeHTTP), composed once.
	serve echo.HandlerFunc
	m     *serverMetrics
	lines *lineLimiter // limits repeated "request failed" lines
}

// New builds the HTTP server over a store with default settings (no
// authentication, no deadline, no in-flight cap).
func New(st store.Store, log *slog.Logger, opts api.Options) *Server {
	return NewWithConfig(st, log, Config{API: opts})
}

// NewWithConfig builds the HTTP server over a store.
func NewWithConfig(st store.Store, log *slog.Logger, cfg Config) *Server {
	if log == nil {
		log = slog.Default()
	}
	s := &Server{api: api.New(st, log, cfg.API), store: st, log: log, echo: echo.New(), cfg: cfg, ops: map[string]bool{}}
	for _, op := range s.api.Operations() {
		s.ops[op] = true
	}
	s.streamOps = map[string]bool{}
	for _, op := range s.api.StreamOperations() {
		s.streamOps[op] = true
	}
	if cfg.MaxInFlight > 0 {
		s.slots = make(chan struct{}, cfg.MaxInFlight)
	}
	s.m = newServerMetrics(s)
	s.lines = newLineLimiter(log)
	s.echo.HideBanner = true
	s.echo.HidePort = true
	s.echo.HTTPErrorHandler = s.protocolError
	// CORS and the header limit run before routing, for every path and
	// method, as Echo's Pre middleware would; Echo builds that chain again
	// for each request (three closures), so ServeHTTP runs it built once.
	s.serve = s.cors(s.headerLimit(func(c echo.Context) error {
		r := c.Request()
		s.echo.Router().Find(r.Method, echo.GetPath(r), c)
		return c.Handler()(c)
	}))
	s.echo.POST("/", s.handle)
	s.echo.GET("/health", s.health)
	s.echo.GET("/ready", s.ready)
	s.echo.GET("/metrics", s.metrics)
	s.echo.GET("/", func(c echo.Context) error { return c.String(http.StatusOK, "healthy: dynamopg") })
	return s
}

// Handler exposes the server as an http.Handler (tests, custom listeners).
func (s *Server) Handler() http.Handler { return s }

// ServeHTTP is Echo's ServeHTTP with the middleware chain built once.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := s.echo.AcquireContext()
	c.Reset(r, w)
	if err := s.serve(c); err != nil {
		s.echo.HTTPErrorHandler(err, c)
	}
	s.echo.ReleaseContext(c)
}

// Echo exposes the underlying Echo instance (its routes; serve requests
// through Handler, which adds CORS and the header limit).
func (s *Server) Echo() *echo.Echo { return s.echo }

// health answers while the process runs.
func (s *Server) health(c echo.Context) error {
	return c.String(http.StatusOK, "ok")
}

// ready answers 200 when the database answers and its schema is the one
// this build expects, 503 otherwise.
func (s *Server) ready(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.log.Warn("not ready: database unavailable", "err", err)
		return c.String(http.StatusServiceUnavailable, "not ready: database unavailable")
	}
	if err := s.store.SchemaCurrent(ctx); err != nil {
		s.log.Warn("not ready: schema", "err", err)
		return c.String(http.StatusServiceUnavailable, "not ready: schema not current")
	}
	return c.String(http.StatusOK, "ready")
}

// metrics serves GET /metrics (server_metrics.go).
func (s *Server) metrics(c echo.Context) error {
	s.m.handler.ServeHTTP(c.Response(), c.Request())
	return nil
}

// call is what one request learned, for its log line and metrics.
type call struct {
	id, op, akid string
	start        time.Time
	// body is the request of a known operation; its table is read from it
	// (tableOf) only for a log line that is written.
	body []byte
	// outcomeUnknown: a server fault after which the write may have been
	// applied (fault); the client got a 500.
	outcomeUnknown bool
	// clientFault: a 500 the service answers to a client's mistake (a body
	// not valid for its Content-Encoding); counted and logged as a client
	// error, since nothing on the server failed.
	clientFault bool
	// ctx is the request's context as the API sees it (requestCtx).
	ctx requestCtx
	// hdr backs the response header values the server sets (setHeader),
	// so that they cost no allocation of their own.
	hdr [4]string
}

// The response headers the server sets on every answer, by their
// canonical names (as Header.Set would store them).
const (
	hdrRequestID = iota
	hdrContentType
	hdrCRC32
	hdrContentLength
)

var hdrNames = [...]string{"X-Amzn-Requestid", "Content-Type", "X-Amz-Crc32", "Content-Length"}

// newCall starts the record of one request.
func newCall() *call {
	return &call{id: newRequestID(), op: "unknown", start: time.Now()}
}

// setHeader sets one of the response headers of hdrNames to v, as
// Header.Set does, its value slice backed by cl.
func (cl *call) setHeader(h http.Header, which int, v string) {
	cl.hdr[which] = v
	h[hdrNames[which]] = cl.hdr[which : which+1 : which+1]
}

// table is the table the request names, for its log line.
func (cl *call) table() string {
	if cl.body == nil {
		return ""
	}
	return tableOf(cl.body)
}

// yieldsBeforeWork reports whether a request of op with a body of n bytes
// can hold the CPU for a millisecond or more without blocking (many items
// read, decoded and encoded; on SQLite not one network wait). Reading the
// body to its end made net/http start the goroutine that watches the
// connection (its background read), which finishRequest then waits for;
// started but not yet run, it queues behind the other connections' work, and
// so does the response. With one P the connections served last kept being
// served first: TransactGetItems and BatchGetItem of 25 items on SQLite, 16
// clients, p50 1.1 ms but p99 420 ms. A yield once the body is read lets that
// goroutine park in the poller first: p99 17-20 ms at about the same
// throughput. Short requests do not yield: the yield raised GetItem's p99
// from 1.6 to 4.3 ms and TransactGetItems of 4 items' from 4 to 7-8 ms.
func yieldsBeforeWork(op string, n int) bool {
	switch op {
	case "Query", "Scan", "ExecuteStatement": // pages of up to 1 MB
		return true
	case "BatchGetItem", "BatchWriteItem", "TransactGetItems", "TransactWriteItems", "BatchExecuteStatement", "ExecuteTransaction":
		return n >= yieldBodyBytes
	}
	return false
}

// yieldBodyBytes is the smallest body of a batch or transaction that
// yields: a dozen keys or more (BatchGetItem of 25 keys is ~950 bytes,
// where the tail showed; TransactGetItems of 4 ~360 bytes, which does not).
const yieldBodyBytes = 512

func (s *Server) handle(c echo.Context) (err error) {
	req := c.Request()
	cl := newCall()
	cl.setHeader(c.Response().Header(), hdrRequestID, cl.id)
	s.m.inFlight.Add(1)
	defer s.m.inFlight.Add(-1)
	defer func() {
		// A panic is a bug; the client still gets the service's 500 shape.
		if p := recover(); p != nil {
			s.log.Error("panic serving request", "request_id", cl.id, "op", cl.op, "table", cl.table(), "panic", p, "stack", string(debug.Stack()))
			err = s.fail(c, cl, api.InternalServerError(), nil)
		}
	}()
	target := req.Header.Get("X-Amz-Target")
	callAPI := s.api.Call
	op, ok := strings.CutPrefix(target, dynamoTarget)
	known := ok && s.ops[op]
	if !ok {
		op, ok = strings.CutPrefix(target, streamsTarget)
		callAPI = s.api.CallStreams
		known = ok && s.streamOps[op]
	}
	if known {
		cl.op = op
	}

	// Everything that needs no body comes before the body is read, so that
	// an unsigned or refused request costs no memory and a request waiting
	// for a slot holds none: the size declared, the signature's headers,
	// then an in-flight slot; only then the body, against the size limit.
	if req.ContentLength > MaxBodyBytes {
		return s.fail(c, cl, bodyTooLarge(), nil)
	}
	var signed *auth.Signed
	if s.cfg.Auth != nil {
		var aerr *auth.Error
		if signed, aerr = s.cfg.Auth.CheckHeaders(req); aerr != nil {
			return s.fail(c, cl, authError(aerr), nil)
		}
	}
	ctx := req.Context()
	if s.slots != nil {
		if !s.acquireSlot(ctx) {
			return s.fail(c, cl, throttled(), nil)
		}
		defer func() { <-s.slots }()
	}
	body, rerr := readBody(req)
	switch {
	case errors.Is(rerr, errBodyTooLarge):
		return s.fail(c, cl, bodyTooLarge(), nil)
	case rerr != nil:
		return s.fail(c, cl, api.SerializationError("Unable to read the request body"), rerr)
	}
	if yieldsBeforeWork(op, len(body)) {
		runtime.Gosched()
	}
	if signed != nil {
		if aerr := signed.VerifyBody(req, body); aerr != nil {
			return s.fail(c, cl, authError(aerr), nil)
		}
		cl.akid = signed.AccessKeyID
	}
	if enc := req.Header["Content-Encoding"]; len(enc) > 0 && enc[0] != "" {
		var derr error
		if body, derr = decodeBody(enc[0], body); derr != nil {
			if errors.Is(derr, errBodyTooLarge) {
				return s.fail(c, cl, bodyTooLarge(), nil)
			}
			cl.clientFault = true
			return s.fail(c, cl, api.InternalServerError(), derr)
		}
	}
	if !ok {
		return s.fail(c, cl, api.UnknownOperationError(), nil)
	}
	if cl.op != "unknown" {
		cl.body = body
	}

	if s.cfg.RequestTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.cfg.RequestTimeout)
		defer cancel()
	}
	cl.ctx = requestCtx{Context: ctx, cl: cl}
	ctx = &cl.ctx
	out, err := callAPI(ctx, op, &api.Request{Body: body, Region: regionOf(req), Host: req.Host})
	if err != nil {
		var apiErr *api.Error
		if errors.As(err, &apiErr) && apiErr != nil {
			return s.fail(c, cl, apiErr, nil)
		}
		e, applied := fault(cl.op, ctx, req.Context(), err)
		cl.outcomeUnknown = applied
		return s.fail(c, cl, e, err)
	}
	if _, ok := out.(api.NoBody); ok {
		s.done(cl, http.StatusOK, "", nil)
		return writeJSON(c, cl, http.StatusOK, nil)
	}
	buf := getResponseBuffer()
	data, err := appendResponse(*buf, out)
	if err != nil {
		putResponseBuffer(buf, data)
		return s.fail(c, cl, api.InternalServerError(), err)
	}
	s.done(cl, http.StatusOK, "", nil)
	err = writeJSON(c, cl, http.StatusOK, data)
	putResponseBuffer(buf, data)
	return err
}

// acquireSlot waits for an in-flight slot for at most QueueTimeout.
func (s *Server) acquireSlot(ctx context.Context) bool {
	select {
	case s.slots <- struct{}{}:
		return true
	default:
	}
	wait := s.cfg.QueueTimeout
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func (s *Server) fail(c echo.Context, cl *call, e *api.Error, cause error) error {
	s.done(cl, e.Status, e.Name(), cause)
	return s.writeError(c, cl, e)
}

// done logs the request and counts it. Item contents are never logged.
func (s *Server) done(cl *call, status int, errType string, cause error) {
	elapsed := time.Since(cl.start)
	outcome := outcomeSuccess
	switch {
	case cl.clientFault:
		outcome = outcomeClientError
	case status >= 500:
		outcome = outcomeServerError
	case errType == "ThrottlingException":
		outcome = outcomeThrottled
	case status >= 400:
		outcome = outcomeClientError
	}
	s.m.observe(cl.op, outcome, elapsed.Seconds())
	if errType != "" {
		s.m.errors.Inc(cl.op, errType)
	}
	level := slog.LevelDebug
	msg := "request"
	if errType != "" {
		msg = "request failed"
		switch outcome {
		case outcomeServerError:
			level = slog.LevelError
		case outcomeThrottled:
			level = slog.LevelWarn
		default:
			level = slog.LevelInfo
		}
	}
	if !s.log.Enabled(context.Background(), level) {
		return // the log line's attributes, the table above all, cost CPU
	}
	if errType != "" && !s.lines.allow(lineKind{level, cl.op, errType}) {
		return
	}
	attrs := []slog.Attr{slog.String("request_id", cl.id), slog.String("op", cl.op)}
	if table := cl.table(); table != "" {
		attrs = append(attrs, slog.String("table", table))
	}
	if cl.akid != "" {
		attrs = append(attrs, slog.String("access_key_id", cl.akid))
	}
	attrs = append(attrs, slog.Int("status", status), slog.Float64("ms", float64(elapsed.Microseconds())/1000))
	if errType != "" {
		attrs = append(attrs, slog.String("error_type", errType))
	}
	if cl.outcomeUnknown {
		attrs = append(attrs, slog.String("outcome", "unknown"))
	}
	if cause != nil {
		attrs = append(attrs, slog.String("err", cause.Error()))
	}
	s.log.LogAttrs(context.Background(), level, msg, attrs...)
}

func (s *Server) writeError(c echo.Context, cl *call, e *api.Error) error {
	body := map[string]any{"__type": e.Type}
	if e.Message != "" {
		body["message"] = e.Message
	}
	for k, v := range e.Extra {
		body[k] = v
	}
	// appendResponse writes what json.Marshal would, without reflection
	// for the maps and items of an error body: a refusal under overload
	// should cost little.
	buf := getResponseBuffer()
	data, err := appendResponse(*buf, body)
	if err != nil {
		data = append(data[:0], `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError"}`...)
	}
	err = writeJSON(c, cl, e.Status, data)
	putResponseBuffer(buf, data)
	return err
}

// writeJSON writes the response: its headers and body in one write, with
// Content-Length (net/http buffers both until the handler returns).
func writeJSON(c echo.Context, cl *call, status int, data []byte) error {
	h := c.Response().Header()
	if len(data) >= compressMinBytes {
		if enc := acceptedEncoding(c.Request().Header.Get("Accept-Encoding")); enc != "" {
			e := encoders.Get().(*encoder)
			defer putEncoder(e)
			if z, ok := e.compress(enc, data); ok {
				data = z
				h.Set("Content-Encoding", enc)
			}
		}
	}
	cl.setHeader(h, hdrContentType, "application/x-amz-json-1.0")
	// The two numbers share one string: one allocation.
	var nums [24]byte
	b := strconv.AppendUint(nums[:0], uint64(crc32.ChecksumIEEE(data)), 10)
	n := len(b)
	b = strconv.AppendInt(b, int64(len(data)), 10)
	both := string(b)
	cl.setHeader(h, hdrCRC32, both[:n])
	cl.setHeader(h, hdrContentLength, both[n:])
	c.Response().WriteHeader(status)
	_, err := c.Response().Write(data)
	return err
}

// authError renders a signature refusal (all are 400s of the coral namespace).
func authError(e *auth.Error) *api.Error {
	return &api.Error{Type: "com.amazon.coral.service#" + e.Name, Message: e.Message, Status: http.StatusBadRequest}
}

// bodyTooLarge refuses a body over MaxBodyBytes with 413, as the service
// does (dynalite and alternator measured the status), whether the size was
// declared or found while reading: the rest of the body is never read.
func bodyTooLarge() *api.Error {
	e := api.ValidationError("Request size exceeded the maximum allowed size of %d bytes", MaxBodyBytes)
	e.Status = http.StatusRequestEntityTooLarge
	return e
}

// regionOf reads the region from a SigV4 Authorization header's credential
// scope (Credential=AKID/DATE/REGION/dynamodb/aws4_request).
func regionOf(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	if i := strings.Index(auth, "Credential="); i >= 0 {
		cred := auth[i+len("Credential="):]
		if j := strings.IndexAny(cred, ", "); j >= 0 {
			cred = cred[:j]
		}
		// The third of the scope's parts.
		_, rest, ok1 := strings.Cut(cred, "/")
		_, rest, ok2 := strings.Cut(rest, "/")
		region, _, _ := strings.Cut(rest, "/")
		if ok1 && ok2 && region != "" {
			return region
		}
	}
	return "us-east-1"
}

// newRequestID is 32 upper-case hex digits, random. An id names a request
// in logs; nothing depends on its being unpredictable, so it comes from
// the runtime's per-thread generator (ChaCha8 seeded by the system) rather
// than from crypto/rand, a system call per request.
func newRequestID() string {
	const digits = "0123456789ABCDEF"
	var b [32]byte
	hi, lo := rand.Uint64(), rand.Uint64()
	for i := range 16 {
		b[15-i] = digits[hi&0xF]
		b[31-i] = digits[lo&0xF]
		hi >>= 4
		lo >>= 4
	}
	return string(b[:])
}
