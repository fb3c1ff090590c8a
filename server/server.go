// Package server is the HTTP transport of dynamopg: it speaks the DynamoDB
// JSON 1.0 protocol (POST / with X-Amz-Target) over Echo, hands each call to
// the api package, and encodes results and errors exactly as the service
// does (status, __type, message, x-amz-crc32).
package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/dynamopg/dynamopg/server/api"
	"github.com/dynamopg/dynamopg/server/store"
)

// Target prefixes the service accepts in X-Amz-Target.
const dynamoTarget = "DynamoDB_20120810."

// MaxBodyBytes caps a request body (the service's 16 MB request limit).
const MaxBodyBytes = 16 << 20

// Server is the HTTP front of one API.
type Server struct {
	api   *api.API
	store store.Store
	log   *slog.Logger
	echo  *echo.Echo
}

// New builds the HTTP server over a store.
func New(st store.Store, log *slog.Logger, opts api.Options) *Server {
	s := &Server{api: api.New(st, log, opts), store: st, log: log, echo: echo.New()}
	s.echo.HideBanner = true
	s.echo.HidePort = true
	s.echo.POST("/", s.handle)
	s.echo.GET("/health", s.health)
	s.echo.GET("/", func(c echo.Context) error { return c.String(http.StatusOK, "healthy: dynamopg") })
	return s
}

// Handler exposes the server as an http.Handler (tests, custom listeners).
func (s *Server) Handler() http.Handler { return s.echo }

// Echo exposes the underlying Echo instance for Start/Shutdown.
func (s *Server) Echo() *echo.Echo { return s.echo }

func (s *Server) health(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		return c.String(http.StatusServiceUnavailable, "database unavailable")
	}
	return c.String(http.StatusOK, "ok")
}

func (s *Server) handle(c echo.Context) (err error) {
	req := c.Request()
	reqID := newRequestID()
	c.Response().Header().Set("x-amzn-RequestId", reqID)
	defer func() {
		// A panic is a bug; the client still gets the service's 500 shape.
		if p := recover(); p != nil {
			s.log.Error("panic serving request", "request_id", reqID, "panic", p, "stack", string(debug.Stack()))
			err = s.writeError(c, api.InternalServerError())
		}
	}()
	body, err := io.ReadAll(io.LimitReader(req.Body, MaxBodyBytes+1))
	if err != nil {
		return s.writeError(c, api.SerializationError("Unable to read the request body"))
	}
	if len(body) > MaxBodyBytes {
		return s.writeError(c, api.ValidationError("Request size exceeded the maximum allowed size of %d bytes", MaxBodyBytes))
	}
	target := req.Header.Get("X-Amz-Target")
	if !strings.HasPrefix(target, dynamoTarget) {
		return s.writeError(c, api.UnknownOperationError())
	}
	op := strings.TrimPrefix(target, dynamoTarget)
	start := time.Now()
	out, err := s.api.Call(req.Context(), op, &api.Request{Body: body, Region: regionOf(req), Host: req.Host})
	if err != nil {
		var apiErr *api.Error
		if !errors.As(err, &apiErr) || apiErr == nil {
			s.log.Error("request failed", "request_id", reqID, "op", op, "err", err)
			apiErr = api.InternalServerError()
		} else {
			s.log.Debug("request refused", "request_id", reqID, "op", op, "error_type", apiErr.Name())
		}
		return s.writeError(c, apiErr)
	}
	s.log.Debug("request", "request_id", reqID, "op", op, "ms", time.Since(start).Milliseconds())
	data, err := json.Marshal(out)
	if err != nil {
		s.log.Error("encode response", "request_id", reqID, "op", op, "err", err)
		return s.writeError(c, api.InternalServerError())
	}
	return writeJSON(c, http.StatusOK, data)
}

func (s *Server) writeError(c echo.Context, e *api.Error) error {
	body := map[string]any{"__type": e.Type}
	if e.Message != "" {
		body["message"] = e.Message
	}
	for k, v := range e.Extra {
		body[k] = v
	}
	data, err := json.Marshal(body)
	if err != nil {
		data = []byte(`{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError"}`)
	}
	return writeJSON(c, e.Status, data)
}

func writeJSON(c echo.Context, status int, data []byte) error {
	h := c.Response().Header()
	h.Set("Content-Type", "application/x-amz-json-1.0")
	h.Set("x-amz-crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(data)), 10))
	h.Set("Content-Length", strconv.Itoa(len(data)))
	c.Response().WriteHeader(status)
	_, err := c.Response().Write(data)
	return err
}

// regionOf reads the region from a SigV4 Authorization header's credential
// scope (Credential=AKID/DATE/REGION/dynamodb/aws4_request). Signatures are
// not verified: any credentials are accepted.
func regionOf(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	if i := strings.Index(auth, "Credential="); i >= 0 {
		cred := auth[i+len("Credential="):]
		if j := strings.IndexAny(cred, ", "); j >= 0 {
			cred = cred[:j]
		}
		parts := strings.Split(cred, "/")
		if len(parts) >= 3 && parts[2] != "" {
			return parts[2]
		}
	}
	return "us-east-1"
}

func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return strings.ToUpper(hex.EncodeToString(b[:]))
}
