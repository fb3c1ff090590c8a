package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// CORS, as the service answers it (dynalite's and alternator's CORS tests,
// both measured against DynamoDB), so that browser tools can call the
// server: a request with an Origin header gets Access-Control-Allow-Origin
// "*" and the headers a script may read; a preflight (OPTIONS with an
// Origin) is answered 200 with no body, allowing the method and headers it
// asks for, for two days. A request without Origin gets no CORS header and
// costs one header lookup.

// corsExposeHeaders is the list the service sends.
const corsExposeHeaders = "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date"

// cors adds the CORS headers and answers preflights.
func (s *Server) cors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		// net/http canonicalizes the keys it reads: a map lookup is enough,
		// and cheaper than Get on every request.
		if len(r.Header["Origin"]) == 0 || r.Header["Origin"][0] == "" {
			return next(c)
		}
		h := c.Response().Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		if r.Method != http.MethodOptions {
			return next(c)
		}
		if v := r.Header.Get("Access-Control-Request-Headers"); v != "" {
			h.Set("Access-Control-Allow-Headers", v)
		}
		if v := r.Header.Get("Access-Control-Request-Method"); v != "" {
			h.Set("Access-Control-Allow-Methods", v)
		}
		h.Set("Access-Control-Max-Age", "172800")
		h.Set("x-amzn-RequestId", newRequestID())
		h.Set("Content-Length", "0")
		return c.NoContent(http.StatusOK)
	}
}
