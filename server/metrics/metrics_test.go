package metrics

import (
	"strings"
	"testing"
)

func TestExposition(t *testing.T) {
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
	var b strings.Builder
	r.Write(&b)
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
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if c.Value("PutItem", "success") != 2 || h.Count("PutItem") != 3 {
		t.Errorf("Value/Count wrong")
	}
}
