package server

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/dynamopg/dynamopg/server/api"
)

// Protocol-level refusals get the service's JSON error bodies, as every
// other answer does, wherever the request got far enough to have one:
// a wrong path or method (Echo's 404 and 405) and headers over
// MaxHeaderBytes. A request net/http cannot parse at all (a malformed
// request line or header, an invalid Content-Length, headers over
// HeaderReadLimit) never reaches the server and keeps net/http's plain
// answer: it has no request to answer in kind.

// MaxHeaderBytes caps a request's line and headers.
const MaxHeaderBytes = 64 << 10

// HeaderReadLimit is what the HTTP server reads of a request's headers
// (http.Server.MaxHeaderBytes): twice MaxHeaderBytes, so that headers a
// little over the cap are refused here, in JSON, and not by net/http.
const HeaderReadLimit = 2 * MaxHeaderBytes

// headerLimit refuses a request whose line and headers exceed
// MaxHeaderBytes (431, ValidationException).
func (s *Server) headerLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if headerBytes(c.Request()) > MaxHeaderBytes {
			e := api.ValidationError("Request header fields exceed the maximum allowed size of %d bytes", MaxHeaderBytes)
			e.Status = http.StatusRequestHeaderFieldsTooLarge
			return s.refuse(c, e)
		}
		return next(c)
	}
}

// headerBytes is the size of r's request line and headers as sent.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4
	n += len("Host: ") + len(r.Host) + 2 // net/http moves Host out of Header
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// protocolError is Echo's error handler: a route that does not exist
// (404) or a method it does not serve (405) is the service's
// UnknownOperationException with that status; anything else Echo reports
// is a SerializationException (4xx) or an InternalServerError.
func (s *Server) protocolError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status := http.StatusInternalServerError
	var he *echo.HTTPError
	if errors.As(err, &he) {
		status = he.Code
	}
	var e *api.Error
	switch {
	case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
		e = api.UnknownOperationError()
	case status >= 400 && status < 500:
		e = api.SerializationError(http.StatusText(status))
	default:
		e = api.InternalServerError()
	}
	e.Status = status
	_ = s.refuse(c, e)
}

// refuse answers a request the handler never took (counted and logged as
// the operation "unknown").
func (s *Server) refuse(c echo.Context, e *api.Error) error {
	cl := newCall()
	cl.setHeader(c.Response().Header(), hdrRequestID, cl.id)
	return s.fail(c, cl, e, nil)
}
