package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The load generator: DynamoDB JSON requests written as raw HTTP/1.1 over a
// fixed pool of keep-alive connections, one goroutine per connection, each
// with one request in flight. Bodies are built by appending the
// operation's pre-encoded parts and a key (no encoding/json, no SDK, no
// signing), and responses are read with a minimal parser (status line,
// Content-Length or chunked, the body). Its own CPU per request is a few
// microseconds, reported beside the server's in every cell; the AWS SDK
// costs about 236 µs per GetItem, more than the server.

// rawOp is one workload operation in raw form.
type rawOp struct {
	// op is the operation name (X-Amz-Target: DynamoDB_20120810.<op>).
	op string
	// body appends the request body of one call to b.
	body func(b []byte, worker int) []byte
	// check inspects a 200 response's body (nil: any 200 is right).
	check func(body []byte) error
}

// fakeAuth is an Authorization header of the SigV4 shape: dynamopg (--auth
// none) ignores it, dynalite checks only that its parts are there.
const fakeAuth = "Authorization: AWS4-HMAC-SHA256 Credential=AKIDBENCH/20240101/us-east-1/dynamodb/aws4_request, " +
	"SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=0000000000000000000000000000000000000000000000000000000000000000\r\n" +
	"X-Amz-Date: 20240101T000000Z\r\n"

// rawConn is one keep-alive connection and its buffers.
type rawConn struct {
	addr   string
	conn   net.Conn
	r      *bufio.Reader
	head   []byte // the request up to "Content-Length: "
	req    []byte // a whole request
	body   []byte // a request body
	resp   []byte // a response body
	closed bool   // the server asked to close (Connection: close)
	// deadline bounds every request on the connection (zero: none): a
	// cell's requests all start before its end, so one deadline a little
	// past it keeps a stuck server from holding the run.
	deadline time.Time
}

func newRawConn(addr, op string) *rawConn {
	head := "POST / HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/x-amz-json-1.0\r\n" +
		"X-Amz-Target: DynamoDB_20120810." + op + "\r\n" + fakeAuth + "Content-Length: "
	return &rawConn{addr: addr, head: []byte(head)}
}

func (c *rawConn) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

// do sends one request with body and reads its response; it returns the
// status and the response body (valid until the next call).
func (c *rawConn) do(body []byte) (int, []byte, error) {
	if c.conn == nil || c.closed {
		c.close()
		conn, err := net.DialTimeout("tcp", c.addr, 5*time.Second)
		if err != nil {
			return 0, nil, err
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetNoDelay(true)
		}
		c.conn, c.closed = conn, false
		if !c.deadline.IsZero() {
			_ = conn.SetDeadline(c.deadline)
		}
		if c.r == nil {
			c.r = bufio.NewReaderSize(conn, 64<<10)
		} else {
			c.r.Reset(conn)
		}
	}
	c.req = append(c.req[:0], c.head...)
	c.req = strconv.AppendInt(c.req, int64(len(body)), 10)
	c.req = append(c.req, "\r\n\r\n"...)
	c.req = append(c.req, body...)
	if _, err := c.conn.Write(c.req); err != nil {
		c.close()
		return 0, nil, err
	}
	status, err := c.readResponse()
	if err != nil {
		c.close()
		return 0, nil, err
	}
	return status, c.resp, nil
}

var errBadResponse = errors.New("malformed HTTP response")

func (c *rawConn) readResponse() (int, error) {
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	// "HTTP/1.1 200 OK\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, errBadResponse
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, errBadResponse
	}
	length, chunked := -1, false
	for {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(line) <= 2 { // "\r\n": end of the headers
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, errBadResponse
		}
		value = bytes.TrimSpace(value)
		switch {
		case asciiEqualFold(name, "content-length"):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return 0, errBadResponse
			}
		case asciiEqualFold(name, "transfer-encoding"):
			chunked = asciiEqualFold(value, "chunked")
		case asciiEqualFold(name, "connection"):
			c.closed = asciiEqualFold(value, "close")
		}
	}
	c.resp = c.resp[:0]
	switch {
	case chunked:
		for {
			line, err := c.r.ReadSlice('\n')
			if err != nil {
				return 0, err
			}
			line = bytes.TrimSpace(line)
			if i := bytes.IndexByte(line, ';'); i >= 0 {
				line = line[:i]
			}
			n, err := strconv.ParseInt(string(line), 16, 32)
			if err != nil {
				return 0, errBadResponse
			}
			if n == 0 {
				for { // trailers, then the final CRLF
					l, err := c.r.ReadSlice('\n')
					if err != nil {
						return 0, err
					}
					if len(l) <= 2 {
						return status, nil
					}
				}
			}
			if err := c.readN(int(n)); err != nil {
				return 0, err
			}
			if _, err := c.r.Discard(2); err != nil {
				return 0, err
			}
		}
	case length >= 0:
		return status, c.readN(length)
	default:
		return 0, errors.New("response without Content-Length")
	}
}

// readN appends the next n bytes to c.resp.
func (c *rawConn) readN(n int) error {
	start := len(c.resp)
	c.resp = slices.Grow(c.resp, n)[:start+n]
	_, err := io.ReadFull(c.r, c.resp[start:])
	return err
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// rawCall runs one call of op on c: build, send, check.
func rawCall(c *rawConn, op *rawOp, worker int) error {
	c.body = op.body(c.body[:0], worker)
	status, resp, err := c.do(c.body)
	if err != nil {
		return err
	}
	if status != 200 {
		return fmt.Errorf("HTTP %d: %s", status, trunc(string(resp), 200))
	}
	if op.check != nil {
		return op.check(resp)
	}
	return nil
}

// requestGrace is how long past a cell's end its last requests may take.
const requestGrace = 2 * time.Second

// window is a cell's timing: ops completing in [from, to) are counted,
// and the CPU meter is read at from and at to.
type window struct{ from, to time.Time }

// measureRaw runs op on clients connections to addr: a warm-up, then dur
// timed, reading meter's CPU at the start and the end of the timed window.
func measureRaw(ctx context.Context, addr string, op rawOp, clients int, warmup, dur time.Duration, meter cpuMeter) cell {
	start := time.Now()
	w := window{from: start.Add(warmup), to: start.Add(warmup + dur)}
	lat := make([][]time.Duration, clients)
	var errs atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := newRawConn(addr, op.op)
			c.deadline = w.to.Add(requestGrace)
			defer c.close()
			l := make([]time.Duration, 0, 1<<14)
			for ctx.Err() == nil {
				t0 := time.Now()
				if !t0.Before(w.to) {
					break
				}
				err := rawCall(c, &op, i)
				t1 := time.Now()
				if t1.Before(w.from) || !t1.Before(w.to) {
					continue
				}
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				l = append(l, t1.Sub(t0))
			}
			lat[i] = l
		}(i)
	}
	a, b := sampleWindow(ctx, w, meter)
	wg.Wait()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	c := summarize(all, clients, dur)
	c.Errors = errs.Load()
	if e, ok := firstErr.Load().(string); ok {
		c.FirstError = e
	} else if len(all) == 0 {
		c.FirstError = "no operation completed inside the measured window"
	}
	c.CPU = cpuPerOp(a, b, c.Ops)
	return c
}

// sampleWindow reads meter at w.from and at w.to.
func sampleWindow(ctx context.Context, w window, meter cpuMeter) (a, b cpuSample) {
	sleepUntil(ctx, w.from)
	a = meter.sample()
	sleepUntil(ctx, w.to)
	b = meter.sample()
	return a, b
}

func sleepUntil(ctx context.Context, t time.Time) {
	if d := time.Until(t); d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
}

// summarize sorts the latencies of a window and fills a cell's ops,
// throughput and percentiles.
func summarize(all []time.Duration, clients int, dur time.Duration) cell {
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	c := cell{Clients: clients, Ops: int64(len(all))}
	c.OpsPerSec = float64(len(all)) / dur.Seconds()
	if len(all) > 0 {
		c.P50Ms = msf(all[len(all)/2])
		c.P99Ms = msf(all[min(len(all)-1, len(all)*99/100)])
	}
	return c
}
