package pgstore_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/backend"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
)

// BenchmarkAsyncLag measures the async index lag: from ItemWrite returning
// to the item being visible in the index, for 1,000 puts issued at a fixed
// rate (300/s and 1,000/s) by 8 writers, with the default workers, while a
// poller queries the index partition every millisecond. It reports the p50
// and p99 in ms (the median over b.N runs) and logs each run.
func BenchmarkAsyncLag(b *testing.B) {
	for _, rate := range []int{300, 1000} {
		b.Run(fmt.Sprintf("rate=%d", rate), func(b *testing.B) { benchmarkAsyncLag(b, 1000, rate) })
	}
}

func benchmarkAsyncLag(b *testing.B, writes, rate int) {
	s := openStore(b, freshURL(b), pgstore.Options{Workers: backend.DefaultWorkers})
	ix := asyncGSI("g", "KEYS_ONLY")
	var p50s, p99s []float64
	for run := 0; b.Loop(); run++ {
		tb := newTable(b, s, fmt.Sprintf("lag%d", run), attr.TypeS, attr.TypeNone, ix)
		lags := measureLag(b, s, tb, writes, rate)
		slices.Sort(lags)
		p50, p99 := lags[len(lags)/2], lags[len(lags)*99/100]
		b.Logf("async index lag over %d writes at %d/s: p50 %v, p99 %v, max %v",
			len(lags), rate, p50, p99, lags[len(lags)-1])
		p50s = append(p50s, float64(p50.Microseconds())/1000)
		p99s = append(p99s, float64(p99.Microseconds())/1000)
	}
	slices.Sort(p50s)
	slices.Sort(p99s)
	b.ReportMetric(p50s[len(p50s)/2], "p50-ms")
	b.ReportMetric(p99s[len(p99s)/2], "p99-ms")
}

// measureLag writes n items (g "lag", gn i) at rate per second and returns
// each one's lag from ItemWrite returning to its first sighting in the index.
func measureLag(b testing.TB, s *pgstore.Store, tb *store.Table, n, rate int) []time.Duration {
	ctx := context.Background()
	returned := make([]time.Time, n)
	seen := make([]time.Time, n)
	var mu sync.Mutex // guards returned
	jobs := make(chan int)
	var writers sync.WaitGroup
	for range 8 {
		writers.Go(func() {
			for i := range jobs {
				it := attr.Item{"pk": attr.Str(fmt.Sprint(i)), "g": attr.Str("lag"), "gn": attr.Num(fmt.Sprint(i))}
				if _, err := s.ItemWrite(ctx, tb, tb.KeyOf(it), func(attr.Item) (attr.Item, error) { return it, nil }); err != nil {
					b.Error(err)
				}
				mu.Lock()
				returned[i] = time.Now()
				mu.Unlock()
			}
		})
	}
	done := make(chan struct{})
	go func() { // the poller: up to 300 rows from the first unseen item on
		defer close(done)
		low, count := 0, 0
		deadline := time.Now().Add(time.Minute)
		for count < n && time.Now().Before(deadline) {
			rows, err := s.ItemQuery(ctx, tb, store.QueryInput{Index: &tb.Indexes[0], Hash: attr.Str("lag"),
				Range: &store.RangeCond{Op: store.RangeGE, Values: []attr.Value{attr.Num(fmt.Sprint(low))}}, Forward: true, Limit: 300})
			if err != nil {
				b.Error(err)
				return
			}
			now := time.Now()
			for _, r := range rows {
				var i int
				fmt.Sscan(r["gn"].S, &i)
				if seen[i].IsZero() {
					seen[i] = now
					count++
				}
			}
			for low < n && !seen[low].IsZero() {
				low++
			}
			time.Sleep(time.Millisecond)
		}
	}()
	t0 := time.Now()
	tick := time.NewTicker(time.Second / time.Duration(rate))
	for i := range n {
		<-tick.C
		jobs <- i
	}
	tick.Stop()
	b.Logf("writes issued in %v", time.Since(t0))
	close(jobs)
	writers.Wait()
	<-done
	lags := make([]time.Duration, 0, n)
	for i := range n {
		if seen[i].IsZero() {
			b.Fatalf("item %d never seen in the index", i)
		}
		lags = append(lags, max(seen[i].Sub(returned[i]), 0))
	}
	return lags
}
