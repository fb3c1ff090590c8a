package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/maintain"
)

// The online index build (store.IndexBuilds). The API adds a global index through TableUpdate with Status CREATING
// and ID 0, then calls IndexBuildStart; these tests do the same, with
// writers running throughout, and require the index to equal the table
// exactly afterwards.

// ExerciseBuild runs the online index build tests alone (Exercise runs them
// too), so that a store can run them again under other settings, such as a
// small build page.
func ExerciseBuild(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Helper()
	exerciseBuild(ctx, t, newStore)
}

// buildItems is how many items a build test loads before adding the index.
const buildItems = 1000

// buildWriters is how many goroutines write during a build.
const buildWriters = 4

// buildTable creates the table of a build test and loads buildItems items:
// most with the attributes the new indexes use (g S, gr N), some without,
// a few with g of the wrong type (written before the index existed; such
// items are not indexed).
func buildTable(ctx context.Context, t testing.TB, s store.Store, name string) *store.Table {
	t.Helper()
	tbl := createTable(ctx, t, s, newTable(name, key("pk", attr.TypeS), rkey("sk", attr.TypeN)))
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range buildItems {
		it := buildItem(rnd, i, 0)
		if i%50 == 7 {
			it["g"] = attr.Num(itoa(i)) // wrong type for the index: not indexed
		}
		put(ctx, t, s, tbl, it)
	}
	return tbl
}

// buildKey is the key of item i (i may exceed buildItems: writers create
// items too).
func buildKey(i int) attr.Item {
	return attr.Item{"pk": attr.Str(fmt.Sprintf("p%02d", i%37)), "sk": attr.Num(itoa(i))}
}

// buildItem is a random state of item i, version v.
func buildItem(rnd *rand.Rand, i, v int) attr.Item {
	it := buildKey(i)
	it["v"] = attr.Num(itoa(v))
	it["pad"] = attr.Str(fmt.Sprintf("%0*d", rnd.IntN(40), 0))
	if rnd.IntN(10) < 8 {
		it["g"] = attr.Str("g" + itoa(rnd.IntN(16)))
	}
	if rnd.IntN(10) < 8 {
		it["gr"] = attr.Num(itoa(rnd.IntN(100)))
	}
	return it
}

// buildWriter writes random changes until stop is closed: puts, updates of
// the index key, removals of it, deletes, and two-item transactions. A
// write refused because the table changed under it (store.ErrStaleTable:
// the build's catalog changes) reruns on a fresh description, as the API
// reruns it. It counts its writes in n and returns the first error.
func buildWriter(ctx context.Context, s store.Store, tbl *store.Table, w int, stop <-chan struct{}, n *atomic.Int64) error {
	rnd := rand.New(rand.NewPCG(uint64(w)+10, 0x51ed))
	const keys = buildItems + buildItems/5 // some items are created by the writers
	for v := 1; ; v++ {
		select {
		case <-stop:
			return nil
		default:
		}
		i := rnd.IntN(keys)
		k := buildKey(i)
		var write func(tbl *store.Table) error
		switch op := rnd.IntN(10); {
		case op < 3: // put
			it := buildItem(rnd, i, v)
			write = func(tbl *store.Table) error {
				_, err := s.ItemWrite(ctx, tbl, k, func(attr.Item) (attr.Item, error) { return it.Clone(), nil })
				return err
			}
		case op < 5: // update the index key (creating the item when absent)
			g, gr := attr.Str("g"+itoa(rnd.IntN(16))), attr.Num(itoa(rnd.IntN(100)))
			write = func(tbl *store.Table) error {
				_, err := s.ItemWrite(ctx, tbl, k, func(old attr.Item) (attr.Item, error) {
					neu := old.Clone()
					if neu == nil {
						neu = buildKey(i)
					}
					neu["g"], neu["gr"], neu["v"] = g, gr, attr.Num(itoa(v))
					return neu, nil
				})
				return err
			}
		case op < 7: // REMOVE of the index key
			drop := "g"
			if rnd.IntN(2) == 0 {
				drop = "gr"
			}
			write = func(tbl *store.Table) error {
				_, err := s.ItemWrite(ctx, tbl, k, func(old attr.Item) (attr.Item, error) {
					if old == nil {
						return nil, nil
					}
					neu := old.Clone()
					delete(neu, drop)
					neu["v"] = attr.Num(itoa(v))
					return neu, nil
				})
				return err
			}
		case op < 8: // delete
			write = func(tbl *store.Table) error {
				_, err := s.ItemWrite(ctx, tbl, k, func(attr.Item) (attr.Item, error) { return nil, nil })
				return err
			}
		default: // a transaction over two items, or a put without one
			j := (i + 1 + rnd.IntN(keys-1)) % keys
			a, b := buildItem(rnd, i, v), buildItem(rnd, j, v)
			delB := rnd.IntN(3) == 0
			write = func(tbl *store.Table) error {
				return s.ItemTransact(ctx,
					[]store.TxTarget{{Table: tbl, Key: k}, {Table: tbl, Key: buildKey(j)}},
					func([]attr.Item) ([]store.TxWrite, error) {
						if delB {
							return []store.TxWrite{{Put: a.Clone()}, {Delete: true}}, nil
						}
						return []store.TxWrite{{Put: a.Clone()}, {Put: b.Clone()}}, nil
					})
			}
		}
		var err error
		if tbl, err = rereadOnStale(ctx, s, tbl, write); err != nil {
			return fmt.Errorf("writer %d, write %d: %w", w, v, err)
		}
		n.Add(1)
	}
}

// traffic is the writers of a build test.
type traffic struct {
	stop   chan struct{}
	wg     sync.WaitGroup
	errs   chan error
	writes atomic.Int64
}

func startTraffic(ctx context.Context, s store.Store, tbl *store.Table) *traffic {
	tr := &traffic{stop: make(chan struct{}), errs: make(chan error, buildWriters)}
	for w := range buildWriters {
		tr.wg.Go(func() {
			if err := buildWriter(ctx, s, tbl, w, tr.stop, &tr.writes); err != nil {
				tr.errs <- err
			}
		})
	}
	return tr
}

// end stops the writers and fails the test on any write error.
func (tr *traffic) end(t testing.TB) {
	t.Helper()
	close(tr.stop)
	tr.wg.Wait()
	close(tr.errs)
	for err := range tr.errs {
		t.Fatalf("write during the build: %v", err)
	}
	requireTrue(t, tr.writes.Load() > 0, "the writers wrote nothing")
}

// addIndex adds ix to the table as CREATING (ID 0) through TableUpdate,
// merging its key attributes into the attribute definitions, as the API
// does, and returns the stored description.
func addIndex(ctx context.Context, t testing.TB, s store.Store, name string, ix store.Index) *store.Table {
	t.Helper()
	ix.Global, ix.Status, ix.ID, ix.Backfilling = true, store.StatusCreating, 0, false
	out, err := s.TableUpdate(ctx, name, func(t *store.Table) error {
		for _, k := range ix.KeyAttrs() {
			if !hasDefinition(t, k.Name) {
				t.AttributeDefinitions = append(t.AttributeDefinitions, k)
			}
		}
		t.Indexes = append(t.Indexes, ix)
		return nil
	})
	requireNoError(t, err, "TableUpdate adding index "+ix.Name)
	got := out.Index(ix.Name)
	requireTrue(t, got != nil && got.ID != 0 && got.Status == store.StatusCreating,
		"TableUpdate: added index %+v, want CREATING with an ID", got)
	return out
}

func hasDefinition(t *store.Table, name string) bool {
	for _, d := range t.AttributeDefinitions {
		if d.Name == name {
			return true
		}
	}
	return false
}

// removeIndex removes an index through TableUpdate.
func removeIndex(ctx context.Context, t testing.TB, s store.Store, name, index string) *store.Table {
	t.Helper()
	out, err := s.TableUpdate(ctx, name, func(t *store.Table) error {
		kept := t.Indexes[:0:0]
		for _, ix := range t.Indexes {
			if ix.Name != index {
				kept = append(kept, ix)
			}
		}
		t.Indexes = kept
		return nil
	})
	requireNoError(t, err, "TableUpdate removing index "+index)
	requireTrue(t, out.Index(index) == nil, "TableUpdate: index %s still there", index)
	return out
}

// buildWait waits for a build with a deadline, failing the test on error.
func buildWait(ctx context.Context, t testing.TB, s store.Store, tbl *store.Table, index string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	requireNoError(t, maintain.IndexBuildWait(ctx, s, tbl, index), "IndexBuildWait "+index)
}

// statusWatch polls TableGet while a build runs and records what it saw of
// one index.
type statusWatch struct {
	stop                chan struct{}
	done                chan struct{}
	polls               int
	creating, backfill  int // CREATING without Backfilling, with it
	active, gone, wrong int
	firstWrong          string
}

func watchStatus(ctx context.Context, s store.Store, table, index string) *statusWatch {
	w := &statusWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			select {
			case <-w.stop:
				return
			default:
			}
			tbl, err := s.TableGet(ctx, table)
			w.polls++
			var ix *store.Index
			if err == nil {
				ix = tbl.Index(index)
			}
			switch {
			case err != nil:
				w.wrong++
				w.firstWrong = err.Error()
			case ix == nil:
				w.gone++
			case ix.Status == store.StatusCreating && ix.Backfilling:
				w.backfill++
			case ix.Status == store.StatusCreating:
				w.creating++
			case ix.Status == store.StatusActive && !ix.Backfilling:
				w.active++
			default:
				w.wrong++
				w.firstWrong = fmt.Sprintf("%+v", *ix)
			}
			time.Sleep(200 * time.Microsecond)
		}
	}()
	return w
}

func (w *statusWatch) end() { close(w.stop); <-w.done }

// requireActive checks that TableGet shows the index ACTIVE without Backfilling.
func requireActive(ctx context.Context, t testing.TB, s store.Store, table, index string) *store.Table {
	t.Helper()
	got, err := s.TableGet(ctx, table)
	requireNoError(t, err, "TableGet after the build")
	ix := got.Index(index)
	requireTrue(t, ix != nil && ix.Status == store.StatusActive && !ix.Backfilling,
		"index %s after IndexBuildWait: %+v, want ACTIVE without Backfilling", index, ix)
	return got
}

func exerciseBuild(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	shapes := []struct {
		name string
		ix   store.Index
	}{
		{"Hash", store.Index{Name: "by-g", Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"}}},
		{"HashRange", store.Index{Name: "by-g-gr", Hash: key("g", attr.TypeS), Range: rkey("gr", attr.TypeN),
			Projection: store.Projection{Type: "INCLUDE", NonKeyAttributes: []string{"v"}}}},
		// A multi-attribute key of 2 + 2 attributes, which the writers
		// change (g, gr) and keep (pk, sk).
		{"MultiKey", store.Index{Name: "by-g-pk-gr-sk", Hash: key("g", attr.TypeS), MoreHash: []store.KeyAttr{key("pk", attr.TypeS)},
			Range: rkey("gr", attr.TypeN), MoreRange: []store.KeyAttr{key("sk", attr.TypeN)},
			Projection: store.Projection{Type: "KEYS_ONLY"}}},
	}
	for _, prop := range []string{store.PropagationSync, store.PropagationAsync} {
		for _, shape := range shapes {
			// 1,000 items, 4 writers throughout: the built index equals the
			// table exactly, and DescribeTable's view moves from CREATING
			// (Backfilling false, then true) to ACTIVE.
			t.Run("IndexBuild/UnderWrites/"+prop+"/"+shape.name, func(t *testing.T) {
				t.Parallel()
				s := newStore(t)
				name := "build_" + prop + "_" + shape.name
				tbl := buildTable(ctx, t, s, name)
				tr := startTraffic(ctx, s, tbl)
				defer func() {
					select {
					case <-tr.stop:
					default:
						close(tr.stop)
						tr.wg.Wait()
					}
				}()
				time.Sleep(50 * time.Millisecond)

				ix := shape.ix
				ix.Propagation = prop
				start := time.Now()
				out := addIndex(ctx, t, s, name, ix)
				updateTook := time.Since(start)
				got, err := s.TableGet(ctx, name)
				requireNoError(t, err, "TableGet after adding the index")
				gix := got.Index(ix.Name)
				requireTrue(t, gix != nil && gix.Status == store.StatusCreating && !gix.Backfilling,
					"index before IndexBuildStart: %+v, want CREATING, Backfilling false", gix)

				watch := watchStatus(ctx, s, name, ix.Name)
				start = time.Now()
				requireNoError(t, s.IndexBuildStart(ctx, out, ix.Name), "IndexBuildStart")
				buildWait(ctx, t, s, out, ix.Name)
				buildTook := time.Since(start)
				watch.end()
				final := requireActive(ctx, t, s, name, ix.Name)
				requireTrue(t, watch.wrong == 0, "TableGet during the build: %d unexpected answers, first %s",
					watch.wrong, watch.firstWrong)
				// A build may end between two answers of TableGet on a store
				// that serializes them with the writes (SQLite in memory);
				// one that answered often enough must have shown Backfilling.
				requireTrue(t, watch.backfill > 0 || watch.polls < 20,
					"TableGet never showed the index CREATING with Backfilling (%d polls: %d CREATING, %d ACTIVE)",
					watch.polls, watch.creating, watch.active)
				requireTrue(t, watch.gone == 0, "TableGet lost the index during its build")

				time.Sleep(100 * time.Millisecond) // writes to the ACTIVE index
				tr.end(t)
				if final.Index(ix.Name).Async() {
					queueWait(ctx, t, s, final)
				}
				requireIndexExact(ctx, t, s, final, final.Index(ix.Name), "index built under writes")
				t.Logf("TableUpdate %v, build %v, %d writes; TableGet during the build: %d CREATING, %d Backfilling, %d ACTIVE",
					updateTook, buildTook, tr.writes.Load(), watch.creating, watch.backfill, watch.active)
			})
		}
	}

	// Removing the CREATING index while it backfills ends the build: the
	// index is gone, IndexBuildWait returns nil, its storage is dropped, the
	// writes go on without error, and the same index can be added and built
	// again.
	t.Run("IndexBuild/DeleteWhileBuilding", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		const name = "build_delete"
		tbl := buildTable(ctx, t, s, name)
		tr := startTraffic(ctx, s, tbl)
		defer func() {
			select {
			case <-tr.stop:
			default:
				close(tr.stop)
				tr.wg.Wait()
			}
		}()
		ix := store.Index{Name: "by-g", Hash: key("g", attr.TypeS), Range: rkey("gr", attr.TypeN),
			Projection: store.Projection{Type: "KEYS_ONLY"}}
		out := addIndex(ctx, t, s, name, ix)
		stale := out.Index(ix.Name)
		requireNoError(t, s.IndexBuildStart(ctx, out, ix.Name), "IndexBuildStart")
		// Wait until the backfill runs (or, on a fast store, has ended).
		midBuild := false
		deadline := time.Now().Add(10 * time.Second)
		for {
			got, err := s.TableGet(ctx, name)
			requireNoError(t, err, "TableGet")
			gix := got.Index(ix.Name)
			requireTrue(t, gix != nil, "index vanished")
			if gix.Status == store.StatusCreating && gix.Backfilling {
				midBuild = true
				break
			}
			if gix.Status != store.StatusCreating {
				break
			}
			requireTrue(t, time.Now().Before(deadline), "the build never set Backfilling")
			time.Sleep(100 * time.Microsecond)
		}
		removeIndex(ctx, t, s, name, ix.Name)
		buildWait(ctx, t, s, out, ix.Name)
		got, err := s.TableGet(ctx, name)
		requireNoError(t, err, "TableGet after the removal")
		requireTrue(t, got.Index(ix.Name) == nil, "index still in the catalog: %+v", got.Index(ix.Name))
		// Its storage is dropped (a store may drop it a little later).
		for dropBy := time.Now().Add(10 * time.Second); ; {
			_, err = s.ItemScan(ctx, out, store.ScanInput{Index: stale, TotalSegments: 1})
			if errors.Is(err, store.ErrTableNotFound) {
				break
			}
			requireTrue(t, time.Now().Before(dropBy),
				"ItemScan of the removed index: %v, want ErrTableNotFound (storage dropped)", err)
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond) // writes after the removal

		// The same index again, built to the end.
		out = addIndex(ctx, t, s, name, ix)
		requireNoError(t, s.IndexBuildStart(ctx, out, ix.Name), "IndexBuildStart again")
		buildWait(ctx, t, s, out, ix.Name)
		tr.end(t)
		final := requireActive(ctx, t, s, name, ix.Name)
		requireIndexExact(ctx, t, s, final, final.Index(ix.Name), "index built after a removed build")
		if !midBuild {
			t.Logf("the first build ended before the test saw Backfilling; the removal hit an ACTIVE index")
		}
	})

	// Without writes: an index added CREATING is empty until its build,
	// which fills it from the items already there (more than one page);
	// once the index is removed again, a query of it through a description
	// that still lists it fails with ErrTableNotFound.
	t.Run("IndexBuild/Backfill", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("backfill", key("pk", attr.TypeS), rkey("sk", attr.TypeN)))
		const n = 1100
		for i := range n {
			it := attr.Item{"pk": attr.Str("p"), "sk": attr.Num(itoa(i))}
			if i%2 == 0 {
				it["g"] = attr.Str("x")
			}
			put(ctx, t, s, tbl, it)
		}
		ix := store.Index{Name: "g", Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "KEYS_ONLY"}}
		out := addIndex(ctx, t, s, tbl.Name, ix)
		in := store.QueryInput{Index: out.Index("g"), Hash: attr.Str("x"), Forward: true}
		rows, err := s.ItemQuery(ctx, out, in)
		requireNoError(t, err, "ItemQuery of the CREATING index")
		requireEqual(t, len(rows), 0, "rows of the CREATING index before its build")
		requireNoError(t, s.IndexBuildStart(ctx, out, "g"), "IndexBuildStart")
		buildWait(ctx, t, s, out, "g")
		out = requireActive(ctx, t, s, tbl.Name, "g")
		in.Index = out.Index("g")
		rows, err = s.ItemQuery(ctx, out, in)
		requireNoError(t, err, "ItemQuery of the built index")
		requireEqual(t, len(rows), n/2, "rows of the built index")

		removeIndex(ctx, t, s, tbl.Name, "g")
		_, err = s.ItemQuery(ctx, out, in)
		requireErrorIs(t, err, store.ErrTableNotFound, "ItemQuery of a removed index")
	})

	// IndexBuildStart of an index that is already ACTIVE, and IndexBuildWait
	// of an index that does not exist, return at once without error.
	t.Run("IndexBuild/NothingToDo", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("build_none", key("pk", attr.TypeS), nil,
			store.Index{Name: "g", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"},
				Status: store.StatusActive}))
		requireNoError(t, s.IndexBuildStart(ctx, tbl, "g"), "IndexBuildStart of an ACTIVE index")
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		requireNoError(t, maintain.IndexBuildWait(ctx, s, tbl, "g"), "IndexBuildWait of an ACTIVE index")
		requireNoError(t, maintain.IndexBuildWait(ctx, s, tbl, "absent"), "IndexBuildWait of no index")
		requireActive(ctx, t, s, "build_none", "g")
	})
}
