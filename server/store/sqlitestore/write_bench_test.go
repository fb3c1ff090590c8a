package sqlitestore_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore"
)

// The store's share of a PutItem, GetItem and UpdateItem-like write on a
// file database, without HTTP: 1 and 16 concurrent callers (the group
// committer batches the latter). cpu-ns/op is the process's user+system
// CPU per operation (getrusage), less disturbed than ns/op by other
// processes on a shared machine.
//
//	go test -run '^$' -bench . -benchmem -cpu 1 ./server/store/sqlitestore/
func BenchmarkItemPut(b *testing.B) {
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			s, tbl := benchStore(b)
			pad := attr.Str(strings.Repeat("x", 1000))
			var seq atomic.Int64
			runCallers(b, callers, func() {
				n := seq.Add(1)
				it := attr.Item{"pk": attr.Str(fmt.Sprintf("k%09d", n)), "pad": pad}
				if _, err := s.ItemPut(context.Background(), tbl, it); err != nil {
					b.Error(err)
				}
			})
		})
	}
}

func BenchmarkItemGet(b *testing.B) {
	s, tbl := benchStore(b)
	pad := attr.Str(strings.Repeat("x", 1000))
	const items = 10000
	for i := range items {
		if _, err := s.ItemPut(context.Background(), tbl, attr.Item{"pk": attr.Str(fmt.Sprintf("k%09d", i)), "pad": pad}); err != nil {
			b.Fatal(err)
		}
	}
	var seq atomic.Int64
	runCallers(b, 16, func() {
		n := seq.Add(7919) % items
		it, err := s.ItemGet(context.Background(), tbl, attr.Item{"pk": attr.Str(fmt.Sprintf("k%09d", n))})
		if err != nil || it == nil {
			b.Error(err, it)
		}
	})
}

func BenchmarkItemUpdate(b *testing.B) {
	for _, callers := range []int{1, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			s, tbl := benchStore(b)
			pad := attr.Str(strings.Repeat("x", 1000))
			const items = 1000
			for i := range items {
				if _, err := s.ItemPut(context.Background(), tbl, attr.Item{"pk": attr.Str(fmt.Sprintf("k%09d", i)), "pad": pad, "n": attr.Num("0")}); err != nil {
					b.Fatal(err)
				}
			}
			var seq atomic.Int64
			runCallers(b, callers, func() {
				n := seq.Add(1)
				key := attr.Item{"pk": attr.Str(fmt.Sprintf("k%09d", n%items))}
				_, err := s.ItemWrite(context.Background(), tbl, key, func(old attr.Item) (attr.Item, error) {
					old["n"] = attr.Num(fmt.Sprint(n))
					return old, nil
				})
				if err != nil {
					b.Error(err)
				}
			})
		})
	}
}

// benchStore opens a store on a new file with one table, hash key pk (S),
// its description from the table cache as the API would take it.
func benchStore(b *testing.B) (*sqlitestore.Store, *store.Table) {
	b.Helper()
	ctx := context.Background()
	s, err := sqlitestore.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), sqlitestore.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	if err := s.TableCreate(ctx, &store.Table{Name: "bench", Status: store.StatusActive, BillingMode: "PAY_PER_REQUEST",
		Hash: store.KeyAttr{Name: "pk", Type: attr.TypeS}}); err != nil {
		b.Fatal(err)
	}
	tbl, _, err := s.TableGetCached(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	return s, tbl
}

// runCallers runs op b.N times over callers goroutines and reports the
// process's CPU per operation.
func runCallers(b *testing.B, callers int, op func()) {
	b.Helper()
	b.ReportAllocs()
	b.SetParallelism(callers) // with -cpu 1: callers goroutines
	before := cpuTime()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			op()
		}
	})
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-before).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
