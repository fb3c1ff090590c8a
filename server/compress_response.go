package server

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"strconv"
	"strings"
	"sync"
)

// Compressed responses. The service compresses a response of 4 KB or more
// with gzip or deflate when the request's Accept-Encoding asks for one, and
// its x-amz-crc32 is then the checksum of the compressed bytes, the bytes
// on the wire, which is what botocore and the Java and Go SDKs verify
// (alternator's test_compressed_response.py measured the threshold and the
// header's parsing against DynamoDB). Smaller responses, and every response
// to a request without Accept-Encoding, are sent as they are and cost no
// header lookup.

// compressMinBytes is the smallest response that is compressed.
const compressMinBytes = 4096

// acceptedEncoding picks gzip, deflate or nothing from an Accept-Encoding
// header, as the service reads it: a comma-separated list of codings, each
// with an optional q after a ';'. The highest q wins; a tie goes to the
// coding listed first; "*" stands for the codings not listed, gzip before
// deflate, after the listed ones; q=0 refuses a coding. Unknown codings
// (identity, br, x-gzip, "gzip br") are ignored. The q is the number after
// the first "q=" in the parameters; one that does not parse counts as 1,
// one above 1 as 1.
func acceptedEncoding(header string) string {
	if header == "" {
		return ""
	}
	type choice struct {
		q     float64
		pos   int // order of its first mention; -1 when only "*" names it
		named bool
	}
	gz, fl := choice{q: -1, pos: -1}, choice{q: -1, pos: -1}
	star := -1.0
	for i, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(part, ";")
		name = strings.TrimSpace(name)
		var c *choice
		switch {
		case strings.EqualFold(name, "gzip"):
			c = &gz
		case strings.EqualFold(name, "deflate"):
			c = &fl
		case name == "*":
			star = max(star, qValue(params))
			continue
		default:
			continue
		}
		if !c.named {
			c.named, c.pos = true, i
		}
		c.q = max(c.q, qValue(params))
	}
	for _, c := range []*choice{&gz, &fl} {
		if !c.named {
			c.q = star
		}
	}
	better := func(a, b choice) bool { // a before b
		if a.q != b.q {
			return a.q > b.q
		}
		if a.named != b.named {
			return a.named
		}
		return a.pos < b.pos // both named; neither named: gzip (a) first
	}
	best, enc := gz, "gzip"
	if better(fl, gz) {
		best, enc = fl, "deflate"
	}
	if best.q <= 0 {
		return ""
	}
	return enc
}

// qValue reads the q of a coding's parameters (see acceptedEncoding).
func qValue(params string) float64 {
	i := strings.Index(params, "q=")
	if i < 0 {
		return 1
	}
	v := params[i+2:]
	if j := strings.IndexByte(v, ';'); j >= 0 {
		v = v[:j]
	}
	q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || q > 1 || q != q {
		return 1
	}
	return q
}

// encoder compresses one response; pooled with its compressor's state.
type encoder struct {
	buf bytes.Buffer
	gz  *gzip.Writer
	zl  *zlib.Writer
}

var encoders = sync.Pool{New: func() any { return new(encoder) }}

// compress returns data compressed with enc, in e's buffer (valid until e
// goes back to the pool), or false when compression failed.
//
// The level is the fastest: the answer to a large Scan is compressed on the
// request's critical path, and level 1 takes a third of the time of the
// default for a few percent more bytes.
func (e *encoder) compress(enc string, data []byte) ([]byte, bool) {
	e.buf.Reset()
	var w interface {
		Write([]byte) (int, error)
		Close() error
	}
	switch enc {
	case "gzip":
		if e.gz == nil {
			e.gz, _ = gzip.NewWriterLevel(&e.buf, gzip.BestSpeed)
		} else {
			e.gz.Reset(&e.buf)
		}
		w = e.gz
	case "deflate":
		if e.zl == nil {
			e.zl, _ = zlib.NewWriterLevel(&e.buf, zlib.BestSpeed)
		} else {
			e.zl.Reset(&e.buf)
		}
		w = e.zl
	default:
		return nil, false
	}
	if _, err := w.Write(data); err != nil {
		return nil, false
	}
	if err := w.Close(); err != nil {
		return nil, false
	}
	return e.buf.Bytes(), true
}

// putEncoder returns e to the pool, unless a huge response grew its buffer.
func putEncoder(e *encoder) {
	if e.buf.Cap() > 4<<20 {
		e.buf = bytes.Buffer{}
	}
	encoders.Put(e)
}
