package e2e

// Compressed requests and responses (issue 18). The service reads request
// bodies sent with Content-Encoding gzip or deflate, with the 16 MB limit
// on the decompressed size, and answers 500 to an encoding it does not
// read or a body not valid for its encoding, executing nothing
// (alternator's test_compressed_request.py, measured against DynamoDB). It
// compresses responses of 4 KB or more when Accept-Encoding asks, with
// x-amz-crc32 over the compressed bytes, which the SDKs verify
// (test_compressed_response.py). Before this, a compressed body was parsed
// as JSON (a SerializationException) and no response was compressed.

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func gzipBytes(parts ...string) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		w := gzip.NewWriter(&b)
		io.WriteString(w, p)
		w.Close()
	}
	return b.Bytes()
}

func zlibBytes(parts ...string) []byte {
	var b bytes.Buffer
	for _, p := range parts {
		w := zlib.NewWriter(&b)
		io.WriteString(w, p)
		w.Close()
	}
	return b.Bytes()
}

// rawPost posts body to the server with extra headers; it reads the
// response body as sent (no transparent decompression).
func rawPost(t *testing.T, s *harness.Server, op string, body []byte, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(harness.Ctx(t), http.MethodPost, s.URL+"/", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDTEST/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000")
	req.Header.Set("X-Amz-Date", time.Now().UTC().Format("20060102T150405Z"))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

func TestCompressedRequest(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createHashTable(t, c, "gzreq")
		putDoc := func(k string, extra string) string {
			return `{"TableName":"` + table + `","Item":{"pk":{"S":"` + k + `"},"v":{"S":"` + k + `"}` + extra + `}}`
		}

		// Accepted: the item is written.
		long := strings.Repeat("x", 200000)
		for _, tc := range []struct {
			what, enc string
			body      func(doc string) []byte
			extra     string
		}{
			{"gzip", "gzip", func(d string) []byte { return gzipBytes(d) }, ""},
			{"gzip, upper case", "GZIP", func(d string) []byte { return gzipBytes(d) }, ""},
			{"two gzip members", "gzip", func(d string) []byte { return gzipBytes(d[:10], d[10:]) }, ""},
			{"deflate", "deflate", func(d string) []byte { return zlibBytes(d) }, ""},
			{"identity", "identity", func(d string) []byte { return []byte(d) }, ""},
			{"a long body, compressing well", "gzip", func(d string) []byte { return gzipBytes(d) }, `,"long":{"S":"` + long + `"}`},
		} {
			k := "ok-" + strings.ReplaceAll(tc.what, " ", "-")
			resp, data := rawPost(t, s, "PutItem", tc.body(putDoc(k, tc.extra)), map[string]string{"Content-Encoding": tc.enc})
			if resp.StatusCode != 200 {
				t.Errorf("%s: %d %s", tc.what, resp.StatusCode, data)
				continue
			}
			if got := get(t, c, table, Item{"pk": S(k)}); got == nil || canon(got["v"]) == nil {
				t.Errorf("%s: the item was not written", tc.what)
			}
		}

		// Refused with the service's 500, and nothing executed.
		for _, tc := range []struct {
			what, enc string
			body      func(doc string) []byte
		}{
			{"an unknown encoding", "garbage", func(d string) []byte { return []byte(d) }},
			{"br", "br", func(d string) []byte { return []byte(d) }},
			{"gzip, not compressed", "gzip", func(d string) []byte { return []byte(d) }},
			{"gzip, empty", "gzip", func(string) []byte { return nil }},
			{"gzip, truncated", "gzip", func(d string) []byte { z := gzipBytes(d); return z[:len(z)-1] }},
			{"gzip, junk after", "gzip", func(d string) []byte { return append(gzipBytes(d), "junk"...) }},
			{"deflate, not compressed", "deflate", func(d string) []byte { return []byte(d) }},
			{"deflate, empty", "deflate", func(string) []byte { return nil }},
			{"deflate, two streams", "deflate", func(d string) []byte { return zlibBytes(d[:10], d[10:]) }},
		} {
			k := "bad-" + strings.ReplaceAll(tc.what, " ", "-")
			resp, data := rawPost(t, s, "PutItem", tc.body(putDoc(k, "")), map[string]string{"Content-Encoding": tc.enc})
			code, _ := rawError(data)
			if resp.StatusCode != 500 || code != "InternalServerError" {
				t.Errorf("%s: %d %s, want 500 InternalServerError", tc.what, resp.StatusCode, data)
			}
			checkCRCAndType(t, tc.what, resp, data)
			if got := get(t, c, table, Item{"pk": S(k)}); got != nil {
				t.Errorf("%s: the refused PutItem wrote its item", tc.what)
			}
		}

		// The 16 MB limit is on the decompressed body.
		k := "bomb"
		doc := putDoc(k, "")
		bomb := gzipBytes(doc[:len(doc)-1] + strings.Repeat(" ", 17<<20) + "}")
		resp, data := rawPost(t, s, "PutItem", bomb, map[string]string{"Content-Encoding": "gzip"})
		if resp.StatusCode != http.StatusRequestEntityTooLarge || len(bomb) > 1<<20 {
			t.Errorf("%d compressed bytes decompressing to 17 MB: %d %s, want 413", len(bomb), resp.StatusCode, data)
		}
		if get(t, c, table, Item{"pk": S(k)}) != nil {
			t.Error("the oversized PutItem wrote its item")
		}
	})
}

// bigItem puts an item whose GetItem answer is about n bytes.
func bigItem(t *testing.T, c *dynamodb.Client, table, k string, n int) {
	t.Helper()
	put(t, c, table, Item{"pk": S(k), "a": S(strings.Repeat("x", n))})
}

func TestCompressedResponse(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createHashTable(t, c, "gzresp")
		bigItem(t, c, table, "big", 10000)
		bigItem(t, c, table, "small", 2000)
		getDoc := func(k string) []byte { return []byte(`{"TableName":"` + table + `","Key":{"pk":{"S":"` + k + `"}}}`) }

		for _, tc := range []struct {
			key, accept, want string
		}{
			{"big", "", ""},
			{"big", "gzip", "gzip"},
			{"big", "deflate", "deflate"},
			{"big", "gzip, deflate, br", "gzip"},
			{"big", "br, deflate;q=0.5, gzip;q=0.1", "deflate"},
			{"big", "identity", ""},
			{"big", "gzip;q=0", ""},
			{"small", "gzip", ""}, // under 4 KB
		} {
			resp, body := rawPost(t, s, "GetItem", getDoc(tc.key), map[string]string{"Accept-Encoding": tc.accept})
			what := fmt.Sprintf("GetItem %s, Accept-Encoding %q", tc.key, tc.accept)
			if resp.StatusCode != 200 {
				t.Errorf("%s: %d %s", what, resp.StatusCode, body)
				continue
			}
			if got := resp.Header.Get("Content-Encoding"); got != tc.want {
				t.Errorf("%s: Content-Encoding %q, want %q", what, got, tc.want)
			}
			// x-amz-crc32 is over the bytes as sent, compressed or not.
			if got, want := resp.Header.Get("X-Amz-Crc32"), strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10); got != want {
				t.Errorf("%s: x-amz-crc32 %s, want %s (the bytes on the wire)", what, got, want)
			}
			if got := resp.Header.Get("Content-Length"); got != strconv.Itoa(len(body)) {
				t.Errorf("%s: Content-Length %s for %d bytes", what, got, len(body))
			}
			var r io.Reader = bytes.NewReader(body)
			var err error
			switch resp.Header.Get("Content-Encoding") {
			case "gzip":
				r, err = gzip.NewReader(r)
			case "deflate":
				r, err = zlib.NewReader(r)
			}
			if err != nil {
				t.Errorf("%s: %v", what, err)
				continue
			}
			plain, err := io.ReadAll(r)
			if err != nil || !bytes.Contains(plain, []byte(`"pk":{"S":"`+tc.key+`"}`)) {
				t.Errorf("%s: body does not decode to the item: %v %.80q", what, err, plain)
			}
			if tc.want != "" && len(body)*10 > len(plain) {
				t.Errorf("%s: %d bytes for %d: not compressed", what, len(body), len(plain))
			}
		}

		// The Go SDK's own gzip support: it asks for gzip, verifies the
		// crc32 of the compressed body and decompresses it.
		var seen []string
		gz := s.Client(func(o *dynamodb.Options) {
			o.EnableAcceptEncodingGzip = true
			o.HTTPClient = &http.Client{Transport: encodingRecorder{next: harness.NewTransport(), seen: &seen}}
		})
		out, err := gz.GetItem(harness.Ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("big")}})
		must(t, err)
		if got := canon(out.Item["a"]); fmt.Sprint(got) != fmt.Sprint(canon(S(strings.Repeat("x", 10000)))) {
			t.Errorf("GetItem through the SDK with gzip: wrong item")
		}
		if len(seen) != 1 || seen[0] != "gzip" {
			t.Errorf("the SDK's responses were encoded %q, want one gzip response", seen)
		}
	})
}

// encodingRecorder records each response's Content-Encoding.
type encodingRecorder struct {
	next http.RoundTripper
	seen *[]string
}

func (r encodingRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err == nil {
		*r.seen = append(*r.seen, resp.Header.Get("Content-Encoding"))
	}
	return resp, err
}

// boto3CompressedScript reads a large item with Accept-Encoding gzip and
// deflate. botocore verifies x-amz-crc32 over the raw body and retries on a
// mismatch, so every call must take exactly one HTTP request; the body is
// decompressed before parsing, as boto3 does not (alternator's
// client_response_decompression).
const boto3CompressedScript = `
import sys, gzip, zlib, binascii, boto3
from botocore.config import Config
url, table, accept = sys.argv[1], sys.argv[2], sys.argv[3]
c = boto3.client("dynamodb", endpoint_url=url, config=Config(retries={"mode": "standard", "total_max_attempts": 3}))
sends, seen = [], []
def add_header(params, **kw):
    params["headers"]["Accept-Encoding"] = accept
def count(request, **kw):
    sends.append(1)
def decompress(response_dict, **kw):
    body, h = response_dict["body"], response_dict["headers"]
    if binascii.crc32(body) & 0xffffffff != int(h["x-amz-crc32"]):
        raise SystemExit("x-amz-crc32 is not the checksum of the body as sent")
    enc = h.get("Content-Encoding", "")
    seen.append(enc)
    if enc == "gzip":
        response_dict["body"] = gzip.decompress(body)
    elif enc == "deflate":
        response_dict["body"] = zlib.decompress(body)
c.meta.events.register("before-call", add_header)
c.meta.events.register("before-send", count)
c.meta.events.register("before-parse", decompress)
r = c.get_item(TableName=table, Key={"pk": {"S": "big"}}, ConsistentRead=True)
assert r["Item"]["a"]["S"] == "x" * 10000, r
assert len(sends) == 1, "%d requests: botocore found a crc32 mismatch" % len(sends)
assert seen == [accept], seen
r = c.scan(TableName=table)
assert r["Count"] == 2, r
assert len(sends) == 2, sends
print("ok")
`

func TestCompressedResponseBoto3(t *testing.T) {
	t.Parallel()
	py := pythonWithBoto3()
	if py == "" {
		skipUnlessCI(t, "no python3 with boto3 installed")
	}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createHashTable(t, c, "gzboto")
		bigItem(t, c, table, "big", 10000)
		bigItem(t, c, table, "other", 10000)
		for _, accept := range []string{"gzip", "deflate"} {
			cmd := exec.CommandContext(harness.Ctx(t), py, "-c", boto3CompressedScript, s.URL, table, accept)
			cmd.Env = clientEnv(t)
			out, err := cmd.CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != "ok" {
				t.Errorf("boto3 with Accept-Encoding %s: %v\n%s", accept, err, out)
			}
		}
	})
}
