package pgstore

import (
	"context"
	"sync"
)

// keyFlights lets one optimistic write of an item at a time run in this
// process (itemWriteGuarded). Two writes of one key in flight at once
// both start from the same image; the second's statement then finds the
// row changed, reads the item and writes again, three round trips and
// the first's row lock waited for. Waiting here instead, it starts from
// the image the first left: one round trip. (UpdateItem at 16 clients on
// 1,000 keys: with 15 others in flight about one write in 70 meets
// another of its key, enough to set the p99, 10.9 ms against 6.5 with
// this.) Writes of other processes still meet in the statement's guard.
type keyFlights struct {
	mu sync.Mutex
	// m holds the keys in flight; the channel, made by the first write to
	// wait, is closed when the write in flight leaves.
	m map[imageKey]chan struct{}
}

// enter waits until no other write of the item at keyJSON is in flight,
// then marks it in flight; the caller calls leave with the key returned.
func (f *keyFlights) enter(ctx context.Context, table int64, keyJSON []byte) (imageKey, error) {
	k := imageKey{table, string(keyJSON)}
	for {
		f.mu.Lock()
		ch, busy := f.m[k]
		if !busy {
			if f.m == nil {
				f.m = make(map[imageKey]chan struct{})
			}
			f.m[k] = nil
			f.mu.Unlock()
			return k, nil
		}
		if ch == nil {
			ch = make(chan struct{})
			f.m[k] = ch
		}
		f.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return k, ctx.Err()
		}
	}
}

// leave ends the flight of k and wakes the writes waiting for it.
func (f *keyFlights) leave(k imageKey) {
	f.mu.Lock()
	ch := f.m[k]
	delete(f.m, k)
	f.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}
