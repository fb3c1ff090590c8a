package server

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Compressed requests. The service reads a body sent with Content-Encoding
// gzip or deflate (RFC 9110: deflate is the zlib format) and answers every
// other encoding, and every body that is not valid for its encoding (empty,
// truncated, not compressed at all), with a 500 before executing anything;
// alternator's test_compressed_request.py measured it. Two gzip members one
// after the other are one body (RFC 1952); two zlib streams are not, as on
// the service. Bytes after the end of the compressed data are refused too:
// the service ignores them, but a body is read whole or not at all here.
//
// The 16 MB limit applies to the decompressed body (the service fixed its
// decompression bomb in 2026, alternator's test_gzip_request_oversized),
// read in bounded chunks: a request holds at most its compressed body and
// the decompressed bytes read so far, never more than MaxBodyBytes+1 of them.
// The signature covers the bytes as sent, so decompression comes after it.

// errBadEncoding: an encoding the server does not read, or a body not
// valid for its encoding.
var errBadEncoding = errors.New("request body not valid for its Content-Encoding")

// decodeBody returns body decoded by the Content-Encoding enc ("" and
// identity: as it is).
func decodeBody(enc string, body []byte) ([]byte, error) {
	enc = strings.TrimSpace(enc)
	var r io.Reader
	src := bytes.NewReader(body)
	switch {
	case enc == "" || strings.EqualFold(enc, "identity"):
		return body, nil
	case strings.EqualFold(enc, "gzip"):
		gz, err := gzip.NewReader(src)
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", errBadEncoding, err)
		}
		r = gz
	case strings.EqualFold(enc, "deflate"):
		zr, err := zlib.NewReader(src)
		if err != nil {
			return nil, fmt.Errorf("%w: deflate: %v", errBadEncoding, err)
		}
		r = zr
	default:
		return nil, fmt.Errorf("%w: unknown encoding %q", errBadEncoding, enc)
	}
	out, err := readAtMost(r, MaxBodyBytes)
	switch {
	case errors.Is(err, errBodyTooLarge):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("%w: %s: %v", errBadEncoding, enc, err)
	case src.Len() > 0:
		// gzip reads on to a next member and fails on junk; zlib stops at
		// the end of its stream and leaves what follows.
		return nil, fmt.Errorf("%w: %s: %d bytes after the compressed data", errBadEncoding, enc, src.Len())
	}
	return out, nil
}
