package server

import (
	"context"
	"sync"
	"time"

	"github.com/dynamopg/dynamopg/server/metrics"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/maintain"
)

const (
	// opsStatsTimeout bounds the store's answer at a scrape; past it the
	// families read from it have no samples.
	opsStatsTimeout = 2 * time.Second
	// opsStatsMaxAge is how long one answer serves: the families of one
	// scrape share it.
	opsStatsMaxAge = time.Second
)

// opsBuilds bounds the index builds a scrape reports (running first, then
// the latest finished), as `dynamopg status --builds` does.
const opsBuilds = 100

// statuser is the part of the store the background-work families read
// (store.Admin's Status).
type statuser interface {
	Status(ctx context.Context, in store.StatusInput) (*store.Status, error)
}

// opsStatsCache reads the store's Status (without its tables) at most once
// per opsStatsMaxAge.
type opsStatsCache struct {
	src statuser
	mu  sync.Mutex
	at  time.Time
	st  *store.Status // nil when the last read failed
}

func (c *opsStatsCache) get() *store.Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < opsStatsMaxAge {
		return c.st
	}
	ctx, cancel := context.WithTimeout(context.Background(), opsStatsTimeout)
	defer cancel()
	st, err := c.src.Status(ctx, store.StatusInput{MaxBuilds: opsBuilds})
	if err != nil {
		st = nil
	}
	c.st, c.at = st, time.Now()
	return st
}

// registerOpsStats exposes the store's background work: the queue, the
// index builds and the stream records (database-wide numbers, the ones
// `dynamopg status` shows), absent when the database does not answer.
func registerOpsStats(reg *metrics.Registry, src statuser) {
	c := &opsStatsCache{src: src}
	queue := func(v func(q store.QueueStatus) float64) func() []metrics.Sample {
		return func() []metrics.Sample {
			st := c.get()
			if st == nil {
				return nil
			}
			return []metrics.Sample{{Value: v(queueTotal(st.Queue))}}
		}
	}
	reg.NewGaugeFunc("dynamopg_index_queue_depth",
		"Pending rows of the asynchronous index propagation queue (all tables); absent when the database does not answer within 2 s.",
		queue(func(q store.QueueStatus) float64 { return float64(q.Depth) }))
	reg.NewGaugeFunc("dynamopg_index_queue_oldest_age_seconds",
		"Age of the oldest pending row of the index propagation queue (the apply lag); 0 when the queue is empty.",
		queue(func(q store.QueueStatus) float64 { return q.OldestS }))
	reg.NewGaugeFunc("dynamopg_index_queue_passed_over",
		"Queue rows set aside now because their item could not be locked (PostgreSQL; always 0 on SQLite).",
		queue(func(q store.QueueStatus) float64 { return float64(q.PassedOver) }))

	builds := func(v func(b store.BuildStatus) (float64, bool)) func() []metrics.Sample {
		return func() []metrics.Sample {
			st := c.get()
			if st == nil {
				return nil
			}
			out := make([]metrics.Sample, 0, len(st.Builds))
			for _, b := range st.Builds {
				if x, ok := v(b); ok {
					out = append(out, metrics.Sample{Labels: []string{b.Table, b.Index}, Value: x})
				}
			}
			return out
		}
	}
	reg.NewGaugeFunc("dynamopg_index_build_rows_done",
		"Rows an online index build has backfilled (running builds and finished ones still recorded).",
		builds(func(b store.BuildStatus) (float64, bool) { return float64(b.RowsDone), true }), "table", "index")
	reg.NewGaugeFunc("dynamopg_index_build_table_rows_estimate",
		"Estimated rows of the table an index build reads (the whole of rows_done); absent when unknown.",
		builds(func(b store.BuildStatus) (float64, bool) { return float64(b.TableRows), b.TableRows >= 0 }), "table", "index")
	reg.NewGaugeFunc("dynamopg_index_build_phase",
		"1 for the current phase of each index build (allocating, barrier, backfill, sweep, active, failed).",
		func() []metrics.Sample {
			st := c.get()
			if st == nil {
				return nil
			}
			out := make([]metrics.Sample, 0, len(st.Builds))
			for _, b := range st.Builds {
				out = append(out, metrics.Sample{Labels: []string{b.Table, b.Index, b.Phase}, Value: 1})
			}
			return out
		}, "table", "index", "phase")

	reg.NewCounterFunc("dynamopg_stream_records_total",
		"Stream records written to the database since it was created (all processes; not lowered by the 24-hour trim).",
		func() []metrics.Sample {
			st := c.get()
			if st == nil || st.StreamRecords < 0 {
				return nil
			}
			return []metrics.Sample{{Value: float64(st.StreamRecords)}}
		})
}

// queueTotal is the queue of every table: rows pending and passed over,
// and the oldest row's age.
func queueTotal(qs []store.QueueStatus) store.QueueStatus {
	var t store.QueueStatus
	for _, q := range qs {
		t.Depth += q.Depth
		t.PassedOver += q.PassedOver
		t.OldestS = max(t.OldestS, q.OldestS)
	}
	return t
}

// registerProcessCounters exposes the work counted in this process.
func registerProcessCounters(reg *metrics.Registry) {
	reg.NewCounterFunc("dynamopg_ttl_deletions_total",
		"Expired items the TTL sweeper of this process deleted.",
		func() []metrics.Sample {
			return []metrics.Sample{{Value: float64(maintain.TTLDeletions())}}
		})
}
