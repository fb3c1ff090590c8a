package e2e

// cutProxy is a TCP proxy between dynamopg and PostgreSQL that can lose
// the answer to a committed write: armed, it withholds the server's
// response to the next unit of work that completes a statement and leaves
// the session idle (an implicit transaction or a COMMIT: whatever it wrote
// is committed) and resets both connections instead of forwarding it.
// That is a connection cut after PostgreSQL committed and before dynamopg
// heard: the outcome dynamopg cannot know. (The unit cut may be a read;
// the test counts the cuts that lost a write it finds applied.)

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
)

type cutProxy struct {
	ln     net.Listener
	target string
	armed  atomic.Bool
	cuts   atomic.Int64
	mu     sync.Mutex
	tags   []string // the command tags of the responses cut
}

// newCutProxy listens on a free local port and forwards to the server of
// dbURL; url is dbURL pointed at the proxy.
func newCutProxy(t *testing.T, dbURL string) (p *cutProxy, proxied string) {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p = &cutProxy{ln: ln, target: u.Host}
	go p.serve()
	t.Cleanup(func() { ln.Close() })
	u.Host = ln.Addr().String()
	return p, u.String()
}

// arm makes the proxy cut the next committed write's response.
func (p *cutProxy) arm() { p.armed.Store(true) }

func (p *cutProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.relay(c)
	}
}

func (p *cutProxy) relay(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	cut := func() {
		for _, c := range []net.Conn{client, server} {
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0) // a reset, as a dropped network would give
			}
			c.Close()
		}
	}
	go func() {
		_, _ = io.Copy(server, client)
		server.Close()
	}()
	defer cut()
	// The server's messages after the startup packet are all typed
	// (type byte, int32 length); they are held back until ReadyForQuery.
	var held bytes.Buffer
	var tags []string
	hdr := make([]byte, 5)
	for {
		if _, err := io.ReadFull(server, hdr); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(hdr[1:])) - 4
		body := make([]byte, n)
		if _, err := io.ReadFull(server, body); err != nil {
			return
		}
		switch hdr[0] {
		case 'C': // CommandComplete
			tags = append(tags, string(bytes.TrimRight(body, "\x00")))
		case 'Z': // ReadyForQuery: 'I' idle, 'T' in a transaction, 'E' failed
			if body[0] == 'I' && committedWrite(tags) && p.armed.CompareAndSwap(true, false) {
				p.mu.Lock()
				p.tags = append(p.tags, tags...)
				p.mu.Unlock()
				p.cuts.Add(1)
				return // withheld; cut
			}
			held.Write(hdr)
			held.Write(body)
			if _, err := client.Write(held.Bytes()); err != nil {
				return
			}
			held.Reset()
			tags = tags[:0]
			continue
		}
		held.Write(hdr)
		held.Write(body)
		if hdr[0] == 'A' || hdr[0] == 'R' || hdr[0] == 'S' && len(tags) == 0 {
			// Notifications and the startup exchange pass at once.
			if _, err := client.Write(held.Bytes()); err != nil {
				return
			}
			held.Reset()
		}
	}
}

// committedWrite reports whether a response's command tags end a write.
func committedWrite(tags []string) bool {
	for _, tag := range tags {
		// SELECT too: a write may be a function call (SELECT dynamopg.…).
		for _, w := range []string{"INSERT", "UPDATE", "DELETE", "MERGE", "COMMIT", "SELECT"} {
			if len(tag) >= len(w) && tag[:len(w)] == w {
				return true
			}
		}
	}
	return false
}
