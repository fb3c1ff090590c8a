package server

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"strings"
	"testing"
)

// The cases are alternator's test_accept_encoding_header, which passes
// against DynamoDB: what the service picks for each Accept-Encoding.
func TestAcceptedEncoding(t *testing.T) {
	for _, tc := range []struct{ header, want string }{
		{"", ""}, {"identity", ""}, {"br", ""}, {"zstd", ""}, {"compress", ""}, {"x-gzip", ""},
		{"gzip", "gzip"}, {"deflate", "deflate"},
		{"gzip, deflate", "gzip"},
		{"br, identity, deflate, gzip", "deflate"},
		{"GZIP, identity", "gzip"},
		{"dog, gzip ,, cat", "gzip"},
		{"gzip;q=0.8, deflate;q=0.5", "gzip"},
		{"br, gzip;q=0, deflate; q = 0.5 , identity;q=0", "deflate"},
		{"*", "gzip"},
		{"*, deflate;q=0.5", "gzip"},
		{"*, deflate", "deflate"},
		{"*, identity", "gzip"},
		{"*, gzip;q=0.5", "deflate"},
		{"gzip ;q=0", ""},
		{"identity;q=0", ""},
		{"*;q=0", ""},
		{"*;q=0.5,identity", "gzip"},
		{"gzip;q=0.5,identity;q=0.8", "gzip"},
		{"br;q=0.8,identity;q=0.5,*;q=0", ""},
		{`"gzip"`, ""},
		{"gzip br", ""},
		{"gzip:q=1", ""},
		{"deflate;q=0.5, gzip;q=31", "gzip"},
		{"gzip;q=31,deflate;q=51", "gzip"},
		{"deflate;q=0.5, gzip;q=0.2", "deflate"},
		{"deflate;q=0.5, gzip;q=1;q=0.2", "gzip"},
		{"deflate;q=0.5,gzip;q=0.", "deflate"},
		{"deflate;q=0.5,gzip;q=0.x", "gzip"},
		{"deflate;q=0.5,gzip;q=0. x", "gzip"},
		{"deflate;q=-0.5,gzip;q=0.2", "gzip"},
		{"gzip;q= 0;q=1", ""},
		{"gzip;q =0;q=1", "gzip"},
		{"gzip; q=0;q=1", ""},
		{"gzip;nq=0;q=1", ""},
		{"gzip;q=0, gzip;q=1, gzip;q=0", "gzip"},
		{"br,identity;q=0.5,gzip;q=0.0001", "gzip"},
	} {
		if got := acceptedEncoding(tc.header); got != tc.want {
			t.Errorf("Accept-Encoding %q: %q, want %q", tc.header, got, tc.want)
		}
	}
}

func gzipped(parts ...string) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		w := gzip.NewWriter(&b)
		io.WriteString(w, p)
		w.Close()
	}
	return b.Bytes()
}

func deflated(parts ...string) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		w := zlib.NewWriter(&b)
		io.WriteString(w, p)
		w.Close()
	}
	return b.Bytes()
}

func TestDecodeBody(t *testing.T) {
	const doc = `{"TableName":"t"}`
	for _, tc := range []struct {
		what, enc string
		body      []byte
		want      string
	}{
		{"plain", "", []byte(doc), doc},
		{"identity", "identity", []byte(doc), doc},
		{"gzip", "gzip", gzipped(doc), doc},
		{"gzip, any case", " GZip ", gzipped(doc), doc},
		{"two gzip members", "gzip", gzipped(doc[:5], doc[5:]), doc},
		{"deflate", "deflate", deflated(doc), doc},
		{"large, in chunks", "gzip", gzipped(strings.Repeat("x", 3*bodyChunk+5)), strings.Repeat("x", 3*bodyChunk+5)},
	} {
		got, err := decodeBody(tc.enc, tc.body)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %.40q, %v", tc.what, got, err)
		}
	}
	z := gzipped(doc)
	for _, tc := range []struct {
		what, enc string
		body      []byte
	}{
		{"unknown encoding", "garbage", []byte(doc)},
		{"br", "br", []byte(doc)},
		{"gzip, not compressed", "gzip", []byte(doc)},
		{"gzip, empty", "gzip", nil},
		{"gzip, truncated", "gzip", z[:len(z)-1]},
		{"gzip, junk after", "gzip", append(append([]byte{}, z...), "junk"...)},
		{"deflate, not compressed", "deflate", []byte(doc)},
		{"deflate, empty", "deflate", nil},
		{"deflate, two streams", "deflate", deflated(doc[:5], doc[5:])},
		{"deflate, junk after", "deflate", append(deflated(doc), 'j')},
		{"deflate, gzip data", "deflate", z},
	} {
		if got, err := decodeBody(tc.enc, tc.body); !errors.Is(err, errBadEncoding) {
			t.Errorf("%s: %.40q, %v; want errBadEncoding", tc.what, got, err)
		}
	}
	if _, err := decodeBody("gzip", gzipped(strings.Repeat(" ", MaxBodyBytes+1))); !errors.Is(err, errBodyTooLarge) {
		t.Errorf("16 MB + 1 decompressed: %v, want errBodyTooLarge", err)
	}
	if got, err := decodeBody("gzip", gzipped(strings.Repeat(" ", MaxBodyBytes))); err != nil || len(got) != MaxBodyBytes {
		t.Errorf("16 MB decompressed: %d bytes, %v", len(got), err)
	}
}

func TestEncoderRoundTrip(t *testing.T) {
	data := []byte(strings.Repeat(`{"S":"value"},`, 2000))
	e := encoders.Get().(*encoder)
	defer putEncoder(e)
	for _, enc := range []string{"gzip", "deflate", "gzip"} {
		z, ok := e.compress(enc, data)
		if !ok || len(z) >= len(data) {
			t.Fatalf("%s: %d bytes, %v", enc, len(z), ok)
		}
		var r io.Reader
		var err error
		if enc == "gzip" {
			r, err = gzip.NewReader(bytes.NewReader(z))
		} else {
			r, err = zlib.NewReader(bytes.NewReader(z))
		}
		if err != nil {
			t.Fatal(err)
		}
		back, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("%s: round trip: %v", enc, err)
		}
	}
}
