package server

import (
	"errors"
	"io"
	"net/http"
)

// errBodyTooLarge: the body is longer than MaxBodyBytes.
var errBodyTooLarge = errors.New("request body over the size limit")

// bodyChunk is the first allocation for a body, and the growth step's floor.
const bodyChunk = 64 << 10

// readBody reads the request body, at most MaxBodyBytes. Its buffer grows
// with the bytes that arrive (doubling, never past the declared
// Content-Length), so a client that declares 16 MB and sends nothing holds
// 64 KB, not 16 MB, while it waits out the read timeout.
func readBody(r *http.Request) ([]byte, error) {
	limit := int64(MaxBodyBytes)
	if r.ContentLength >= 0 {
		limit = min(limit, r.ContentLength)
	}
	return readAtMost(r.Body, limit)
}

// readAtMost reads r to its end into a buffer that grows with the bytes
// read, from 64 KB doubling up to limit+1: one byte past the limit proves
// the input too long (errBodyTooLarge) without reading the rest.
func readAtMost(r io.Reader, limit int64) ([]byte, error) {
	buf := make([]byte, 0, min(limit, bodyChunk)+1)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, errBodyTooLarge
			}
			next := min(max(2*int64(cap(buf)), bodyChunk), limit+1)
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			if int64(len(buf)) > limit {
				return nil, errBodyTooLarge
			}
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
