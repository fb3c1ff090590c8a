package pgstore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// keyFlights: writes of one key run one at a time, every one of them gets
// its turn, writes of other keys do not wait, and a write whose context
// ends while it waits gives up without disturbing the one in flight.
func TestKeyFlights(t *testing.T) {
	var f keyFlights
	ctx := context.Background()
	t.Run("one key at a time", func(t *testing.T) {
		const writers, each = 16, 50
		var inside, most, done atomic.Int64
		var wg sync.WaitGroup
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					k, err := f.enter(ctx, 1, []byte(`{"pk":"hot"}`))
					if err != nil {
						t.Error(err)
						return
					}
					n := inside.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					time.Sleep(10 * time.Microsecond)
					inside.Add(-1)
					done.Add(1)
					f.leave(k)
				}
			}()
		}
		wg.Wait()
		if most.Load() != 1 || done.Load() != writers*each {
			t.Fatalf("at most %d writes of the key at once, %d done; want 1 and %d", most.Load(), done.Load(), writers*each)
		}
		if len(f.m) != 0 {
			t.Fatalf("%d keys left in flight", len(f.m))
		}
	})
	t.Run("other keys and tables do not wait", func(t *testing.T) {
		held, err := f.enter(ctx, 1, []byte("a"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.leave(held)
		for _, other := range []struct {
			table int64
			key   string
		}{{1, "b"}, {2, "a"}} {
			wctx, cancel := context.WithTimeout(ctx, time.Second)
			k, err := f.enter(wctx, other.table, []byte(other.key))
			cancel()
			if err != nil {
				t.Fatalf("table %d key %q waited for table 1 key a: %v", other.table, other.key, err)
			}
			f.leave(k)
		}
	})
	t.Run("a waiter's context ends", func(t *testing.T) {
		held, err := f.enter(ctx, 1, []byte("c"))
		if err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		_, err = f.enter(wctx, 1, []byte("c"))
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a waiter out of time got %v; want context.DeadlineExceeded", err)
		}
		// The one in flight is still alone; when it leaves, the next enters.
		next := make(chan error, 1)
		go func() {
			k, err := f.enter(ctx, 1, []byte("c"))
			if err == nil {
				f.leave(k)
			}
			next <- err
		}()
		select {
		case err := <-next:
			t.Fatalf("entered while another write of the key was in flight (err %v)", err)
		case <-time.After(50 * time.Millisecond):
		}
		f.leave(held)
		if err := <-next; err != nil {
			t.Fatal(err)
		}
	})
}
