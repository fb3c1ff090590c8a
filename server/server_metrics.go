package server

import (
	"net/http"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/dynamopg/dynamopg/server/metrics"
)

// serverMetrics are the families GET /metrics exposes.
type serverMetrics struct {
	reg      *metrics.Registry
	handler  http.Handler // GET /metrics
	requests *metrics.CounterVec
	latency  *metrics.HistogramVec
	errors   *metrics.CounterVec
	inFlight atomic.Int64
	// byOp holds each operation's request series, resolved on first use
	// so a request pays no label lookup; read-only after construction.
	byOp map[string]*opSeries
}

// The outcomes a request is counted under, in opSeries' order.
var outcomes = [...]string{"success", "client_error", "throttled", "server_error"}

const (
	outcomeSuccess = iota
	outcomeClientError
	outcomeThrottled
	outcomeServerError
)

// opSeries are one operation's series by outcome, created on first use
// (a series exists in /metrics once a request was counted in it).
type opSeries [len(outcomes)]atomic.Pointer[outcomeSeries]

type outcomeSeries struct {
	requests metrics.Counter
	latency  metrics.Observer
}

// observe counts one request of op (an operation name or "unknown") with
// its outcome and latency.
func (m *serverMetrics) observe(op string, outcome int, seconds float64) {
	ops := m.byOp[op]
	if ops == nil { // not an operation name: never, but keep the count
		m.requests.Inc(op, outcomes[outcome])
		m.latency.Observe(seconds, op, outcomes[outcome])
		return
	}
	se := ops[outcome].Load()
	if se == nil {
		se = &outcomeSeries{m.requests.Series(op, outcomes[outcome]), m.latency.Series(op, outcomes[outcome])}
		ops[outcome].Store(se) // a race stores the same series twice
	}
	se.requests.Inc()
	se.latency.Observe(seconds)
}

func newServerMetrics(s *Server) *serverMetrics {
	reg := metrics.NewRegistry()
	m := &serverMetrics{reg: reg, byOp: map[string]*opSeries{"unknown": {}}}
	for op := range s.ops {
		m.byOp[op] = &opSeries{}
	}
	for op := range s.streamOps {
		m.byOp[op] = &opSeries{}
	}
	m.requests = reg.NewCounterVec("dynamopg_requests_total",
		"DynamoDB API requests by operation and outcome (success, client_error, throttled, server_error).", "operation", "outcome")
	m.latency = reg.NewHistogramVec("dynamopg_request_duration_seconds",
		"DynamoDB API request latency by operation and outcome.", metrics.DefaultBuckets, "operation", "outcome")
	m.errors = reg.NewCounterVec("dynamopg_errors_total",
		"Error responses by operation and error type (the __type's short name).", "operation", "type")
	reg.NewGaugeFunc("dynamopg_requests_in_flight", "Requests being served.", func() []metrics.Sample {
		return []metrics.Sample{{Value: float64(m.inFlight.Load())}}
	})
	version := s.cfg.Version
	if version == "" {
		version = "dev"
	}
	reg.NewGaugeFunc("dynamopg_build_info", "Build information; always 1.", func() []metrics.Sample {
		return []metrics.Sample{{Labels: []string{version, runtime.Version()}, Value: 1}}
	}, "version", "go_version")
	start := time.Now()
	reg.NewGaugeFunc("dynamopg_process_start_time_seconds", "Start time of the process since the Unix epoch.", func() []metrics.Sample {
		return []metrics.Sample{{Value: float64(start.UnixNano()) / 1e9}}
	})
	if s.cfg.MaxInFlight > 0 {
		reg.NewGaugeFunc("dynamopg_requests_in_flight_limit", "The --max-in-flight cap.", func() []metrics.Sample {
			return []metrics.Sample{{Value: float64(s.cfg.MaxInFlight)}}
		})
	}
	registerPoolStats(reg, s.store.PoolStats)
	registerProcessCounters(reg)
	registerOpsStats(reg, s.store)
	m.handler = reg.Handler(s.log)
	return m
}

// registerPoolStats exposes each PoolStats key as dynamopg_db_pool_<key>: a
// counter when the key ends in _total, a gauge otherwise. A key of the form
// "<pool>_<stat>" from a store with several pools (SQLite's writer_ and
// reader_) becomes the label pool="<pool>".
func registerPoolStats(reg *metrics.Registry, poolStats func() map[string]float64) {
	type series struct{ pool, key string }
	byStat := map[string][]series{}
	for k := range poolStats() {
		pool, stat := "main", k
		for _, p := range []string{"writer_", "reader_"} {
			if rest, ok := strings.CutPrefix(k, p); ok {
				pool, stat = strings.TrimSuffix(p, "_"), rest
			}
		}
		byStat[stat] = append(byStat[stat], series{pool, k})
	}
	stats := make([]string, 0, len(byStat))
	for st := range byStat {
		stats = append(stats, st)
	}
	sort.Strings(stats)
	for _, stat := range stats {
		list := byStat[stat]
		fn := func() []metrics.Sample {
			cur := poolStats()
			out := make([]metrics.Sample, 0, len(list))
			for _, se := range list {
				out = append(out, metrics.Sample{Labels: []string{se.pool}, Value: cur[se.key]})
			}
			return out
		}
		name := "dynamopg_db_pool_" + metrics.SanitizeName(stat)
		help := "Database pool: " + stat + " (from the store's pool statistics)."
		if strings.HasSuffix(stat, "_total") {
			reg.NewCounterFunc(name, help, fn, "pool")
		} else {
			reg.NewGaugeFunc(name, help, fn, "pool")
		}
	}
}
