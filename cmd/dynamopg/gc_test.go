package main

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func TestGCPercentFor(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, headroom uint64
		want           int
	}{
		{4 * mb, 32 * mb, 800},  // small heap: the headroom rules
		{1 * mb, 32 * mb, 825},  // tiny heap: the runtime's floor, 4 MB × 8.25
		{0, 32 * mb, 800},       // before the first collection
		{32 * mb, 32 * mb, 100}, // from here on GOGC=100
		{500 * mb, 32 * mb, 100},
		{0, 0, 100},
	} {
		if got := gcPercentFor(c.live, c.headroom); got != c.want {
			t.Errorf("gcPercentFor(%d MB, %d MB) = %d, want %d", c.live/mb, c.headroom/mb, got, c.want)
		}
	}
}

// gcPercent is the runtime's current GC percent.
func gcPercent() uint64 { return readMetric("/gc/gogc:percent") }

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// waitGCPercent collects until the tuner has set a percent that ok accepts.
func waitGCPercent(t *testing.T, what string, ok func(uint64) bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer goroutine runs the tuner
		if ok(gcPercent()) {
			return
		}
	}
	t.Fatalf("GC percent %d after 10 s of collections, want %s", gcPercent(), what)
}

// TestGCTuner runs the tuner in this process: the test's heap is small, so
// the percent rises far above 100; with a live heap larger than the
// headroom it is back to 100, and up again once that heap is garbage.
func TestGCTuner(t *testing.T) {
	const headroom = 16 << 20
	runGCTuner(headroom)
	waitGCPercent(t, "above 100 for a small heap", func(p uint64) bool { return p > 100 })
	// The goal is the live heap plus the headroom, not more (the runtime's
	// floor for the goal grows with the percent).
	if live, goal := readMetric("/gc/heap/live:bytes"), readMetric("/gc/heap/goal:bytes"); goal > live+headroom+headroom/20 {
		t.Errorf("heap goal %d KB for a live heap of %d KB, want at most live + %d KB", goal>>10, live>>10, headroom>>10)
	}

	live := make([]byte, 64<<20)
	waitGCPercent(t, "100 for a 64 MB live heap", func(p uint64) bool { return p == 100 })
	runtime.KeepAlive(live)
	live = nil

	waitGCPercent(t, "above 100 once the heap is garbage", func(p uint64) bool { return p > 100 })
}
