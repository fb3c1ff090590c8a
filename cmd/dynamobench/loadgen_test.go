package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The load generator's HTTP client against net/http's server: bodies with
// Content-Length and chunked, several requests on one connection, and the
// headers the server saw.
func TestRawConnKeepAlive(t *testing.T) {
	var conns, requests int
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		body, _ := io.ReadAll(r.Body)
		if got := r.Header.Get("X-Amz-Target"); got != "DynamoDB_20120810.GetItem" {
			t.Errorf("X-Amz-Target %q", got)
		}
		if string(body) == "chunked" {
			w.Write([]byte("part one,"))
			w.(http.Flusher).Flush() // forces chunked encoding
			w.Write([]byte("part two"))
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)+2))
		w.WriteHeader(201)
		w.Write(append([]byte("<"), append(body, '>')...))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns++
		}
	}
	srv.Start()
	defer srv.Close()
	c := newRawConn(strings.TrimPrefix(srv.URL, "http://"), "GetItem")
	defer c.close()
	for i := 0; i < 3; i++ {
		status, body, err := c.do([]byte(fmt.Sprintf(`{"n":%d}`, i)))
		if err != nil || status != 201 || string(body) != fmt.Sprintf(`<{"n":%d}>`, i) {
			t.Fatalf("request %d: %d %q %v", i, status, body, err)
		}
	}
	status, body, err := c.do([]byte("chunked"))
	if err != nil || status != 200 || string(body) != "part one,part two" {
		t.Fatalf("chunked: %d %q %v", status, body, err)
	}
	if conns != 1 || requests != 4 {
		t.Fatalf("%d connections for %d requests, want 1 for 4", conns, requests)
	}
}

func TestPendingRuns(t *testing.T) {
	skip := []bool{true, false, false, true, false, true, true, false, false}
	got := fmt.Sprint(pendingRuns(skip, 8))
	if want := "[[1 2] [4 4] [7 -1]]"; got != want {
		t.Fatalf("runs %s, want %s", got, want)
	}
	// Two runs at most: the closest (gap 1 between [1 2] and [4 4]) merge.
	if got, want := fmt.Sprint(pendingRuns(skip, 2)), "[[1 4] [7 -1]]"; got != want {
		t.Fatalf("runs %s, want %s", got, want)
	}
	if got := pendingRuns([]bool{true, true}, 8); len(got) != 0 {
		t.Fatalf("runs %v, want none", got)
	}
}

// pgbench's per-transaction log: only the transactions that completed
// inside the window count, and skipped or failed ones are not latencies.
func TestReadPgbenchLog(t *testing.T) {
	dir := t.TempDir()
	from := time.Unix(1000, 0)
	log := strings.Join([]string{
		"0 1 900 0 999 999999",   // before the window
		"0 2 1500 0 1000 0",      // at its start
		"1 1 2500 0 1001 500000", // inside
		"1 2 skipped 0 1001 600000",
		"0 3 700 0 1002 0", // at its end: out
	}, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "log.123"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	lat, err := readPgbenchLog(filepath.Join(dir, "log"), window{from, from.Add(2 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(lat) != "[1.5ms 2.5ms]" {
		t.Fatalf("latencies %v", lat)
	}
}

func TestPgbBatch(t *testing.T) {
	s := pgbBatch(3)
	if n := strings.Count(s, "INSERT INTO t "); n != 3 {
		t.Fatalf("%d inserts, want 3:\n%s", n, s)
	}
	for _, v := range []string{":r1::text", ":r3::text", ":hk2,"} {
		if !strings.Contains(s, v) {
			t.Fatalf("no %s in\n%s", v, s)
		}
	}
	if strings.Contains(s, "@I@") || strings.Index(s, `\startpipeline`) > strings.Index(s, "INSERT") || !strings.HasSuffix(strings.TrimSpace(s), `\endpipeline`) {
		t.Fatalf("bad script:\n%s", s)
	}
}

func TestParseCPUs(t *testing.T) {
	set, err := parseCPUs("0,2-3")
	if err != nil || set[0] != 0b1101 {
		t.Fatalf("set %b %v", set[0], err)
	}
	for _, bad := range []string{"", "a", "3-1", "2000"} {
		if _, err := parseCPUs(bad); err == nil {
			t.Fatalf("%q parsed", bad)
		}
	}
}

func TestExpectMember(t *testing.T) {
	for _, c := range []struct {
		name, want, body string
		ok               bool
	}{
		{"Count", "10", `{"Count":10,"Items":[]}`, true},
		{"Count", "10", `{"Items": [], "Count": 10}`, true},
		{"Count", "10", `{"Count":100}`, false},
		{"Count", "10", `{"Count":1}`, false},
		{"UnprocessedItems", "{}", `{"UnprocessedItems":{}}`, true},
		{"UnprocessedItems", "{}", `{"UnprocessedItems": { }}`, true},
		{"UnprocessedItems", "{}", `{"UnprocessedItems":{"t":[]}}`, false},
		{"Item", "{", `{"Item":{"pk":{"S":"a"}}}`, true},
		{"Item", "{", `{}`, false},
	} {
		if err := expectMember(c.name, c.want)([]byte(c.body)); (err == nil) != c.ok {
			t.Errorf("%s %s in %s: %v", c.name, c.want, c.body, err)
		}
	}
}
