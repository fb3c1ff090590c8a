package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// exerciseProcesses checks what a store keeps in its database rather than
// in its process: what a restart finds (the catalog, the items, the queue,
// a build under way) and what a second store on the same database sees of
// the first one's changes (Backend.Open).
func exerciseProcesses(ctx context.Context, t *testing.T, b Backend) {
	// Reopening keeps the catalog and the items; IDs are never reused, also
	// for a table created again under a deleted one's name.
	t.Run("Reopen", func(t *testing.T) {
		t.Parallel()
		s := b.New(t)
		tbl := createTable(ctx, t, s, newTable("keep", key("pk", attr.TypeS), rkey("sk", attr.TypeN),
			store.Index{Name: "g", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"},
				Status: store.StatusActive}))
		it := attr.Item{"pk": attr.Str("a"), "sk": num(t, "1"), "g": attr.Str("x"), "v": attr.Str("kept")}
		put(ctx, t, s, tbl, it)
		s.Close()

		s2 := b.Open(t, s, true)
		got, err := s2.TableGet(ctx, "keep")
		requireNoError(t, err, "TableGet after reopening")
		requireTrue(t, got.ID == tbl.ID && got.Indexes[0].ID == tbl.Indexes[0].ID,
			"TableGet after reopening: IDs %d/%d, want %d/%d", got.ID, got.Indexes[0].ID, tbl.ID, tbl.Indexes[0].ID)
		item, err := s2.ItemGet(ctx, got, got.KeyOf(it))
		requireNoError(t, err, "ItemGet after reopening")
		requireItem(t, item, it, "ItemGet after reopening")
		rows, err := s2.ItemQuery(ctx, got, store.QueryInput{Index: &got.Indexes[0], Hash: attr.Str("x"), Forward: true})
		requireNoError(t, err, "ItemQuery of the index after reopening")
		requireItems(t, rows, []attr.Item{it}, "the index after reopening")

		_, err = s2.TableDelete(ctx, "keep")
		requireNoError(t, err, "TableDelete")
		again := createTable(ctx, t, s2, newTable("keep", key("pk", attr.TypeS), rkey("sk", attr.TypeN),
			store.Index{Name: "g", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"},
				Status: store.StatusActive}))
		requireTrue(t, again.ID != tbl.ID && again.Indexes[0].ID != tbl.Indexes[0].ID,
			"the table created again reuses IDs %d/%d", again.ID, again.Indexes[0].ID)
	})

	// A change one store makes reaches the other: a write through a
	// description from before an index was added is refused with
	// ErrStaleTable (writing nothing) or maintains the index; the other
	// store's TableGetCached answers the new description without being
	// told; a table deleted and created again is another table to it.
	t.Run("TableUpdate/SecondStore", func(t *testing.T) {
		t.Parallel()
		a := b.New(t)
		other := b.Open(t, a, true)
		createTable(ctx, t, a, newTable("shared", key("pk", attr.TypeS), nil))
		old, _, err := a.TableGetCached(ctx, "shared") // as the API reads it
		requireNoError(t, err, "TableGetCached")
		_, err = a.ItemPut(ctx, old, attr.Item{"pk": attr.Str("k0"), "g": attr.Str("x")})
		requireNoError(t, err, "ItemPut on the current description")

		cur, err := other.TableUpdate(ctx, "shared", func(t *store.Table) error {
			t.AttributeDefinitions = append(t.AttributeDefinitions, key("g", attr.TypeS))
			t.Indexes = append(t.Indexes, store.Index{Name: "gsi", Global: true, Hash: key("g", attr.TypeS),
				Projection: store.Projection{Type: "ALL"}, Status: store.StatusCreating})
			return nil
		})
		requireNoError(t, err, "TableUpdate by the second store")
		requireNoError(t, other.IndexBuildStart(ctx, cur, "gsi"), "IndexBuildStart")
		buildWait(ctx, t, other, cur, "gsi")
		cur = requireActive(ctx, t, other, "shared", "gsi")

		// Every write path of the first store, through its old description.
		k := func(name string) attr.Item { return attr.Item{"pk": attr.Str(name)} }
		nu := func(name string) attr.Item { return attr.Item{"pk": attr.Str(name), "g": attr.Str("x")} }
		writes := []struct {
			name  string
			write func() error
		}{
			{"ItemPut", func() error { _, err := a.ItemPut(ctx, old, nu("put")); return err }},
			{"ItemWrite", func() error {
				_, err := a.ItemWrite(ctx, old, k("write"), func(attr.Item) (attr.Item, error) { return nu("write"), nil })
				return err
			}},
			{"ItemWriteMany", func() error {
				_, err := a.ItemWriteMany(ctx, []store.WriteOp{{Table: old, Key: k("many"), Put: nu("many")}})
				return err
			}},
			{"ItemTransact", func() error {
				return a.ItemTransact(ctx, []store.TxTarget{{Table: old, Key: k("tx")}},
					func([]attr.Item) ([]store.TxWrite, error) { return []store.TxWrite{{Put: nu("tx")}}, nil })
			}},
			{"ItemRemove", func() error { _, err := a.ItemRemove(ctx, old, k("k0")); return err }},
		}
		m := newModel(cur)
		m.items[show(k("k0"))] = attr.Item{"pk": attr.Str("k0"), "g": attr.Str("x")}
		for _, w := range writes {
			err := w.write()
			if b.ChecksVersions {
				requireErrorIs(t, err, store.ErrStaleTable, w.name+" through a description from before the index")
			}
			if errors.Is(err, store.ErrStaleTable) {
				continue // nothing written: the model is unchanged
			}
			requireNoError(t, err, w.name+" through a description from before the index")
			if w.name == "ItemRemove" {
				delete(m.items, show(k("k0")))
			} else {
				it := nu(map[string]string{"ItemPut": "put", "ItemWrite": "write", "ItemWriteMany": "many", "ItemTransact": "tx"}[w.name])
				m.items[show(k(it["pk"].S))] = it
			}
		}
		requireModel(ctx, t, a, m, "after the writes through the old description")
		requireIndexExact(ctx, t, a, cur, cur.Index("gsi"), "the index the first store's old description lacks")

		// The first store's TableGetCached catches up by itself.
		fresh := cachedUntil(ctx, t, a, "shared", func(d *store.Table) bool { return d.Index("gsi") != nil })
		_, err = a.ItemPut(ctx, fresh, nu("fresh"))
		requireNoError(t, err, "ItemPut on the caught-up description")

		// Deleted and created again by the other store: another table.
		_, err = other.TableDelete(ctx, "shared")
		requireNoError(t, err, "TableDelete by the second store")
		createTable(ctx, t, other, newTable("shared", key("pk", attr.TypeN), nil))
		_, err = a.ItemPut(ctx, fresh, nu("late"))
		requireTrue(t, !b.ChecksVersions || fresh.Version != 0, "a description without its catalog version")
		requireTrue(t, errors.Is(err, store.ErrTableNotFound) || errors.Is(err, store.ErrStaleTable),
			"ItemPut on the deleted table's description: %v, want ErrTableNotFound or ErrStaleTable", err)
		re := cachedUntil(ctx, t, a, "shared", func(d *store.Table) bool { return d.ID != fresh.ID })
		requireEqual(t, re.Hash.Type, attr.TypeN, "the table created again, as the first store sees it")
	})

	// Two stores with workers drain one queue under writes through both.
	t.Run("QueueWait/TwoStores", func(t *testing.T) {
		t.Parallel()
		s1 := b.New(t)
		s2 := b.Open(t, s1, true)
		tbl := createTable(ctx, t, s1, newTable("two", key("pk", attr.TypeS), rkey("sk", attr.TypeN),
			asyncIndex("g", key("g", attr.TypeS), rkey("gr", attr.TypeN),
				store.Projection{Type: "INCLUDE", NonKeyAttributes: []string{"v"}})))
		randomWrites(ctx, t, []store.Store{s1, s2}, tbl, 4, 150, 50)
		queueWait(ctx, t, s2, tbl)
		requireIndexExact(ctx, t, s1, tbl, &tbl.Indexes[0], "after QueueWait on the other store")
	})

	// Rows left queued at Close are applied by the next store with workers;
	// rows naming an index or a table dropped meanwhile are consumed.
	t.Run("QueueWait/AfterReopen", func(t *testing.T) {
		t.Parallel()
		first := b.New(t)
		s := b.Open(t, first, false)
		first.Close()
		mk := func(name string) *store.Table {
			return createTable(ctx, t, s, newTable(name, key("pk", attr.TypeS), rkey("sk", attr.TypeN),
				asyncIndex("g", key("g", attr.TypeS), nil, store.Projection{Type: "ALL"})))
		}
		tbl, gone, dropped := mk("q"), mk("gone"), mk("dropped")
		for _, x := range []*store.Table{tbl, gone, dropped} {
			for i := range 150 {
				put(ctx, t, s, x, attr.Item{"pk": attr.Str("p"), "sk": attr.Num(itoa(i)), "g": attr.Str("x")})
			}
		}
		n, err := s.QueueDepth(ctx)
		requireNoError(t, err, "QueueDepth")
		requireEqual(t, n, int64(450), "rows queued by a store without workers")
		_, err = s.TableUpdate(ctx, "gone", func(t *store.Table) error { t.Indexes = nil; return nil })
		requireNoError(t, err, "TableUpdate dropping the index")
		_, err = s.TableDelete(ctx, "dropped")
		requireNoError(t, err, "TableDelete")
		s.Close()

		s2 := b.Open(t, s, true)
		queueWait(ctx, t, s2, tbl)
		fresh, err := s2.TableGet(ctx, "gone")
		requireNoError(t, err, "TableGet")
		queueWait(ctx, t, s2, fresh)
		queueWait(ctx, t, s2, dropped)
		requireIndexExact(ctx, t, s2, tbl, &tbl.Indexes[0], "after reopening")
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			n, err = s2.QueueDepth(ctx)
			requireNoError(t, err, "QueueDepth")
			if n == 0 {
				break
			}
			requireTrue(t, time.Now().Before(deadline), "QueueDepth after reopening still %d", n)
		}
	})

	// Two stores both start the build of one index while writers use
	// both: the built index equals the table and no write fails.
	for _, prop := range []string{store.PropagationSync, store.PropagationAsync} {
		t.Run("IndexBuild/TwoStores/"+prop, func(t *testing.T) {
			t.Parallel()
			a := b.New(t)
			o := b.Open(t, a, true)
			tbl := buildTable(ctx, t, a, "two_build")
			trs := []*traffic{startTraffic(ctx, a, tbl), startTraffic(ctx, o, tbl)}
			defer func() {
				for _, tr := range trs {
					select {
					case <-tr.stop:
					default:
						close(tr.stop)
						tr.wg.Wait()
					}
				}
			}()
			time.Sleep(50 * time.Millisecond)
			ix := store.Index{Name: "by-g", Hash: key("g", attr.TypeS), Range: rkey("gr", attr.TypeN),
				Projection: store.Projection{Type: "ALL"}, Propagation: prop}
			out := addIndex(ctx, t, o, tbl.Name, ix)
			for _, s := range []store.Store{a, o, a, o} {
				requireNoError(t, s.IndexBuildStart(ctx, out, ix.Name), "IndexBuildStart")
			}
			buildWait(ctx, t, a, out, ix.Name)
			buildWait(ctx, t, o, out, ix.Name)
			time.Sleep(100 * time.Millisecond) // writes to the ACTIVE index through both
			for _, tr := range trs {
				tr.end(t)
			}
			final := requireActive(ctx, t, a, tbl.Name, ix.Name)
			if final.Index(ix.Name).Async() {
				queueWait(ctx, t, a, final)
				queueWait(ctx, t, o, final)
			}
			requireIndexExact(ctx, t, a, final, final.Index(ix.Name), "index built by two stores under writes")
		})
	}

	// A CREATING index left by a crash (added, never started) and one whose
	// build a Close interrupted are finished by the next store to open.
	for _, interrupted := range []bool{false, true} {
		name := "IndexBuild/ResumesAtOpen"
		if interrupted {
			name += "/Interrupted"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := b.New(t)
			tbl := buildTable(ctx, t, s, "resume")
			ix := store.Index{Name: "by-g", Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"}}
			out := addIndex(ctx, t, s, tbl.Name, ix)
			if interrupted {
				requireNoError(t, s.IndexBuildStart(ctx, out, ix.Name), "IndexBuildStart")
				for { // until the backfill runs
					got, err := s.TableGet(ctx, tbl.Name)
					requireNoError(t, err, "TableGet")
					gix := got.Index(ix.Name)
					if gix.Backfilling || gix.Status == store.StatusActive {
						break
					}
					time.Sleep(time.Millisecond)
				}
			}
			s.Close()
			s2 := b.Open(t, s, true)
			cur, err := s2.TableGet(ctx, tbl.Name)
			requireNoError(t, err, "TableGet after reopening")
			if gix := cur.Index(ix.Name); gix.Status == store.StatusActive {
				t.Logf("the build ended before Close")
			}
			buildWait(ctx, t, s2, cur, ix.Name)
			final := requireActive(ctx, t, s2, tbl.Name, ix.Name)
			requireIndexExact(ctx, t, s2, final, final.Index(ix.Name), "the index finished after reopening")
		})
	}
}

// cachedUntil polls TableGetCached (as the API reads descriptions, never
// forgetting one) until its answer satisfies ok, failing after 20 s.
func cachedUntil(ctx context.Context, t testing.TB, s store.Store, name string, ok func(*store.Table) bool) *store.Table {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		d, _, err := s.TableGetCached(ctx, name)
		requireNoError(t, err, "TableGetCached "+name)
		if ok(d) {
			return d
		}
		requireTrue(t, time.Now().Before(deadline), "TableGetCached %s never caught up (version %d)", name, d.Version)
		time.Sleep(5 * time.Millisecond)
	}
}
