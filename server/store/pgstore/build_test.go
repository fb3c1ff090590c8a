package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/backend"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/maintain"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
)

// gsiHash is a hash-only GSI on g (S), projecting ALL.
func gsiHash(prop string) store.Index {
	return store.Index{Name: "gh", Global: true, Hash: store.KeyAttr{Name: "g", Type: attr.TypeS},
		Projection: store.Projection{Type: "ALL"}, Propagation: prop}
}

// gsiHashRange is a hash+range GSI on the attributes h2 (S) and r2 (N),
// projecting INCLUDE v.
func gsiHashRange(prop string) store.Index {
	return store.Index{Name: "gr", Global: true, Hash: store.KeyAttr{Name: "h2", Type: attr.TypeS},
		Range:      &store.KeyAttr{Name: "r2", Type: attr.TypeN},
		Projection: store.Projection{Type: "INCLUDE", NonKeyAttributes: []string{"v"}}, Propagation: prop}
}

// addIndex adds ix as the API does: TableUpdate appends it CREATING with ID
// 0 (the store assigns it and creates the storage). It returns the table
// and how long TableUpdate took.
func addIndex(t testing.TB, s store.Store, name string, ix store.Index) (*store.Table, time.Duration) {
	t.Helper()
	ix.ID, ix.Status = 0, store.StatusCreating
	t0 := time.Now()
	tb, err := s.TableUpdate(context.Background(), name, func(tb *store.Table) error {
		for _, o := range tb.Indexes {
			if o.Status == store.StatusCreating {
				return errOneOnline
			}
		}
		tb.Indexes = append(tb.Indexes, ix)
		tb.AttributeDefinitions = append(tb.AttributeDefinitions, ix.Hash)
		if ix.Range != nil {
			tb.AttributeDefinitions = append(tb.AttributeDefinitions, *ix.Range)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("add index %s: %v", ix.Name, err)
	}
	return tb, time.Since(t0)
}

var errOneOnline = errors.New("only 1 online index can be created or deleted simultaneously per table")

// buildIndex starts the build of the CREATING index name and waits for it.
func buildIndex(t testing.TB, s *pgstore.Store, tb *store.Table, name string) {
	t.Helper()
	if err := s.IndexBuildStart(context.Background(), tb, name); err != nil {
		t.Fatal(err)
	}
	waitIndex(t, s, tb, name)
}

// waitIndex waits (60 s at most) until the index is not CREATING.
func waitIndex(t testing.TB, s *pgstore.Store, tb *store.Table, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := maintain.IndexBuildWait(ctx, s, tb, name); err != nil {
		t.Fatal(err)
	}
}

// indexOf reads the table's current definition of index name (nil: none).
func indexOf(t testing.TB, s store.Store, table, name string) (*store.Table, *store.Index) {
	t.Helper()
	tb, err := s.TableGet(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	return tb, tb.Index(name)
}

// requireActiveExact checks the index is ACTIVE (Backfilling cleared) and
// equals the table's projection.
func requireActiveExact(t testing.TB, s store.Store, table, name, step string) {
	t.Helper()
	tb, ix := indexOf(t, s, table, name)
	if ix == nil || ix.Status != store.StatusActive || ix.Backfilling {
		t.Fatalf("%s: index %s is %+v, want ACTIVE without Backfilling", step, name, ix)
	}
	requireExact(t, s, tb, ix, step)
}

// loadItems puts n items k0..k<n-1> with both GSIs' attributes.
func loadItems(t testing.TB, s *pgstore.Store, tb *store.Table, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				put(t, s, tb, attr.Item{"pk": attr.Str(fmt.Sprintf("k%d", i)), "g": attr.Str(fmt.Sprintf("g%d", i%7)),
					"h2": attr.Str(fmt.Sprintf("h%d", i%5)), "r2": attr.Num(fmt.Sprint(i)), "v": attr.Num("0")})
			}
		})
	}
	wg.Wait()
}

// writeLog is one write of a traffic run: the items it changed (the new
// states fn returned, nil for a delete), when, and how it ended.
type writeLog struct {
	keys     []string // fmt.Sprint of each target's key item
	states   []attr.Item
	at, done time.Time
	err      error
}

// writeStat is one write of a traffic run.
type writeStat struct {
	at  time.Time
	dur time.Duration
}

// traffic runs writers goroutines of random writes over items keys until
// stopped: puts, updates of the index keys, removals of them, deletes, and
// two-item ItemTransact calls. Stores are picked at random per write. A
// write in flight when the traffic stops runs to its end (no cancelled
// context), so that every write's outcome is known when the test compares
// the index with the table.
type traffic struct {
	stopped atomic.Bool
	wg      sync.WaitGroup
	mu      sync.Mutex
	stats   []writeStat
	log     []writeLog // every write, for explaining a wrong index row
	fails   atomic.Int64
	first   atomic.Pointer[error]
}

func startTraffic(t testing.TB, stores []*pgstore.Store, tb *store.Table, writers, items int) *traffic {
	ctx := context.Background()
	tr := &traffic{}
	for w := range writers {
		tr.wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			cur := tb // the description this writer writes through
			var local []writeStat
			var logs []writeLog
			for i := 0; !tr.stopped.Load(); i++ {
				s := stores[rnd.IntN(len(stores))]
				key := attr.Item{"pk": attr.Str(fmt.Sprintf("k%d", rnd.IntN(items)))}
				op := rnd.IntN(5)
				g, h2, r2 := attr.Str(fmt.Sprintf("g%d", rnd.IntN(7))), attr.Str(fmt.Sprintf("h%d", rnd.IntN(5))), attr.Num(fmt.Sprint(rnd.IntN(1000)))
				v := attr.Num(fmt.Sprint(i))
				change := func(old attr.Item, key attr.Item, op int) attr.Item {
					it := old.Clone()
					if it == nil {
						it = key.Clone()
					}
					switch op {
					case 0: // a whole new item
						return attr.Item{"pk": key["pk"], "g": g, "h2": h2, "r2": r2, "v": v}
					case 1: // update the index keys
						it["g"], it["h2"], it["v"] = g, h2, v
						if _, ok := it["r2"]; !ok {
							it["r2"] = r2
						}
						return it
					case 2: // remove the index keys
						if old == nil {
							return nil
						}
						delete(it, "g")
						delete(it, "r2")
						it["v"] = v
						return it
					}
					return nil // delete
				}
				t0 := time.Now()
				var err error
				entry := writeLog{at: t0}
				if op == 4 {
					key2 := attr.Item{"pk": attr.Str(fmt.Sprintf("k%d", rnd.IntN(items)))}
					if key2["pk"].S == key["pk"].S {
						continue
					}
					op2 := rnd.IntN(4)
					cur, err = onFresh(s, cur, func(tb *store.Table) error {
						return s.ItemTransact(ctx, []store.TxTarget{{Table: tb, Key: key}, {Table: tb, Key: key2}},
							func(olds []attr.Item) ([]store.TxWrite, error) {
								a, b := change(olds[0], key, 1), change(olds[1], key2, op2)
								entry.keys = []string{fmt.Sprint(key), fmt.Sprint(key2)}
								entry.states = []attr.Item{a, b}
								return []store.TxWrite{{Put: a}, {Put: b, Delete: b == nil}}, nil
							})
					})
				} else {
					cur, err = onFresh(s, cur, func(tb *store.Table) error {
						_, err := s.ItemWrite(ctx, tb, key, func(old attr.Item) (attr.Item, error) {
							nu := change(old, key, op)
							entry.keys, entry.states = []string{fmt.Sprint(key)}, []attr.Item{nu}
							return nu, nil
						})
						return err
					})
				}
				if err != nil {
					tr.fails.Add(1)
					tr.first.CompareAndSwap(nil, &err)
				}
				local = append(local, writeStat{at: t0, dur: time.Since(t0)})
				entry.done, entry.err = time.Now(), err
				logs = append(logs, entry)
			}
			tr.mu.Lock()
			tr.stats = append(tr.stats, local...)
			tr.log = append(tr.log, logs...)
			tr.mu.Unlock()
		})
	}
	return tr
}

// end stops the writers and fails the test on a failed write.
func (tr *traffic) end(t testing.TB) {
	t.Helper()
	tr.stopped.Store(true)
	tr.wg.Wait()
	if err := tr.first.Load(); err != nil {
		t.Fatalf("%d writes failed, first: %v", tr.fails.Load(), *err)
	}
}

// window reports the writes per second and the longest write that started
// in [from, to).
func (tr *traffic) window(from, to time.Time) (perSec float64, longest time.Duration) {
	n := 0
	for _, st := range tr.stats {
		if !st.at.Before(from) && st.at.Before(to) {
			n++
			longest = max(longest, st.dur)
		}
	}
	return float64(n) / to.Sub(from).Seconds(), longest
}

// requireActiveExplained is requireActiveExact for an index built under
// traffic; on a wrong row it also prints, per wrong base key, the item, its
// index rows, the build's timeline and every write to the key (times in ms
// from t0), so that a rare race leaves a trail.
func requireActiveExplained(t testing.TB, s *pgstore.Store, tr *traffic, name string, t0 time.Time) {
	t.Helper()
	tb, ix := indexOf(t, s, "t", name)
	if ix == nil || ix.Status != store.StatusActive || ix.Backfilling {
		t.Fatalf("after the build: index %s is %+v, want ACTIVE without Backfilling", name, ix)
	}
	msg, bad := indexDiffKeys(t, s, tb, ix)
	if msg == "" {
		return
	}
	t.Errorf("after the build: %s", msg)
	ms := func(at time.Time) int64 { return at.Sub(t0).Milliseconds() }
	var started, finished time.Time
	var barrierMs int
	_ = s.Pool().QueryRow(context.Background(),
		`SELECT started_at, coalesce(finished_at, now()), coalesce(barrier_ms, -1) FROM dynamopg.index_builds WHERE index_id = $1`,
		ix.ID).Scan(&started, &finished, &barrierMs)
	t.Logf("build of %s: attempt started at %d ms, barrier waited %d ms, finished at %d ms", name, ms(started), barrierMs, ms(finished))
	items, rows := snapshotScan(t, s, tb, ix)
	for _, k := range bad {
		var item attr.Item
		for _, it := range items {
			if fmt.Sprint(tb.KeyOf(it)) == k {
				item = it
			}
		}
		t.Logf("key %s: item %v", k, item)
		for _, r := range rows {
			if fmt.Sprint(tb.KeyOf(r)) == k {
				t.Logf("  index row %v", r)
			}
		}
		for _, w := range tr.log {
			for i, wk := range w.keys {
				if wk == k {
					t.Logf("  write %d..%d ms (targets %v) err=%v: state %v", ms(w.at), ms(w.done), w.keys, w.err, w.states[i])
				}
			}
		}
	}
}

// buildFigures reads a finished build's rows and backfill rate.
func buildFigures(t testing.TB, s *pgstore.Store, indexID int64) (phase string, rows int64, rate float64, attempts int) {
	t.Helper()
	err := s.Pool().QueryRow(context.Background(), `
		SELECT phase, rows_done, rows_done / greatest(extract(epoch FROM finished_at - started_at), 0.001), attempts
		  FROM dynamopg.index_builds WHERE index_id = $1`, indexID).Scan(&phase, &rows, &rate, &attempts)
	if err != nil {
		t.Fatal(err)
	}
	return
}

// TestBuildUnderTraffic adds a hash-only and a hash+range GSI (on new
// attributes) to a table of 2,000 items while 4 or 8 writers run puts, key
// updates, key removals, deletes and transactions; each index must equal the
// table afterwards.
func TestBuildUnderTraffic(t *testing.T) {
	for _, prop := range []string{store.PropagationSync, store.PropagationAsync} {
		for _, writers := range []int{4, 8} {
			t.Run(fmt.Sprintf("%s/%d-writers", prop, writers), func(t *testing.T) {
				s := newStore(t)
				tb := newTable(t, s, "t", attr.TypeS, attr.TypeNone)
				loadItems(t, s, tb, 2000)
				tr := startTraffic(t, []*pgstore.Store{s}, tb, writers, 2000)
				time.Sleep(700 * time.Millisecond)
				type build struct {
					name           string
					from, upd, end time.Time
					ix             *store.Index
				}
				var builds []build
				for _, ix := range []store.Index{gsiHash(prop), gsiHashRange(prop)} {
					b := build{name: ix.Name, from: time.Now()}
					tb2, _ := addIndex(t, s, "t", ix)
					b.upd = time.Now()
					if _, cur := indexOf(t, s, "t", ix.Name); cur.Status != store.StatusCreating {
						t.Fatalf("after UpdateTable: %+v", cur)
					}
					buildIndex(t, s, tb2, ix.Name)
					b.end = time.Now()
					_, b.ix = indexOf(t, s, "t", ix.Name)
					builds = append(builds, b)
					time.Sleep(200 * time.Millisecond)
				}
				time.Sleep(300 * time.Millisecond)
				tr.end(t)
				if prop == store.PropagationAsync {
					queueWait(t, s, tb)
				}
				for _, b := range builds {
					requireActiveExplained(t, s, tr, b.name, b.from)
				}
				base, baseLongest := tr.window(builds[0].from.Add(-600*time.Millisecond), builds[0].from)
				for _, b := range builds {
					_, rows, rate, _ := buildFigures(t, s, b.ix.ID)
					during, longest := tr.window(b.from, b.end)
					_, barrierLongest := tr.window(b.from.Add(-2*time.Second), b.upd)
					t.Logf("%s: UpdateTable %v, build %v, backfill %d rows at %.0f rows/s; writes %.0f/s during vs %.0f/s before; longest write %v during the build, %v around UpdateTable, %v before",
						b.name, b.upd.Sub(b.from).Round(time.Millisecond), b.end.Sub(b.upd).Round(time.Millisecond), rows, rate,
						during, base, longest.Round(time.Millisecond), barrierLongest.Round(time.Millisecond), baseLongest.Round(time.Millisecond))
				}
			})
		}
	}
}

// gate pauses the k-th caller of a hook until its channel is closed.
type gate struct {
	mu      sync.Mutex
	calls   int
	paused  []chan struct{} // closed when caller k arrived
	release []chan struct{}
}

func newGate(n int) *gate {
	g := &gate{}
	for range n {
		g.paused = append(g.paused, make(chan struct{}))
		g.release = append(g.release, make(chan struct{}))
	}
	return g
}

func (g *gate) hook() {
	g.mu.Lock()
	k := g.calls
	g.calls++
	g.mu.Unlock()
	if k < len(g.paused) {
		close(g.paused[k])
		<-g.release[k]
	}
}

// TestBuildRaceWithCatalog pauses writes after they read the catalog (and
// just before their statement) while an index is added and built: each
// item ends right in the index.
func TestBuildRaceWithCatalog(t *testing.T) {
	for _, prop := range []string{store.PropagationSync, store.PropagationAsync} {
		t.Run(prop+"/before-the-index", func(t *testing.T) {
			// A write that read the catalog before the index exists does
			// not hold up TableUpdate, but the build's barrier waits for it
			// before the backfill starts.
			s := newStore(t)
			tb := newTable(t, s, "t", attr.TypeS, attr.TypeNone)
			loadItems(t, s, tb, 50)
			g := newGate(1)
			defer pgstore.SetBuildTestHooks(g.hook, nil, nil)()
			done := make(chan error, 1)
			go func() {
				_, err := s.ItemWrite(context.Background(), tb, attr.Item{"pk": attr.Str("k1")}, func(old attr.Item) (attr.Item, error) {
					it := old.Clone()
					it["g"] = attr.Str("moved")
					return it, nil
				})
				done <- err
			}()
			<-g.paused[0]
			// TableUpdate returns while the write that read the old catalog is
			// still paused: it does not wait for writers (were it to, it would
			// fail on its lock timeout). Ordering, not a stopwatch, proves it.
			tb2, took := addIndex(t, s, "t", gsiHash(prop))
			t.Logf("TableUpdate returned in %v with a write in flight", took)
			if err := s.IndexBuildStart(context.Background(), tb2, "gh"); err != nil {
				t.Fatal(err)
			}
			time.Sleep(500 * time.Millisecond)
			_, ix := indexOf(t, s, "t", "gh")
			var phase string
			if err := s.Pool().QueryRow(context.Background(), "SELECT phase FROM dynamopg.index_builds WHERE index_id = $1", ix.ID).Scan(&phase); err != nil {
				t.Fatal(err)
			}
			if ix.Status != store.StatusCreating || ix.Backfilling || phase != "barrier" {
				t.Fatalf("build with a write in flight that read the old catalog: %+v, phase %s, want the barrier", ix, phase)
			}
			close(g.release[0])
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			waitIndex(t, s, tb2, "gh")
			var barrier int
			if err := s.Pool().QueryRow(context.Background(), "SELECT barrier_ms FROM dynamopg.index_builds WHERE index_id = $1", ix.ID).Scan(&barrier); err != nil {
				t.Fatal(err)
			}
			// The phase check above (still "barrier" while the write is paused)
			// is the proof that the barrier waits; barrier_ms is a figure.
			t.Logf("TableUpdate %v; the build's barrier waited %d ms for the paused write", took.Round(time.Microsecond), barrier)
			if prop == store.PropagationAsync {
				queueWait(t, s, tb)
			}
			requireActiveExact(t, s, "t", "gh", "write paused before the index")
		})
		for _, where := range []string{"after-catalog-read", "before-statement"} {
			t.Run(prop+"/"+where+"/during-the-build", func(t *testing.T) {
				s := newStoreNoRecovery(t)
				tb := newTable(t, s, "t", attr.TypeS, attr.TypeNone)
				loadItems(t, s, tb, 600)
				tb2, _ := addIndex(t, s, "t", gsiHash(prop))
				g := newGate(3)
				// The writes start once the build passed its barrier (which
				// would wait for them) and is at its first page.
				atPage, writesPaused := make(chan struct{}), make(chan struct{})
				var pageOnce sync.Once
				page := func() { pageOnce.Do(func() { close(atPage); <-writesPaused }) }
				if where == "after-catalog-read" {
					defer pgstore.SetBuildTestHooks(g.hook, nil, page)()
				} else {
					defer pgstore.SetBuildTestHooks(nil, g.hook, page)()
				}
				if err := s.IndexBuildStart(context.Background(), tb2, "gh"); err != nil {
					t.Fatal(err)
				}
				waitPaused(t, atPage)
				// The writes' description: the one the build made current
				// (Backfilling), as a request would read it now.
				cur, err := s.TableGet(context.Background(), "t")
				if err != nil {
					t.Fatal(err)
				}
				writes := []struct {
					key string
					fn  store.WriteFunc
				}{
					{"k10", func(old attr.Item) (attr.Item, error) { // key update of an existing item
						it := old.Clone()
						it["g"] = attr.Str("updated")
						return it, nil
					}},
					{"k20", func(attr.Item) (attr.Item, error) { return nil, nil }}, // delete
					{"new", func(attr.Item) (attr.Item, error) { // a new item: nothing to lock
						return attr.Item{"pk": attr.Str("new"), "g": attr.Str("fresh")}, nil
					}},
				}
				errs := make(chan error, len(writes))
				for k, w := range writes {
					go func() {
						_, err := s.ItemWrite(context.Background(), cur, attr.Item{"pk": attr.Str(w.key)}, w.fn)
						errs <- err
					}()
					<-g.paused[k]
				}
				close(writesPaused)
				// The build waits for the two held rows; release them, then
				// let the build finish while the insert is still paused.
				time.Sleep(300 * time.Millisecond)
				close(g.release[0])
				close(g.release[1])
				waitIndex(t, s, tb2, "gh")
				close(g.release[2])
				for range writes {
					if err := <-errs; err != nil {
						t.Fatal(err)
					}
				}
				if prop == store.PropagationAsync {
					queueWait(t, s, tb)
				}
				requireActiveExact(t, s, "t", "gh", "writes paused "+where)
				tb3, ix := indexOf(t, s, "t", "gh")
				found := false
				for _, it := range scanWhole(t, s, tb3, ix) {
					found = found || it["pk"].S == "new"
				}
				if !found {
					t.Fatal("the paused insert is not in the index")
				}
			})
		}
	}
}

// TestBuildQueueRowsAfterBackfill: queue rows written after the CREATING
// commit, applied only after the backfill wrote a newer state, converge.
func TestBuildQueueRowsAfterBackfill(t *testing.T) {
	s := openStore(t, freshURL(t), pgstore.Options{Recovery: true})
	tb := newTable(t, s, "t", attr.TypeS, attr.TypeNone)
	loadItems(t, s, tb, 300)
	tb2, _ := addIndex(t, s, "t", gsiHash(store.PropagationAsync))
	// Queued (not applied) changes of items the backfill will then write.
	randomWrites(t, []store.Store{s}, tb2, 4, 150, 300)
	buildIndex(t, s, tb2, "gh")
	var pending int64
	if err := s.Pool().QueryRow(context.Background(), "SELECT count(*) FROM dynamopg.index_queue").Scan(&pending); err != nil {
		t.Fatal(err)
	}
	if pending == 0 {
		t.Fatal("no queue rows pending after the build")
	}
	// The backfill wrote the current states: the index is already exact.
	requireActiveExact(t, s, "t", "gh", "after the backfill, queue pending")
	// More changes, then every queue row applied late (twice for some).
	randomWrites(t, []store.Store{s}, tb2, 4, 100, 300)
	if _, err := s.Pool().Exec(context.Background(),
		"INSERT INTO dynamopg.index_queue (table_id, part, key) SELECT table_id, part, key FROM dynamopg.index_queue WHERE id % 3 = 0"); err != nil {
		t.Fatal(err)
	}
	drain(t, s)
	requireActiveExact(t, s, "t", "gh", "after the late queue rows")
	t.Logf("%d queue rows were pending after the backfill", pending)
}

// setSetting changes a row of dynamopg.settings.
func setSetting(t testing.TB, s *pgstore.Store, key string, value int) {
	t.Helper()
	if _, err := s.Pool().Exec(context.Background(),
		"INSERT INTO dynamopg.settings (key, value) VALUES ($1, to_jsonb($2::int)) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value); err != nil {
		t.Fatal(err)
	}
}

// waitRows waits until the build of index id has done at least n rows.
func waitRows(t testing.TB, s *pgstore.Store, id, n int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var rows int64
		_ = s.Pool().QueryRow(context.Background(), "SELECT rows_done FROM dynamopg.index_builds WHERE index_id = $1", id).Scan(&rows)
		if rows >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("build of index %d never reached %d rows", id, n)
}

// TestBuildCrashAndRecovery: a build whose connection dies is finished by
// the recovery worker (index_recovery_run wakes it); a build whose store
// closes mid-backfill (a process gone) is finished by the next store's
// recovery at Open. Writers on a third store run throughout.
func TestBuildCrashAndRecovery(t *testing.T) {
	url := freshURL(t)
	a, err := pgstore.Open(context.Background(), url, pgstore.Options{Migrate: true, Workers: backend.DefaultWorkers, SweepInterval: backend.DefaultSweepInterval, Recovery: true})
	if err != nil {
		t.Fatal(err)
	}
	w := openStore(t, url, pgstore.Options{Workers: backend.DefaultWorkers, SweepInterval: backend.DefaultSweepInterval})
	tb := newTable(t, a, "t", attr.TypeS, attr.TypeNone)
	loadItems(t, a, tb, 2000)
	setSetting(t, a, "build_page_size", 20)
	defer pgstore.SetBuildTestHooks(nil, nil, func() { time.Sleep(5 * time.Millisecond) })()
	tr := startTraffic(t, []*pgstore.Store{w}, tb, 4, 2000)
	tb2, _ := addIndex(t, a, "t", gsiHash(store.PropagationSync))
	_, ix := indexOf(t, a, "t", "gh")
	if err := a.IndexBuildStart(context.Background(), tb2, "gh"); err != nil {
		t.Fatal(err)
	}
	// 1. The build's connection is killed: transient, recovery finishes it.
	waitRows(t, a, ix.ID, 200)
	// By application name only (the build's connection, and the recovery
	// worker's, which reconnects): between statements the build's last
	// query may be its BEGIN or COMMIT, which no query-text filter matches.
	var killed int
	if err := a.Pool().QueryRow(context.Background(),
		"SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
		pgstore.BuildApplicationName).Scan(&killed); err != nil || killed < 1 {
		t.Fatalf("terminating the build's connection: %d terminated, %v", killed, err)
	}
	// The builder records the failure when it notices the dead connection:
	// wait for that (a loaded machine may take a while), without a fixed sleep.
	var lastErr *string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err := a.Pool().QueryRow(context.Background(), "SELECT last_error FROM dynamopg.index_builds WHERE index_id = $1", ix.ID).Scan(&lastErr); err != nil {
			t.Fatal(err)
		}
		if lastErr != nil || time.Now().After(deadline) {
			break
		}
	}
	if _, cur := indexOf(t, a, "t", "gh"); cur.Status != store.StatusCreating || lastErr == nil {
		t.Fatalf("after the lost connection: %+v, last_error %v", cur, lastErr)
	}
	t.Logf("after the lost connection: CREATING, last_error %q", *lastErr)
	var n int
	if err := a.Pool().QueryRow(context.Background(), "SELECT dynamopg.index_recovery_run()").Scan(&n); err != nil || n != 1 {
		t.Fatalf("index_recovery_run: %d, %v", n, err)
	}
	waitRows(t, a, ix.ID, 800)
	// 2. The process goes away mid-backfill: the next one finishes it.
	a.Close()
	if _, cur := indexOf(t, w, "t", "gh"); cur.Status != store.StatusCreating {
		t.Fatalf("after Close: %+v", cur)
	}
	b := openStore(t, url, pgstore.Options{Workers: backend.DefaultWorkers, Recovery: true})
	waitIndex(t, b, tb2, "gh")
	tr.end(t)
	requireActiveExact(t, b, "t", "gh", "after recovery")
	phase, rows, _, attempts := buildFigures(t, b, ix.ID)
	var pages int64
	if err := b.Pool().QueryRow(context.Background(), "SELECT pages FROM dynamopg.index_builds WHERE index_id = $1", ix.ID).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if phase != "active" || attempts != 3 {
		t.Fatalf("build record: phase %s, attempts %d, want active, 3", phase, attempts)
	}
	t.Logf("recovered build: %d attempts, %d pages, %d rows (resumed, not restarted)", attempts, pages, rows)
}

// TestBuildStatusAndRefusalInput: DescribeTable's view of a build
// (CREATING, Backfilling false, then true, then ACTIVE without it), a
// second CREATING index detectable from the catalog, and the DBA's view.
// No recovery worker (newStoreNoRecovery): the test sets its page hook
// after adding the index.
func TestBuildStatusAndRefusalInput(t *testing.T) {
	s := newStoreNoRecovery(t)
	tb := newTable(t, s, "t", attr.TypeS, attr.TypeNone)
	loadItems(t, s, tb, 100)
	setSetting(t, s, "build_page_size", 10)
	tb2, _ := addIndex(t, s, "t", gsiHash(store.PropagationSync))
	if _, ix := indexOf(t, s, "t", "gh"); ix.Status != store.StatusCreating || ix.Backfilling {
		t.Fatalf("after UpdateTable: %+v", ix)
	}
	// A second index while one is CREATING: the catalog shows it.
	if _, err := s.TableUpdate(context.Background(), "t", func(tb *store.Table) error {
		for _, o := range tb.Indexes {
			if o.Status == store.StatusCreating {
				return errOneOnline
			}
		}
		return nil
	}); !errors.Is(err, errOneOnline) {
		t.Fatalf("second index: %v", err)
	}
	paused, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	defer pgstore.SetBuildTestHooks(nil, nil, func() {
		once.Do(func() { close(paused); <-release })
	})()
	if err := s.IndexBuildStart(context.Background(), tb2, "gh"); err != nil {
		t.Fatal(err)
	}
	waitPaused(t, paused)
	if _, ix := indexOf(t, s, "t", "gh"); ix.Status != store.StatusCreating || !ix.Backfilling {
		t.Fatalf("during the backfill: %+v", ix)
	}
	var phase string
	if err := s.Pool().QueryRow(context.Background(),
		"SELECT phase FROM dynamopg.index_build_status WHERE table_name = 't' AND index_name = 'gh'").Scan(&phase); err != nil || phase != "backfill" {
		t.Fatalf("index_build_status: %q, %v", phase, err)
	}
	var apps int
	if err := s.Pool().QueryRow(context.Background(),
		"SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", pgstore.BuildApplicationName).Scan(&apps); err != nil || apps < 1 {
		t.Fatalf("%d dynamopg-build connections (%v), want the build's", apps, err)
	}
	close(release)
	waitIndex(t, s, tb2, "gh")
	requireActiveExact(t, s, "t", "gh", "after the build")
}

// TestBuildPermanentFailureAndCancel: an item that cannot be indexed removes
// the CREATING index (phase failed, the reason recorded, storage dropped);
// index_build_cancel removes a build in progress.
func TestBuildPermanentFailureAndCancel(t *testing.T) {
	s := newStore(t)
	tb := newTable(t, s, "t", attr.TypeS, attr.TypeNone)
	loadItems(t, s, tb, 50)
	// An item whose N key does not parse (written behind the store's back).
	if _, err := s.Pool().Exec(context.Background(), fmt.Sprintf(
		`INSERT INTO dynamopg_data.t_%d (hk, pk, item, size) VALUES (1, 'bad', '{"pk": {"S": "bad"}, "n": {"N": "x"}}', 10)`, tb.ID)); err != nil {
		t.Fatal(err)
	}
	bad := store.Index{Name: "gn", Global: true, Hash: store.KeyAttr{Name: "n", Type: attr.TypeN}, Projection: store.Projection{Type: "KEYS_ONLY"}}
	tb2, _ := addIndex(t, s, "t", bad)
	_, ix := indexOf(t, s, "t", "gn")
	buildIndex(t, s, tb2, "gn")
	cur, gone := indexOf(t, s, "t", "gn")
	if gone != nil || slices.ContainsFunc(cur.AttributeDefinitions, func(k store.KeyAttr) bool { return k.Name == "n" }) {
		t.Fatalf("after a permanent failure: %+v, definitions %v", gone, cur.AttributeDefinitions)
	}
	var phase, lastErr string
	var storage *string
	// The storage goes in the background, after the catalog barrier.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if err := s.Pool().QueryRow(context.Background(),
			"SELECT phase, last_error, to_regclass('dynamopg_data.i_' || index_id)::text FROM dynamopg.index_builds WHERE index_id = $1", ix.ID).Scan(&phase, &lastErr, &storage); err != nil {
			t.Fatal(err)
		}
		if storage == nil || time.Now().After(deadline) {
			break
		}
	}
	if phase != "failed" || lastErr == "" || storage != nil {
		t.Fatalf("failed build: phase %s, last_error %q, storage %v", phase, lastErr, storage)
	}
	t.Logf("permanent failure recorded: %s", lastErr)

	// Cancel by a DBA, mid-backfill.
	if _, err := s.Pool().Exec(context.Background(), "DELETE FROM dynamopg_data.t_"+fmt.Sprint(tb.ID)+" WHERE pk = 'bad'"); err != nil {
		t.Fatal(err)
	}
	setSetting(t, s, "build_page_size", 5)
	paused, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int64
	defer pgstore.SetBuildTestHooks(nil, nil, func() {
		if calls.Add(1) == 3 {
			close(paused)
			<-release
		}
	})()
	tb3, _ := addIndex(t, s, "t", gsiHash(store.PropagationSync))
	if err := s.IndexBuildStart(context.Background(), tb3, "gh"); err != nil {
		t.Fatal(err)
	}
	waitPaused(t, paused)
	var ok bool
	if err := s.Pool().QueryRow(context.Background(), "SELECT dynamopg.index_build_cancel('t', 'gh')").Scan(&ok); err != nil || !ok {
		t.Fatalf("index_build_cancel: %v, %v", ok, err)
	}
	close(release)
	waitIndex(t, s, tb3, "gh")
	if _, ix := indexOf(t, s, "t", "gh"); ix != nil {
		t.Fatalf("cancelled index still there: %+v", ix)
	}
	put(t, s, tb3, attr.Item{"pk": attr.Str("after"), "g": attr.Str("x")}) // writes go on
}

// newStoreNoRecovery is newStore without the build recovery worker, for a
// test that adds a CREATING index and then sets build hooks: such an index
// is due for recovery at once, and a recovery pass that ran in between would
// build it without the hooks.
func newStoreNoRecovery(t *testing.T) *pgstore.Store {
	t.Helper()
	opts := serveOptions()
	opts.Recovery = false
	return openStore(t, freshURL(t), opts)
}

// waitPaused waits for a build to reach its page hook, failing the test
// after a minute rather than hanging until the package's timeout.
func waitPaused(t *testing.T, paused <-chan struct{}) {
	t.Helper()
	select {
	case <-paused:
	case <-time.After(time.Minute):
		t.Fatal("the build never reached its page hook")
	}
}
