package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/api"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore"
)

// BenchmarkServe measures one request's whole cost in this process, the
// server's HTTP layer included: a raw HTTP/1.1 client on a keep-alive
// loopback connection (as cmd/dynamobench's load generator sends them)
// against a server configured as `dynamopg serve` configures it, over an
// in-memory SQLite database. allocs/op counts the server's allocations
// (and the client's few); the store's share is the same before and after
// a change to the transport, so differences are the transport's.
func BenchmarkServe(b *testing.B) {
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, sqlitestore.MemoryDSN, sqlitestore.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	log := slog.New(ContextHandler{slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn})})
	srv := NewWithConfig(st, log, Config{API: api.Options{}, RequestTimeout: 30 * time.Second})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: 2 * time.Minute, IdleTimeout: 5 * time.Minute, MaxHeaderBytes: HeaderReadLimit}
	go hs.Serve(ln)
	defer hs.Close()

	c := newRawClient(b, ln.Addr().String())
	defer c.conn.Close()
	c.call(b, "CreateTable", `{"TableName":"bench","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],`+
		`"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`)
	payload := strings.Repeat("x", 900)
	item := func(pk string) string {
		return `{"pk":{"S":"` + pk + `"},"sk":{"S":"s"},"g":{"S":"g"},"g2":{"S":"g"},"n":{"N":"1"},"data":{"S":"` + payload + `"}}`
	}
	const keys = 100
	for i := range keys {
		c.call(b, "PutItem", `{"TableName":"bench","Item":`+item(fmt.Sprintf("k%04d", i))+`}`)
	}
	seq := 0
	for _, w := range []struct {
		name, op string
		body     func(i int) string
		status   string // of the answers, when not 200
	}{
		{"put", "PutItem", func(int) string {
			seq++
			return `{"TableName":"bench","Item":` + item("n"+strconv.Itoa(seq)) + `}`
		}, ""},
		{"get", "GetItem", func(i int) string {
			return `{"TableName":"bench","Key":{"pk":{"S":"k` + fmt.Sprintf("%04d", i%keys) + `"},"sk":{"S":"s"}}}`
		}, ""},
		{"update", "UpdateItem", func(i int) string {
			return `{"TableName":"bench","Key":{"pk":{"S":"k` + fmt.Sprintf("%04d", i%keys) + `"},"sk":{"S":"s"}},` +
				`"UpdateExpression":"SET n = :n","ExpressionAttributeValues":{":n":{"N":"` + strconv.Itoa(i) + `"}}}`
		}, ""},
		{"condput", "PutItem", func(int) string {
			seq++
			return `{"TableName":"bench","Item":` + item("c"+strconv.Itoa(seq)) + `,"ConditionExpression":"attribute_not_exists(pk)"}`
		}, ""},
		// A refusal: ResourceNotFoundException.
		{"notfound", "GetItem", func(i int) string {
			return `{"TableName":"nope","Key":{"pk":{"S":"k"},"sk":{"S":"s"}}}`
		}, "400"},
	} {
		b.Run(w.name, func(b *testing.B) {
			// The bodies are built first: their allocations are the client's.
			bodies := make([][]byte, 0, 4096)
			for i := range cap(bodies) {
				bodies = append(bodies, c.request(w.op, w.body(i)))
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				c.sendWant(b, bodies[i%len(bodies)], w.status)
				i++
			}
		})
	}
}

// rawClient speaks HTTP/1.1 on one keep-alive connection.
type rawClient struct {
	addr string
	conn net.Conn
	r    *bufio.Reader
	body []byte
}

func newRawClient(b *testing.B, addr string) *rawClient {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	return &rawClient{addr: addr, conn: conn, r: bufio.NewReaderSize(conn, 64<<10)}
}

func (c *rawClient) request(op, body string) []byte {
	return []byte("POST / HTTP/1.1\r\nHost: " + c.addr + "\r\nContent-Type: application/x-amz-json-1.0\r\n" +
		"X-Amz-Target: DynamoDB_20120810." + op + "\r\n" +
		"Authorization: AWS4-HMAC-SHA256 Credential=AKIDBENCH/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000\r\n" +
		"X-Amz-Date: 20240101T000000Z\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}

func (c *rawClient) call(b *testing.B, op, body string) { c.send(b, c.request(op, body)) }

// send writes one request and reads its response, which must be a 200.
func (c *rawClient) send(b *testing.B, req []byte) { c.sendWant(b, req, "") }

// sendWant is send for a response of the status given ("" for 200).
func (c *rawClient) sendWant(b *testing.B, req []byte, status string) {
	if status == "" {
		status = "200"
	}
	if _, err := c.conn.Write(req); err != nil {
		b.Fatal(err)
	}
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		b.Fatal(err)
	}
	ok := bytes.HasPrefix(line, []byte("HTTP/1.1 "+status+" "))
	n := -1
	for {
		h, err := c.r.ReadSlice('\n')
		if err != nil {
			b.Fatal(err)
		}
		if len(h) <= 2 {
			break
		}
		if v, found := bytes.CutPrefix(h, []byte("Content-Length: ")); found {
			n, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
		}
	}
	if n < 0 {
		b.Fatal("response without Content-Length")
	}
	if cap(c.body) < n {
		c.body = make([]byte, n)
	}
	if _, err := io.ReadFull(c.r, c.body[:n]); err != nil {
		b.Fatal(err)
	}
	if !ok {
		b.Fatalf("%s%s", line, c.body[:n])
	}
}
