package server

import (
	"bytes"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestReadBody(t *testing.T) {
	for _, n := range []int{0, 1, bodyChunk - 1, bodyChunk, bodyChunk + 1, 3*bodyChunk + 7, MaxBodyBytes} {
		data := bytes.Repeat([]byte{'x'}, n)
		r := httptest.NewRequest("POST", "/", bytes.NewReader(data))
		got, err := readBody(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%d bytes with Content-Length: got %d bytes, %v", n, len(got), err)
		}
		// Without a Content-Length (chunked).
		r = httptest.NewRequest("POST", "/", io.MultiReader(bytes.NewReader(data)))
		r.ContentLength = -1
		got, err = readBody(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%d bytes chunked: got %d bytes, %v", n, len(got), err)
		}
	}
	r := httptest.NewRequest("POST", "/", strings.NewReader(strings.Repeat("y", MaxBodyBytes+1)))
	r.ContentLength = -1
	if _, err := readBody(r); err != errBodyTooLarge {
		t.Errorf("chunked body over the limit: %v, want errBodyTooLarge", err)
	}
}
