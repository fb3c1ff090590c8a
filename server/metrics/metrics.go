// Package metrics is dynamopg's side of the Prometheus client library
// (github.com/prometheus/client_golang): a registry holding the standard Go
// and process collectors, labelled counters and histograms updated on the
// request path, and families whose samples a function returns at scrape
// time (database pool statistics, the store's background work). Handler
// serves the registry with promhttp: content negotiation between the text
// format 0.0.4, OpenMetrics and protobuf, and compression.
package metrics

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"
)

// Registry is one server's metric families. Each server has its own (none
// is registered globally), so several servers run in one process (tests,
// the embedded dynamopgtest server).
type Registry struct {
	reg *prometheus.Registry
}

// NewRegistry returns a registry with the Go runtime's and the process's
// standard collectors (go_*, process_*).
func NewRegistry() *Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return &Registry{reg: reg}
}

// Handler serves the registry for GET /metrics. A family that fails to
// collect is left out and logged; the rest is served.
func (r *Registry) Handler(log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{
		ErrorLog:          errorLog{log},
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: true,
	})
}

// Write renders every family in the text format 0.0.4 (tests and tools).
func (r *Registry) Write(w io.Writer) error {
	mfs, err := r.reg.Gather()
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if e := enc.Encode(mf); e != nil && err == nil {
			err = e
		}
	}
	return err
}

type errorLog struct{ log *slog.Logger }

func (l errorLog) Println(v ...any) {
	if l.log != nil {
		l.log.Warn("metrics: collect", "err", strings.TrimSpace(fmt.Sprintln(v...)))
	}
}

// ---------------------------------------------------------------------------
// Counters and histograms of the request path

// CounterVec is a counter family with fixed label names.
type CounterVec struct{ vec *prometheus.CounterVec }

// NewCounterVec registers a counter family.
func (r *Registry) NewCounterVec(name, help string, labels ...string) *CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	r.reg.MustRegister(c)
	return &CounterVec{vec: c}
}

// Add adds delta to the series with the label values (in label order).
func (c *CounterVec) Add(delta float64, values ...string) {
	c.vec.WithLabelValues(values...).Add(delta)
}

// Inc adds one.
func (c *CounterVec) Inc(values ...string) { c.vec.WithLabelValues(values...).Inc() }

// Counter is one series of a CounterVec, resolved once: updating it costs
// no label lookup.
type Counter interface {
	Inc()
	Add(float64)
}

// Series returns the series with the label values (in label order),
// creating it (it is exposed from then on).
func (c *CounterVec) Series(values ...string) Counter { return c.vec.WithLabelValues(values...) }

// DefaultBuckets are latency buckets in seconds, from 1 ms to 10 s.
var DefaultBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// HistogramVec is a histogram family with fixed label names.
type HistogramVec struct{ vec *prometheus.HistogramVec }

// NewHistogramVec registers a histogram family.
func (r *Registry) NewHistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	r.reg.MustRegister(h)
	return &HistogramVec{vec: h}
}

// Observe records one value in the series with the label values.
func (h *HistogramVec) Observe(v float64, values ...string) {
	h.vec.WithLabelValues(values...).Observe(v)
}

// Observer is one series of a HistogramVec, resolved once.
type Observer interface{ Observe(float64) }

// Series returns the series with the label values, creating it.
func (h *HistogramVec) Series(values ...string) Observer { return h.vec.WithLabelValues(values...) }

// ---------------------------------------------------------------------------
// Families read at scrape time

// Sample is one value of a family read at scrape time.
type Sample struct {
	Labels []string // label values, in the family's label order
	Value  float64
}

// NewGaugeFunc registers a gauge family whose samples fn returns at scrape
// time. A nil or empty result exposes no series. Of samples with the same
// label values the first is exposed.
func (r *Registry) NewGaugeFunc(name, help string, fn func() []Sample, labels ...string) {
	r.reg.MustRegister(&funcCollector{desc: prometheus.NewDesc(name, help, labels, nil), typ: prometheus.GaugeValue, fn: fn})
}

// NewCounterFunc is NewGaugeFunc for a value that only grows.
func (r *Registry) NewCounterFunc(name, help string, fn func() []Sample, labels ...string) {
	r.reg.MustRegister(&funcCollector{desc: prometheus.NewDesc(name, help, labels, nil), typ: prometheus.CounterValue, fn: fn})
}

// funcCollector is one family read at scrape time.
type funcCollector struct {
	desc *prometheus.Desc
	typ  prometheus.ValueType
	fn   func() []Sample
}

func (c *funcCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *funcCollector) Collect(ch chan<- prometheus.Metric) {
	samples := c.fn()
	seen := make(map[string]bool, len(samples))
	for _, s := range samples {
		// The registry refuses a family with a repeated label set.
		key := strings.Join(s.Labels, "\xff")
		if seen[key] {
			continue
		}
		seen[key] = true
		m, err := prometheus.NewConstMetric(c.desc, c.typ, s.Value, s.Labels...)
		if err != nil {
			m = prometheus.NewInvalidMetric(c.desc, err)
		}
		ch <- m
	}
}

// SanitizeName turns s into a valid metric name fragment ([a-zA-Z0-9_]).
func SanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
