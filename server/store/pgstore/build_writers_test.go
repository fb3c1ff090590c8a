package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
)

// TestBuildEndsWhileWritersAddRows builds a GSI on a table of 300 items
// while two writers add new indexed items, one with keys after every
// existing key, one with keys among them, and every page of the backfill
// waits until the writers have added twice a page. The backfill writes the
// rows of its snapshot only (the writers maintain the index for theirs):
// it must end while the writers run, having written no more rows than the
// table held at its first page, and the index must equal the table. A
// backfill that walked the rows writers add ahead of it would chase the
// appended keys for ever (40 new rows a page of 20).
func TestBuildEndsWhileWritersAddRows(t *testing.T) {
	s := newStore(t)
	tb := newTable(t, s, "t", attr.TypeS, attr.TypeNone)
	const initial, pageSize = 300, 20
	loadItems(t, s, tb, initial)
	setSetting(t, s, "build_page_size", pageSize)

	var added atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w, key := range []func(int) string{
		func(i int) string { return fmt.Sprintf("z%08d", i) },                      // after every key
		func(i int) string { return fmt.Sprintf("k%dw%d", rand.IntN(initial), i) }, // among them
	} {
		wg.Go(func() {
			cur := tb
			for i := 0; !stop.Load(); i++ {
				it := attr.Item{"pk": attr.Str(key(i)), "g": attr.Str(fmt.Sprintf("g%d", i%7)), "v": attr.Num(fmt.Sprint(w))}
				var err error
				cur, err = onFresh(s, cur, func(cur *store.Table) error {
					_, err := s.ItemWrite(context.Background(), cur, cur.KeyOf(it), func(attr.Item) (attr.Item, error) { return it, nil })
					return err
				})
				if err != nil {
					t.Errorf("writer %d: %v", w, err)
					return
				}
				added.Add(1)
			}
		})
	}
	stopWriters := func() { stop.Store(true); wg.Wait() }
	defer stopWriters()

	// Each page waits until the writers added 2 pages of rows (at most 10
	// s, so that a stalled writer shows as a wrong count, not a hang).
	var atFirstPage atomic.Int64
	restore := pgstore.SetBuildTestHooks(nil, nil, func() {
		if atFirstPage.Load() == 0 {
			var n int64
			if err := s.Pool().QueryRow(context.Background(),
				fmt.Sprintf("SELECT count(*) FROM dynamopg_data.t_%d", tb.ID)).Scan(&n); err != nil {
				t.Error(err)
			}
			atFirstPage.Store(n)
		}
		target := added.Load() + 2*pageSize
		for deadline := time.Now().Add(10 * time.Second); added.Load() < target && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	})
	defer restore()

	for added.Load() < 50 { // writers running before UpdateTable
		time.Sleep(time.Millisecond)
	}
	tb2, _ := addIndex(t, s, "t", gsiHash(store.PropagationSync))
	buildIndex(t, s, tb2, "gh") // 60 s at most
	during := added.Load()
	restore()
	stopWriters()

	_, ix := indexOf(t, s, "t", "gh")
	phase, rows, _, _ := buildFigures(t, s, ix.ID)
	t.Logf("backfill: %d rows, %d at its first page; writers added %d rows by its end", rows, atFirstPage.Load(), during)
	if phase != "active" {
		t.Fatalf("build phase %q, want active", phase)
	}
	if rows < initial || rows > atFirstPage.Load() {
		t.Fatalf("backfill wrote %d rows, want between the %d loaded and the %d there at its first page", rows, initial, atFirstPage.Load())
	}
	if min := int64(initial / pageSize * 2 * pageSize); during < min {
		t.Fatalf("writers added %d rows during the build, want at least %d (the pages wait for them)", during, min)
	}
	requireActiveExact(t, s, "t", "gh", "after the build")
}
