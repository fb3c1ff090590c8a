// Package sdkhttp owns the HTTP round tripper that the tests and the
// benchmark give aws-sdk-go-v2 clients.
//
// It works around a client-side race between smithy-go and net/http. The
// SDK wraps each request body in a "safe" reader and closes it as soon as
// the response arrives. Meanwhile net/http's write loop, having sent the
// body, reads it once more to check for EOF. If it reads after the close,
// the safe reader's WriteTo returns io.EOF, io.Copy passes that on as an
// error, and net/http treats it as a failed request write: it closes the
// connection while the caller is still reading the response body. The
// caller then sees "deserialization failed … use of closed network
// connection" on a 200. Only a server that answers before the client's
// write loop runs again triggers it, which means a loaded machine and a
// fast local server, the case in every test run.
//
// The fix hands net/http an in-memory copy of the body that nobody else
// closes. Request bodies here are small JSON documents, so the copy costs
// nothing that matters.
package sdkhttp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// bufferedBodies is a RoundTripper that replaces the request body with an
// in-memory copy before the wrapped transport sees it.
type bufferedBodies struct {
	next http.RoundTripper
}

// Wrap returns next with request bodies buffered (see the package doc).
func Wrap(next http.RoundTripper) http.RoundTripper {
	return bufferedBodies{next: next}
}

// Transport is a clone of http.DefaultTransport, wrapped. Each caller gets
// its own connection pool.
func Transport() http.RoundTripper {
	return Wrap(http.DefaultTransport.(*http.Transport).Clone())
}

// RoundTrip implements http.RoundTripper.
func (b bufferedBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return b.next.RoundTrip(req)
	}
	data, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("sdkhttp: read request body: %w", err)
	}
	// A RoundTripper must not modify the caller's request.
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(data))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	out.ContentLength = int64(len(data))
	return b.next.RoundTrip(out)
}

// CloseIdleConnections closes the wrapped transport's idle connections.
func (b bufferedBodies) CloseIdleConnections() {
	if c, ok := b.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
