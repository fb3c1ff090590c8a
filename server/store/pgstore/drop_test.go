package pgstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
)

// syncGSI is a global index on g (S), maintained in the writer's transaction.
func syncGSI(name string) store.Index {
	return store.Index{Name: name, Global: true, Hash: store.KeyAttr{Name: "g", Type: attr.TypeS},
		Projection: store.Projection{Type: "ALL"}, Status: store.StatusActive}
}

// leftovers describes what remains of a deleted table: its data tables
// (t_<id>, i_<id> of its indexes), queued rows and catalog row ("" when
// nothing).
func leftovers(t testing.TB, s *pgstore.Store, tb *store.Table) string {
	t.Helper()
	ctx := context.Background()
	rels := []string{fmt.Sprintf("t_%d", tb.ID)}
	for _, ix := range tb.Indexes {
		rels = append(rels, fmt.Sprintf("i_%d", ix.ID))
	}
	var left []string
	rows, err := s.Pool().Query(ctx, `SELECT relname::text FROM pg_class
		WHERE relnamespace = 'dynamopg_data'::regnamespace AND relname = ANY ($1) ORDER BY 1`, rels)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	left = append(left, names...)
	var queued, catalog int
	if err := s.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM dynamopg.index_queue WHERE table_id = $1),
		(SELECT count(*) FROM dynamopg.tables WHERE id = $1)`, tb.ID).Scan(&queued, &catalog); err != nil {
		t.Fatal(err)
	}
	if queued > 0 {
		left = append(left, fmt.Sprintf("%d queued rows", queued))
	}
	if catalog > 0 {
		left = append(left, "catalog row")
	}
	return strings.Join(left, ", ")
}

// holdClaim begins a transaction on its own connection that claims the
// table's queued rows of one partition as a worker does (the partition's
// advisory lock, then queue_claim); with apply, it also applies the first
// claimed row (queue_apply: the catalog row FOR KEY SHARE, the item FOR
// UPDATE). It returns the transaction and the claimed rows.
func holdClaim(t testing.TB, s *pgstore.Store, tb *store.Table, apply bool) (pgx.Tx, []claimedRow) {
	t.Helper()
	ctx := context.Background()
	tx, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var part int32
	if err := tx.QueryRow(ctx, `SELECT part FROM dynamopg.index_queue WHERE table_id = $1 ORDER BY id LIMIT 1`,
		tb.ID).Scan(&part); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(dynamopg.queue_lock_class(), $1)`, part); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(ctx, `SELECT id, table_id, key FROM dynamopg.queue_claim('holder', $1, 64) ORDER BY id`, part)
	if err != nil {
		t.Fatal(err)
	}
	claimed, err := pgx.CollectRows(rows, pgx.RowToStructByPos[claimedRow])
	if err != nil {
		t.Fatal(err)
	}
	if len(claimed) == 0 {
		t.Fatal("nothing claimed")
	}
	if apply {
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT dynamopg.queue_apply($1, $2)`, claimed[0].TableID, claimed[0].Key).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Fatal("the held apply did not apply")
		}
	}
	return tx, claimed
}

type claimedRow struct {
	ID      int64
	TableID int64
	Key     []byte
}

// queuedTable creates a table with an async GSI and 40 queued items (the
// store must run no workers).
func queuedTable(t testing.TB, s *pgstore.Store, name string) *store.Table {
	t.Helper()
	tb := newTable(t, s, name, attr.TypeS, attr.TypeNone, syncGSI("gs"), asyncGSI("ga", "ALL"))
	for i := range 40 {
		put(t, s, tb, attr.Item{"pk": attr.Str(fmt.Sprint(i)), "g": attr.Str("x"), "gn": attr.Num(fmt.Sprint(i))})
	}
	return tb
}

// TestDeleteTableHeldClaim: a queue claim held open delays the drop but does
// not deadlock; once it ends, nothing of the table remains.
func TestDeleteTableHeldClaim(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, freshURL(t), pgstore.Options{Recovery: true})
	const hold = 1500 * time.Millisecond

	// A worker that applied a row of the table (catalog row FOR KEY SHARE,
	// item FOR UPDATE) and holds its transaction: the drop waits for it.
	t.Run("Applied", func(t *testing.T) {
		tb := queuedTable(t, s, "held-applied")
		tx, _ := holdClaim(t, s, tb, true)
		go func() {
			time.Sleep(hold)
			if err := tx.Commit(ctx); err != nil {
				t.Error(err)
			}
		}()
		start := time.Now()
		if _, err := s.TableDelete(ctx, tb.Name); err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		t.Logf("delete took %v behind a %v apply", took.Round(time.Millisecond), hold)
		if took < hold-100*time.Millisecond {
			t.Errorf("the delete did not wait for the held apply (%v)", took)
		}
		if left := leftovers(t, s, tb); left != "" {
			t.Errorf("left behind: %s", left)
		}
	})

	// A worker that claimed rows of the table and applies them only after
	// the table was marked DELETING (it consumes them then): the drop waits
	// for the batch, which never waits for the drop.
	t.Run("ClaimedThenApplied", func(t *testing.T) {
		tb := queuedTable(t, s, "held-claimed")
		tx, claimed := holdClaim(t, s, tb, false)
		applied := make(chan error, 1)
		go func() {
			time.Sleep(hold)
			for _, c := range claimed {
				var ok bool
				if err := tx.QueryRow(ctx, `SELECT dynamopg.queue_apply($1, $2)`, c.TableID, c.Key).Scan(&ok); err != nil {
					applied <- err
					return
				}
				if ok {
					applied <- fmt.Errorf("applied a row of a DELETING table")
					return
				}
			}
			applied <- tx.Commit(ctx)
		}()
		start := time.Now()
		if _, err := s.TableDelete(ctx, tb.Name); err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		if err := <-applied; err != nil {
			t.Fatalf("held batch: %v", err)
		}
		t.Logf("delete took %v behind a %v batch of %d claimed rows", took.Round(time.Millisecond), hold, len(claimed))
		if took < hold-100*time.Millisecond {
			t.Errorf("the delete did not wait for the held batch (%v)", took)
		}
		if left := leftovers(t, s, tb); left != "" {
			t.Errorf("left behind: %s", left)
		}
	})

	// An apply held past the drop's lock timeout: TableDelete still
	// succeeds and leaves the table DELETING (gone for item operations);
	// once the hold ends, the next sweep finishes it.
	t.Run("TimeoutThenSweep", func(t *testing.T) {
		tb := queuedTable(t, s, "held-long")
		tx, _ := holdClaim(t, s, tb, true)
		defer tx.Rollback(ctx)
		start := time.Now()
		old, err := s.TableDelete(ctx, tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("delete returned after %v, storage left", time.Since(start).Round(time.Millisecond))
		if old.Status != store.StatusActive {
			t.Errorf("returned status %s, want the description as it was", old.Status)
		}
		got, err := s.TableGet(ctx, tb.Name)
		if err != nil || got.Status != store.StatusDeleting {
			t.Fatalf("TableGet of the left table: %+v %v", got, err)
		}
		if items, bytes, err := s.TableStats(ctx, got); err != nil || items != 0 || bytes != 0 {
			t.Errorf("TableStats of a DELETING table: %d %d %v", items, bytes, err)
		}
		if _, err := s.ItemWrite(ctx, tb, attr.Item{"pk": attr.Str("new")}, func(attr.Item) (attr.Item, error) {
			return attr.Item{"pk": attr.Str("new")}, nil
		}); err != store.ErrTableNotFound {
			t.Errorf("ItemWrite into a DELETING table: %v", err)
		}
		if _, err := s.ItemGet(ctx, tb, attr.Item{"pk": attr.Str("1")}); err != store.ErrTableNotFound {
			t.Errorf("ItemGet of a DELETING table: %v", err)
		}
		if _, err := s.ItemQuery(ctx, tb, store.QueryInput{Index: &tb.Indexes[1], Hash: attr.Str("x")}); err != store.ErrTableNotFound {
			t.Errorf("ItemQuery of an index of a DELETING table: %v", err)
		}
		if _, err := s.TableDelete(ctx, tb.Name); err != store.ErrTableNotFound {
			t.Errorf("TableDelete of a DELETING table: %v", err)
		}
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		r, err := s.Sweep(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r.Finished != 1 {
			t.Errorf("sweep: %+v, want 1 finished", r)
		}
		if left := leftovers(t, s, tb); left != "" {
			t.Errorf("left behind: %s", left)
		}
		if _, err := s.TableGet(ctx, tb.Name); err != store.ErrTableNotFound {
			t.Errorf("TableGet after the sweep: %v", err)
		}
	})
}

// TestSweepOrphans: data tables whose catalog row is gone (a deletion
// interrupted between catalog and storage) are dropped by the sweeper; a
// table being created is not.
func TestSweepOrphans(t *testing.T) {
	ctx := context.Background()
	url := freshURL(t)
	// No background loop reads the catalog: the passes' barriers below
	// must wait for the test's own transaction only (a recovery or TTL
	// pass still running under a loaded machine held Sweep's third pass
	// back once in CI).
	s := openStore(t, url, pgstore.Options{})
	keep := queuedTable(t, s, "keep")

	orphan := func(name string) *store.Table {
		tb := queuedTable(t, s, name)
		if _, err := s.Pool().Exec(ctx, "DELETE FROM dynamopg.tables WHERE id = $1", tb.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Pool().Exec(ctx, "DELETE FROM dynamopg.index_queue WHERE table_id = $1", tb.ID); err != nil {
			t.Fatal(err)
		}
		return tb
	}

	t.Run("Sweep", func(t *testing.T) {
		tb := orphan("orphan")
		// A table being created (storage and catalog row in one open
		// transaction) is invisible to the sweeper.
		tx, err := s.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		var creating int64
		if err := tx.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('dynamopg.tables', 'id'))`).Scan(&creating); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO dynamopg.tables (id, name, status, def)
			VALUES ($1, 'creating', 'ACTIVE', jsonb_build_object('id', $1::bigint, 'hash', '{"name": "pk", "type": 1}'::jsonb))`, creating); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `SELECT dynamopg.table_storage_create($1)`, creating); err != nil {
			t.Fatal(err)
		}

		r1, err := s.Sweep(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// The open transaction holds a lock on dynamopg.tables: the catalog
		// barrier of the first pass has not passed, the index tables wait.
		r2, err := s.Sweep(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		r3, err := s.Sweep(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("passes %+v, %+v, %+v", r1, r2, r3)
		if r1.Orphans != 1 || r1.Pending != 2 || r2.Orphans != 0 || r2.Pending != 2 || r3.Orphans != 2 || r3.Pending != 0 {
			t.Errorf("passes %+v, %+v, %+v: want the table's data table dropped, then (barrier) its 2 index tables", r1, r2, r3)
		}
		if left := leftovers(t, s, tb); left != "" {
			t.Errorf("left behind: %s", left)
		}
		var n int
		if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_class
			WHERE relnamespace = 'dynamopg_data'::regnamespace AND relname = 't_' || $1::bigint`, creating).Scan(&n); err != nil || n != 1 {
			t.Errorf("the table being created lost its storage: %d %v", n, err)
		}
	})

	// The sweeper Open starts does the same by itself.
	t.Run("Sweeper", func(t *testing.T) {
		tb := orphan("orphan2")
		s2 := openStore(t, url, pgstore.Options{SweepInterval: 100 * time.Millisecond})
		deadline := time.Now().Add(10 * time.Second)
		for leftovers(t, s2, tb) != "" {
			if time.Now().After(deadline) {
				t.Fatalf("left behind: %s", leftovers(t, s2, tb))
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	left := leftovers(t, s, keep)
	for _, want := range []string{fmt.Sprintf("t_%d", keep.ID), fmt.Sprintf("i_%d", keep.Indexes[0].ID),
		fmt.Sprintf("i_%d", keep.Indexes[1].ID), "40 queued rows", "catalog row"} {
		if !strings.Contains(left, want) {
			t.Errorf("the live table lost %s: %q", want, left)
		}
	}
	if got := scanWhole(t, s, keep, nil); len(got) != 40 {
		t.Errorf("the live table has %d items", len(got))
	}
}
