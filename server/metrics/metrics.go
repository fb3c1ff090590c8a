// Package metrics is a small Prometheus text-format registry: labelled
// counters, labelled histograms and gauges read at scrape time. dynamopg
// needs nothing more, so it does not pull in the Prometheus client.
package metrics

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Registry holds metric families and writes them in the text exposition
// format (version 0.0.4).
type Registry struct {
	mu       sync.Mutex
	families []family
}

type family interface {
	name() string
	write(w io.Writer)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{} }

func (r *Registry) add(f family) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.families = append(r.families, f)
}

// Write renders every family, sorted by name.
func (r *Registry) Write(w io.Writer) {
	r.mu.Lock()
	fams := append([]family(nil), r.families...)
	r.mu.Unlock()
	sort.SliceStable(fams, func(i, j int) bool { return fams[i].name() < fams[j].name() })
	for _, f := range fams {
		f.write(w)
	}
}

// ContentType is the exposition format's media type.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// ---------------------------------------------------------------------------
// Counters

// CounterVec is a counter family with fixed label names.
type CounterVec struct {
	n, help string
	labels  []string
	mu      sync.RWMutex
	series  map[string]*counterSeries
}

type counterSeries struct {
	values []string
	v      atomic.Uint64 // math.Float64bits
}

// NewCounterVec registers a counter family.
func (r *Registry) NewCounterVec(name, help string, labels ...string) *CounterVec {
	c := &CounterVec{n: name, help: help, labels: labels, series: map[string]*counterSeries{}}
	r.add(c)
	return c
}

func (c *CounterVec) name() string { return c.n }

// Add adds delta to the series with the label values (in label order).
func (c *CounterVec) Add(delta float64, values ...string) {
	key := strings.Join(values, "\xff")
	c.mu.RLock()
	s := c.series[key]
	c.mu.RUnlock()
	if s == nil {
		c.mu.Lock()
		if s = c.series[key]; s == nil {
			s = &counterSeries{values: append([]string(nil), values...)}
			c.series[key] = s
		}
		c.mu.Unlock()
	}
	for {
		old := s.v.Load()
		nv := math.Float64bits(math.Float64frombits(old) + delta)
		if s.v.CompareAndSwap(old, nv) {
			return
		}
	}
}

// Inc adds one.
func (c *CounterVec) Inc(values ...string) { c.Add(1, values...) }

// Value reads one series (tests).
func (c *CounterVec) Value(values ...string) float64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if s := c.series[strings.Join(values, "\xff")]; s != nil {
		return math.Float64frombits(s.v.Load())
	}
	return 0
}

func (c *CounterVec) write(w io.Writer) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n", c.n, escapeHelp(c.help), c.n)
	c.mu.RLock()
	list := make([]*counterSeries, 0, len(c.series))
	for _, s := range c.series {
		list = append(list, s)
	}
	c.mu.RUnlock()
	sort.Slice(list, func(i, j int) bool { return lessValues(list[i].values, list[j].values) })
	for _, s := range list {
		fmt.Fprintf(w, "%s%s %s\n", c.n, labelString(c.labels, s.values, "", ""), formatFloat(math.Float64frombits(s.v.Load())))
	}
}

// ---------------------------------------------------------------------------
// Histograms

// DefaultBuckets are latency buckets in seconds, from 1 ms to 10 s.
var DefaultBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// HistogramVec is a histogram family with fixed label names.
type HistogramVec struct {
	n, help string
	labels  []string
	buckets []float64
	mu      sync.Mutex
	series  map[string]*histSeries
}

type histSeries struct {
	values []string
	counts []uint64 // per bucket, not cumulative; last is +Inf
	sum    float64
	count  uint64
}

// NewHistogramVec registers a histogram family.
func (r *Registry) NewHistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	h := &HistogramVec{n: name, help: help, labels: labels, buckets: buckets, series: map[string]*histSeries{}}
	r.add(h)
	return h
}

func (h *HistogramVec) name() string { return h.n }

// Observe records one value in the series with the label values.
func (h *HistogramVec) Observe(v float64, values ...string) {
	key := strings.Join(values, "\xff")
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.series[key]
	if s == nil {
		s = &histSeries{values: append([]string(nil), values...), counts: make([]uint64, len(h.buckets)+1)}
		h.series[key] = s
	}
	i := sort.SearchFloat64s(h.buckets, v) // first bucket with le >= v
	s.counts[i]++
	s.sum += v
	s.count++
}

// Count reads one series' observation count (tests).
func (h *HistogramVec) Count(values ...string) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.series[strings.Join(values, "\xff")]; s != nil {
		return s.count
	}
	return 0
}

func (h *HistogramVec) write(w io.Writer) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s histogram\n", h.n, escapeHelp(h.help), h.n)
	h.mu.Lock()
	list := make([]histSeries, 0, len(h.series))
	for _, s := range h.series {
		cp := *s
		cp.counts = append([]uint64(nil), s.counts...)
		list = append(list, cp)
	}
	h.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return lessValues(list[i].values, list[j].values) })
	for _, s := range list {
		var cum uint64
		for i, le := range h.buckets {
			cum += s.counts[i]
			fmt.Fprintf(w, "%s_bucket%s %d\n", h.n, labelString(h.labels, s.values, "le", formatFloat(le)), cum)
		}
		fmt.Fprintf(w, "%s_bucket%s %d\n", h.n, labelString(h.labels, s.values, "le", "+Inf"), s.count)
		fmt.Fprintf(w, "%s_sum%s %s\n", h.n, labelString(h.labels, s.values, "", ""), formatFloat(s.sum))
		fmt.Fprintf(w, "%s_count%s %d\n", h.n, labelString(h.labels, s.values, "", ""), s.count)
	}
}

// ---------------------------------------------------------------------------
// Gauges and counters read at scrape time

// Sample is one value of a collected family.
type Sample struct {
	Labels []string // label values, in the family's label order
	Value  float64
}

type collected struct {
	n, help, typ string
	labels       []string
	fn           func() []Sample
}

// NewGaugeFunc registers a gauge family whose samples fn returns at scrape
// time. A nil or empty result writes the family header only.
func (r *Registry) NewGaugeFunc(name, help string, fn func() []Sample, labels ...string) {
	r.add(&collected{n: name, help: help, typ: "gauge", labels: labels, fn: fn})
}

// NewCounterFunc is NewGaugeFunc for a value that only grows.
func (r *Registry) NewCounterFunc(name, help string, fn func() []Sample, labels ...string) {
	r.add(&collected{n: name, help: help, typ: "counter", labels: labels, fn: fn})
}

func (c *collected) name() string { return c.n }

func (c *collected) write(w io.Writer) {
	samples := c.fn()
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", c.n, escapeHelp(c.help), c.n, c.typ)
	for _, s := range samples {
		fmt.Fprintf(w, "%s%s %s\n", c.n, labelString(c.labels, s.Labels, "", ""), formatFloat(s.Value))
	}
}

// ---------------------------------------------------------------------------
// Formatting

func labelString(names, values []string, extraName, extraValue string) string {
	if len(names) == 0 && extraName == "" {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		v := ""
		if i < len(values) {
			v = values[i]
		}
		b.WriteString(n)
		b.WriteString(`="`)
		b.WriteString(escapeLabel(v))
		b.WriteByte('"')
	}
	if extraName != "" {
		if len(names) > 0 {
			b.WriteByte(',')
		}
		b.WriteString(extraName)
		b.WriteString(`="`)
		b.WriteString(extraValue)
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
var helpEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }
func escapeHelp(s string) string  { return helpEscaper.Replace(s) }

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func lessValues(a, b []string) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
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
