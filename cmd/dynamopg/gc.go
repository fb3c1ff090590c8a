package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The server's live heap is a few MB (the table cache, the pools, the
// connections' buffers), and every request leaves 10-40 KB of garbage, so
// at GOGC=100 the collector ran every few hundred requests: 15-20% of the
// process's instructions per PutItem. The GC tuner gives the heap a floor
// of headroom instead: after each collection it sets the GC percent so that
// the next one starts when the heap has grown by the larger of the live
// heap (GOGC=100) and the headroom. A large live heap (request bodies under
// load) is collected as at GOGC=100; a small one lets up to headroom bytes
// of garbage wait, which is all the memory this costs.

// heapMinimum is the runtime's floor for the heap goal at GOGC=100
// (runtime.defaultHeapMinimum); it scales with the percent, so that a
// percent of p never collects below 4 MB × p/100.
const heapMinimum = 4 << 20

// gcPercentFor is the GC percent whose heap goal is live plus the larger of
// live and headroom: at most 100 × headroom/live for the growth, at most
// 100 × (live+headroom)/heapMinimum for the runtime's floor.
func gcPercentFor(live, headroom uint64) int {
	p := 100 * (live + headroom) / heapMinimum
	if live > 0 {
		p = min(p, 100*headroom/live)
	}
	return int(max(p, 100))
}

// startGCTuner starts the tuner for headroom bytes; it does nothing (false)
// when headroom is 0 or GOGC or GOMEMLIMIT is set, which then rule.
func startGCTuner(headroom uint64) bool {
	if headroom == 0 || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	runGCTuner(headroom)
	return true
}

// runGCTuner starts the tuner whatever the environment says.
func runGCTuner(headroom uint64) {
	t := &gcTuner{headroom: headroom, percent: 100, live: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	t.tune()
	t.arm()
}

type gcTuner struct {
	headroom uint64
	percent  int
	live     []metrics.Sample
}

// gcSentinel is garbage from birth; its finalizer runs after the first
// collection that finds it, then arms a new one. It holds a pointer so
// that it is not a tiny allocation (whose finalizer may never run).
type gcSentinel struct{ _ *byte }

func (t *gcTuner) arm() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		t.tune()
		t.arm()
	})
}

// tune sets the percent for the live heap the last collection marked.
// SetGCPercent recomputes the current cycle's goal from that heap.
func (t *gcTuner) tune() {
	metrics.Read(t.live)
	if t.live[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	if p := gcPercentFor(t.live[0].Value.Uint64(), t.headroom); p != t.percent {
		t.percent = p
		debug.SetGCPercent(p)
	}
}
