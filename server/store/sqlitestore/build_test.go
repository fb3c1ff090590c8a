package sqlitestore_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/maintain"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore"
	"github.com/dynamopg/dynamopg/tests/storetest"
)

// The online index build beyond the contract suite: small pages (so that
// every build test certainly runs many pages under the writes), the resume
// at Open, and the cost figures.

func openBuild(t testing.TB, dsn string, opts sqlitestore.Options) *sqlitestore.Store {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s, err := sqlitestore.Open(context.Background(), dsn, opts)
	if err != nil {
		t.Fatalf("Open %s: %v", dsn, err)
	}
	return s
}

// TestBuildSmallPages runs the contract's build tests with 16-item pages:
// about 63 pages per build, so writes certainly land between them, TableGet
// certainly sees Backfilling, and the removal certainly lands mid-build.
func TestBuildSmallPages(t *testing.T) {
	storetest.ExerciseBuild(context.Background(), t, func(t *testing.T) store.Store {
		s := openBuild(t, filepath.Join(t.TempDir(), "dynamo.db"), sqlitestore.Options{BuildPageSize: 16})
		t.Cleanup(s.Close)
		return s
	})
}

// gsi is the index the tests here add.
func gsi() store.Index {
	return store.Index{Name: "g", Global: true, Status: store.StatusCreating,
		Hash: store.KeyAttr{Name: "g", Type: attr.TypeS}, Projection: store.Projection{Type: "ALL"}}
}

// addCreating adds gsi() as CREATING and returns the stored description.
func addCreating(t testing.TB, s store.Store, name string) *store.Table {
	t.Helper()
	out, err := s.TableUpdate(context.Background(), name, func(t *store.Table) error {
		t.Indexes = append(t.Indexes, gsi())
		return nil
	})
	if err != nil {
		t.Fatalf("TableUpdate adding the index: %v", err)
	}
	return out
}

// load writes n items in transactions of 500.
func load(t testing.TB, s *sqlitestore.Store, tbl *store.Table, n int) {
	t.Helper()
	for lo := 0; lo < n; lo += 500 {
		var targets []store.TxTarget
		var items []attr.Item
		for i := lo; i < min(lo+500, n); i++ {
			it := attr.Item{"pk": attr.Str(fmt.Sprintf("p%03d", i%101)), "sk": attr.Num(fmt.Sprint(i)),
				"v": attr.Num("0")}
			if i%5 != 0 {
				it["g"] = attr.Str(fmt.Sprintf("g%d", i%17))
			}
			targets = append(targets, store.TxTarget{Table: tbl, Key: tbl.KeyOf(it)})
			items = append(items, it)
		}
		err := s.ItemTransact(context.Background(), targets, func([]attr.Item) ([]store.TxWrite, error) {
			w := make([]store.TxWrite, len(items))
			for i, it := range items {
				w[i] = store.TxWrite{Put: it}
			}
			return w, nil
		})
		if err != nil {
			t.Fatalf("load: %v", err)
		}
	}
}

// requireIndexEqualsTable compares the index with the projection of the
// table's items, by base key.
func requireIndexEqualsTable(t testing.TB, s store.Store, name, index string) {
	t.Helper()
	ctx := context.Background()
	tbl, err := s.TableGet(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	ix := tbl.Index(index)
	if ix == nil || ix.Status != store.StatusActive || ix.Backfilling {
		t.Fatalf("index %s: %+v, want ACTIVE", index, ix)
	}
	items, err := s.ItemScan(ctx, tbl, store.ScanInput{TotalSegments: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]attr.Item{}
	for _, it := range items {
		if ix.Indexable(it) {
			want[string(tbl.KeyOf(it).AppendJSON(nil))] = ix.Project(tbl, it)
		}
	}
	rows, err := s.ItemScan(ctx, tbl, store.ScanInput{Index: ix, TotalSegments: 1})
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	seen := map[string]bool{}
	for _, r := range rows {
		k := string(tbl.KeyOf(r).AppendJSON(nil))
		w, ok := want[k]
		if seen[k] || !ok || string(w.AppendJSON(nil)) != string(r.AppendJSON(nil)) {
			bad++
		}
		seen[k] = true
	}
	if bad > 0 || len(seen) != len(want) {
		t.Fatalf("index %s: %d rows (%d wrong), want %d", index, len(rows), bad, len(want))
	}
}

// quantile returns the q-quantile of durations.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[int(q*float64(len(d)-1))]
}

// BenchmarkBuildCost measures (a measurement: make bench runs it once), on a file database with the default page size:
// the backfill rate, the wait of a TableUpdate (the API's refusals run in
// its fn, under the writer) during a build, and the write latency and
// throughput of 2 writers with and without a build.
func BenchmarkBuildCost(b *testing.B) {
	t := b
	ctx := context.Background()
	s := openBuild(t, filepath.Join(t.TempDir(), "cost.db"), sqlitestore.Options{})
	defer s.Close()
	tbl := testTable("cost")
	if err := s.TableCreate(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	const n = 20000
	load(t, s, tbl, n)

	// writes runs 2 writers until stop and returns their latencies.
	writes := func(stop <-chan struct{}) (func() []time.Duration, *atomic.Int64) {
		var mu sync.Mutex
		var lat []time.Duration
		var count atomic.Int64
		var wg sync.WaitGroup
		for w := range 2 {
			wg.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					k := (i*7919 + w*104729) % n
					it := attr.Item{"pk": attr.Str(fmt.Sprintf("p%03d", k%101)), "sk": attr.Num(fmt.Sprint(k)),
						"v": attr.Num(fmt.Sprint(i)), "g": attr.Str(fmt.Sprintf("g%d", i%17))}
					start := time.Now()
					if _, err := s.ItemWrite(ctx, tbl, tbl.KeyOf(it), func(attr.Item) (attr.Item, error) { return it, nil }); err != nil {
						t.Errorf("write: %v", err)
						return
					}
					d := time.Since(start)
					mu.Lock()
					lat = append(lat, d)
					mu.Unlock()
					count.Add(1)
				}
			})
		}
		return func() []time.Duration { wg.Wait(); return lat }, &count
	}

	// Without a build.
	stop := make(chan struct{})
	wait, _ := writes(stop)
	time.Sleep(time.Second)
	close(stop)
	base := wait()
	baseRate := float64(len(base)) / time.Second.Seconds()

	// With a build, and a TableUpdate every 5 ms that refuses as the API
	// does while an index is CREATING.
	start := time.Now()
	out := addCreating(t, s, "cost")
	addTook := time.Since(start)
	stop = make(chan struct{})
	wait, _ = writes(stop)
	refused := errors.New("refused")
	var upd []time.Duration
	updDone := make(chan struct{})
	go func() {
		defer close(updDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			st := time.Now()
			_, err := s.TableUpdate(ctx, "cost", func(t *store.Table) error {
				for _, ix := range t.Indexes {
					if ix.Status == store.StatusCreating {
						return refused
					}
				}
				return nil
			})
			upd = append(upd, time.Since(st))
			if !errors.Is(err, refused) && err != nil {
				t.Errorf("TableUpdate: %v", err)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	start = time.Now()
	if err := s.IndexBuildStart(ctx, out, "g"); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := maintain.IndexBuildWait(wctx, s, out, "g"); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	close(stop)
	during := wait()
	<-updDone
	duringRate := float64(len(during)) / took.Seconds()
	requireIndexEqualsTable(t, s, "cost", "g")

	t.Logf("items %d, page 256: TableUpdate adding the index %v; build %v = %.0f items/s",
		n, addTook.Round(time.Microsecond), took.Round(time.Millisecond), float64(n)/took.Seconds())
	t.Logf("TableUpdate with the CREATING refusal during the build (%d calls): p50 %v, p99 %v, max %v",
		len(upd), quantile(upd, 0.5), quantile(upd, 0.99), quantile(upd, 1))
	t.Logf("2 writers without a build: %.0f writes/s, p50 %v, p99 %v, max %v",
		baseRate, quantile(base, 0.5), quantile(base, 0.99), quantile(base, 1))
	t.Logf("2 writers during the build: %.0f writes/s, p50 %v, p99 %v, max %v",
		duringRate, quantile(during, 0.5), quantile(during, 0.99), quantile(during, 1))
	if m := quantile(upd, 1); m > 2*time.Second {
		t.Errorf("a TableUpdate waited %v for the build; one page should be milliseconds", m)
	}
}
