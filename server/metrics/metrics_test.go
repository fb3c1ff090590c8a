package metrics

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func testRegistry() *Registry {
	r := NewRegistry()
	c := r.NewCounterVec("x_requests_total", "Requests.", "operation", "outcome")
	c.Inc("PutItem", "success")
	c.Inc("PutItem", "success")
	c.Add(0.5, "Get\"Item", "error")
	h := r.NewHistogramVec("x_seconds", "Latency.", []float64{0.1, 1}, "operation")
	h.Observe(0.05, "PutItem")
	h.Observe(0.1, "PutItem")
	h.Observe(3, "PutItem")
	r.NewGaugeFunc("x_depth", "Depth.", func() []Sample { return []Sample{{Value: 7}} })
	r.NewGaugeFunc("x_labelled", "Labelled.", func() []Sample {
		return []Sample{{Labels: []string{"T", "i"}, Value: 1}, {Labels: []string{"T", "i"}, Value: 2}, {Labels: []string{"U", "i"}, Value: 3}}
	}, "table", "index")
	r.NewCounterFunc("x_empty_total", "Nothing yet.", func() []Sample { return nil })
	return r
}

func TestExposition(t *testing.T) {
	var b strings.Builder
	if err := testRegistry().Write(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"# TYPE x_requests_total counter\n",
		`x_requests_total{operation="PutItem",outcome="success"} 2` + "\n",
		`x_requests_total{operation="Get\"Item",outcome="error"} 0.5` + "\n",
		"# TYPE x_seconds histogram\n",
		`x_seconds_bucket{operation="PutItem",le="0.1"} 2` + "\n",
		`x_seconds_bucket{operation="PutItem",le="1"} 2` + "\n",
		`x_seconds_bucket{operation="PutItem",le="+Inf"} 3` + "\n",
		`x_seconds_sum{operation="PutItem"} 3.15` + "\n",
		`x_seconds_count{operation="PutItem"} 3` + "\n",
		"# TYPE x_depth gauge\nx_depth 7\n",
		// Labels are written sorted by name; of a repeated label set the
		// first sample is kept.
		`x_labelled{index="i",table="T"} 1` + "\n",
		`x_labelled{index="i",table="U"} 3` + "\n",
		// The standard collectors.
		"# TYPE go_goroutines gauge\n",
		"# TYPE process_start_time_seconds gauge\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "x_empty_total") {
		t.Errorf("a family with no samples is exposed:\n%s", out)
	}
}

// TestHandlerNegotiates: the handler answers the text format by default,
// OpenMetrics to a client that asks for it, gzip when accepted.
func TestHandlerNegotiates(t *testing.T) {
	srv := httptest.NewServer(testRegistry().Handler(nil))
	defer srv.Close()
	get := func(accept, encoding string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		req.Header.Set("Accept-Encoding", encoding)
		resp, err := srv.Client().Transport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body io.Reader = resp.Body
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			body = zr
		}
		data, err := io.ReadAll(body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(data)
	}

	resp, body := get("", "identity")
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("default Content-Type %q", ct)
	}
	if !strings.Contains(body, "x_depth 7\n") || strings.Contains(body, "# EOF") {
		t.Errorf("default body:\n%s", body)
	}

	resp, body = get("application/openmetrics-text;version=1.0.0", "identity")
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Errorf("OpenMetrics Content-Type %q", ct)
	}
	if !strings.HasSuffix(body, "# EOF\n") || !strings.Contains(body, `x_seconds_bucket{operation="PutItem",le="1.0"} 2`) {
		t.Errorf("OpenMetrics body:\n%s", body)
	}

	resp, body = get("", "gzip")
	if resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(body, "x_depth 7\n") {
		t.Errorf("gzip: Content-Encoding %q, body:\n%s", resp.Header.Get("Content-Encoding"), body)
	}
}
