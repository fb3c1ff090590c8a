package api

import (
	"context"
	"sync"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// The service refreshes a table's ItemCount and TableSizeBytes about every
// six hours; the stores count them, which is a scan of the table. A count
// that took long is reused for a while, in proportion to what it cost, so
// that clients polling DescribeTable (SDK waiters, infrastructure tools, a
// script watching an index build) do not keep the database scanning a large
// table, while a small table's count stays exact. (At 50 times, a client
// polling a 20,000-row table every 10 ms through an index build had it
// counted every 350 ms, 2-3% of the database's time in the build.)
const (
	statsCheap    = 2 * time.Millisecond // a count this fast is never reused
	statsReuse    = 500                  // a count is reused for this many times its cost
	statsReuseMax = 10 * time.Minute
)

// tableStats caches the counts of expensive tables, by table id.
type tableStats struct {
	now     func() time.Time
	mu      sync.Mutex
	entries map[int64]statsEntry
}

type statsEntry struct {
	items, bytes int64
	until        time.Time
}

func newTableStats() *tableStats {
	return &tableStats{now: time.Now, entries: map[int64]statsEntry{}}
}

// get returns t's counts: a reused count while one is fresh, else count's.
func (c *tableStats) get(ctx context.Context, t *store.Table,
	count func(context.Context, *store.Table) (int64, int64, error)) (items, bytes int64, err error) {
	start := c.now()
	c.mu.Lock()
	e, ok := c.entries[t.ID]
	if ok && start.After(e.until) {
		delete(c.entries, t.ID)
		ok = false
	}
	c.mu.Unlock()
	if ok {
		return e.items, e.bytes, nil
	}
	items, bytes, err = count(ctx, t)
	if err != nil {
		return 0, 0, err
	}
	if took := c.now().Sub(start); took >= statsCheap {
		c.mu.Lock()
		c.entries[t.ID] = statsEntry{items, bytes, start.Add(min(took*statsReuse, statsReuseMax))}
		c.mu.Unlock()
	}
	return items, bytes, nil
}
