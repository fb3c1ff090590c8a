package pgstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
)

// TestBuildQuietPageFallbacks drives each way a page leaves its quiet path
// (index_build_page) and checks the index is exact afterwards:
//   - a row a writer holds in the page's range: the range lock's NOWAIT
//     fails, the page goes key by key and skips the row, and
//     index_build_item waits for it (the hold lasts holdFor, so the build
//     cannot end sooner);
//   - rows a writer added to a page's range after the snapshot, more than
//     the page's keys, none of them indexable: the range holds more rows
//     than keys;
//   - an index row a sync writer wrote in a page's range: the probe finds it.
//
// Pages are 50 keys, so each case falls in a page of its own.
func TestBuildQuietPageFallbacks(t *testing.T) {
	const holdFor = 700 * time.Millisecond
	s := newStoreNoRecovery(t)
	setSetting(t, s, "build_page_size", 50)
	tb := newTable(t, s, "t", attr.TypeS, attr.TypeNone)
	for i := range 300 {
		put(t, s, tb, attr.Item{"pk": attr.Str(fmt.Sprintf("k%03d", i)), "g": attr.Str(fmt.Sprintf("g%d", i%7))})
	}
	tb2, _ := addIndex(t, s, "t", gsiHash(store.PropagationSync))
	ctx := context.Background()
	data := pgx.Identifier{"dynamopg_data", fmt.Sprintf("t_%d", tb2.ID)}.Sanitize()

	// The holder: a transaction of its own that locks k120's row as a
	// writer does, until holdFor after the first page.
	holder, err := pgx.Connect(ctx, s.Pool().Config().ConnConfig.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	hold, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hold.Exec(ctx, "SELECT 1 FROM "+data+" WHERE pk = 'k120' FOR NO KEY UPDATE"); err != nil {
		t.Fatal(err)
	}
	var released sync.WaitGroup
	var releasedAt time.Time
	var once sync.Once
	restore := pgstore.SetBuildTestHooks(nil, nil, func() {
		once.Do(func() {
			// After the snapshot, before the first page: 60 items
			// without g (not indexable) whose keys sort inside the page
			// of k200…k249, and a new g for k275 (its index row, in the
			// page of k250…k299, written by the writer).
			// (The hook runs on the builder's goroutine: errors, not
			// t.Fatal.)
			write := func(it attr.Item) {
				if _, err := onFresh(s, tb2, func(tb *store.Table) error {
					_, err := s.ItemWrite(ctx, tb, tb.KeyOf(it), func(attr.Item) (attr.Item, error) { return it, nil })
					return err
				}); err != nil {
					t.Errorf("write %v: %v", it["pk"], err)
				}
			}
			for i := range 60 {
				write(attr.Item{"pk": attr.Str(fmt.Sprintf("k210x%02d", i)), "v": attr.Num("1")})
			}
			write(attr.Item{"pk": attr.Str("k275"), "g": attr.Str("moved")})
			released.Go(func() {
				time.Sleep(holdFor)
				releasedAt = time.Now()
				if err := hold.Commit(ctx); err != nil {
					t.Error(err)
				}
			})
		})
	})
	defer restore()
	start := time.Now()
	buildIndex(t, s, tb2, "gh")
	took := time.Since(start)
	released.Wait()
	if took < holdFor {
		t.Fatalf("the build ended after %v, before the held row was released (%v): it did not wait for k120", took, holdFor)
	}
	requireActiveExact(t, s, "t", "gh", "after the build")
	var rows, pages int64
	if err := s.Pool().QueryRow(ctx, "SELECT rows_done, pages FROM dynamopg.index_builds WHERE index_id = $1",
		tb2.Index("gh").ID).Scan(&rows, &pages); err != nil {
		t.Fatal(err)
	}
	// The snapshot's 300 rows in 6 pages: one read of the snapshot returned
	// them all, fewer than a read asks for, so no empty page follows.
	if rows != 300 || pages != 6 {
		t.Fatalf("rows_done %d, pages %d; want 300 rows in 6 pages", rows, pages)
	}
	t.Logf("build %v, the held row released after %v", took, releasedAt.Sub(start))
}

// TestBuildPagePrepareRemakesAnIncompleteSet checks build_page_prepare's
// repair. PREPARE is not transactional and its "prepared" setting is: a
// transaction that prepared the statements and then aborted leaves them in
// the session without the setting, and an error between two PREPAREs
// leaves part of the set. The next call must deallocate what is there and
// make all seven again (PREPARE of a name taken fails), so that a page
// never runs a missing statement.
func TestBuildPagePrepareRemakesAnIncompleteSet(t *testing.T) {
	s := newStoreNoRecovery(t)
	tb := newTable(t, s, "t", attr.TypeS, attr.TypeNone)
	for i := range 20 {
		put(t, s, tb, attr.Item{"pk": attr.Str(fmt.Sprintf("k%03d", i)), "g": attr.Str("g")})
	}
	tb2, _ := addIndex(t, s, "t", gsiHash(store.PropagationSync))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.Pool().Config().ConnConfig.ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	ixID := tb2.Index("gh").ID
	prefix := fmt.Sprintf("dynamopg_build_%d", ixID)
	const prepare = "SELECT dynamopg.build_page_prepare(dynamopg.table_def($1, false), $1, $2)"
	count := func() (n int) {
		t.Helper()
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_prepared_statements WHERE starts_with(name, $1 || '_')",
			prefix).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Prepared in a transaction that aborts.
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	if err := tx.QueryRow(ctx, prepare, tb2.ID, ixID).Scan(&got); err != nil || got != prefix {
		t.Fatalf("build_page_prepare: %q, %v; want %q", got, err, prefix)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 7 {
		t.Fatalf("%d statements after the rollback; want the 7 (PREPARE is not transactional)", n)
	}
	// One of them gone, as an error between two PREPAREs leaves the set.
	if _, err := conn.Exec(ctx, "DEALLOCATE "+pgx.Identifier{prefix + "_next_lock"}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second call finds them prepared
		if err := conn.QueryRow(ctx, prepare, tb2.ID, ixID).Scan(&got); err != nil {
			t.Fatalf("build_page_prepare after an incomplete set: %v", err)
		}
		if n := count(); n != 7 {
			t.Fatalf("build_page_prepare left %d of 7 statements", n)
		}
	}
	// The remade lock statement runs: the range after k004 up to k009 holds
	// five rows, locked and returned (the transaction ends at once).
	var tids []string
	if err := conn.QueryRow(ctx, "EXECUTE "+pgx.Identifier{prefix + "_next_lock"}.Sanitize()+`('["k004"]', '["k009"]', 100)`).
		Scan(&tids); err != nil {
		t.Fatalf("the remade lock statement: %v", err)
	}
	if len(tids) != 5 {
		t.Fatalf("the lock statement returned %d ctids for (k004, k009]; want 5", len(tids))
	}
}

// TestBuildQuietKeyTypes builds an index over several pages of tables
// keyed by Number and Binary values, whose order is not their text's (-5
// before 10 before 9.5 as text; bytes 0x00 and 0xff): the quiet pages'
// keyset bounds (build_page_prepare's statements, given the keys as
// literals) must walk every row once, in base key order.
func TestBuildQuietKeyTypes(t *testing.T) {
	const rows, pageSize = 60, 7
	shapes := []struct {
		name      string
		hash, rng attr.Type
		key       func(i int) attr.Item
	}{
		{"S hash, N range", attr.TypeS, attr.TypeN, func(i int) attr.Item {
			return attr.Item{"pk": attr.Str(fmt.Sprintf("p%d", i%3)), "sk": attr.Num(fmt.Sprintf("%d.5", (i*37)%101-50))}
		}},
		{"N hash", attr.TypeN, attr.TypeNone, func(i int) attr.Item {
			return attr.Item{"pk": attr.Num(fmt.Sprintf("%d.%de%d", i-30, i, i%3))}
		}},
		{"B hash, B range", attr.TypeB, attr.TypeB, func(i int) attr.Item {
			return attr.Item{"pk": attr.Bin([]byte{byte(i % 2 * 0xff)}), "sk": attr.Bin([]byte{byte(i * 53), 0, byte(i)})}
		}},
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			s := newStoreNoRecovery(t)
			setSetting(t, s, "build_page_size", pageSize)
			tb := newTable(t, s, "t", sh.hash, sh.rng)
			for i := range rows {
				it := sh.key(i)
				it["g"] = attr.Str(fmt.Sprintf("g%d", i%5))
				put(t, s, tb, it)
			}
			tb2, _ := addIndex(t, s, "t", gsiHash(store.PropagationSync))
			buildIndex(t, s, tb2, "gh")
			requireActiveExact(t, s, "t", "gh", "after the build")
			var done, pages int64
			if err := s.Pool().QueryRow(context.Background(), "SELECT rows_done, pages FROM dynamopg.index_builds WHERE index_id = $1",
				tb2.Index("gh").ID).Scan(&done, &pages); err != nil {
				t.Fatal(err)
			}
			if want := int64((rows + pageSize - 1) / pageSize); done != rows || pages != want {
				t.Fatalf("rows_done %d in %d pages; want %d in %d", done, pages, rows, want)
			}
		})
	}
}
