package pgstore_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// openStore opens a store on the database at url (migrated), closed when the
// test ends.
func openStore(t testing.TB, url string, opts pgstore.Options) *pgstore.Store {
	t.Helper()
	opts.Migrate = true
	s, err := pgstore.Open(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// asyncGSI is a global index on g (S) and gn (N), propagated by the queue.
func asyncGSI(name string, proj string) store.Index {
	return store.Index{Name: name, Global: true, Hash: store.KeyAttr{Name: "g", Type: attr.TypeS},
		Range: &store.KeyAttr{Name: "gn", Type: attr.TypeN}, Projection: store.Projection{Type: proj},
		Propagation: store.PropagationAsync, Status: store.StatusActive}
}

// queueWait waits for the table's queue, failing after 30 s.
func queueWait(t testing.TB, s *pgstore.Store, tb *store.Table) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.QueueWait(ctx, tb); err != nil {
		t.Fatal(err)
	}
}

// scanWhole reads a whole table (ix nil) or index.
func scanWhole(t testing.TB, s store.Store, tb *store.Table, ix *store.Index) []attr.Item {
	t.Helper()
	rows, err := s.ItemScan(context.Background(), tb, store.ScanInput{Index: ix, TotalSegments: 1})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// snapshotScan reads the table's items and the index's rows from one
// snapshot (pgstore.SnapshotScan): a write still committing on the server
// after its call returned must not make them disagree.
func snapshotScan(t testing.TB, s store.Store, tb *store.Table, ix *store.Index) (items, rows []attr.Item) {
	t.Helper()
	ps, ok := s.(*pgstore.Store)
	if !ok {
		return scanWhole(t, s, tb, nil), scanWhole(t, s, tb, ix)
	}
	items, rows, err := ps.SnapshotScan(context.Background(), tb, ix)
	if err != nil {
		t.Fatal(err)
	}
	return items, rows
}

// indexDiff compares an index with the projection of the table's current
// items and describes the differences ("" when exact): rows missing,
// extra, stale (an old state of the item) or duplicated.
func indexDiff(t testing.TB, s store.Store, tb *store.Table, ix *store.Index) string {
	t.Helper()
	msg, _ := indexDiffKeys(t, s, tb, ix)
	return msg
}

// indexDiffKeys is indexDiff that also lists the base keys (fmt.Sprint of
// the key item) whose index rows are wrong.
func indexDiffKeys(t testing.TB, s store.Store, tb *store.Table, ix *store.Index) (string, []string) {
	t.Helper()
	var bad []string
	items, rows := snapshotScan(t, s, tb, ix)
	want := map[string]attr.Item{}
	for _, it := range items {
		if ix.Indexable(it) {
			want[fmt.Sprint(tb.KeyOf(it))] = ix.Project(tb, it)
		}
	}
	got := map[string]attr.Item{}
	var missing, extra, stale, dup int
	for _, it := range rows {
		k := fmt.Sprint(tb.KeyOf(it))
		if _, ok := got[k]; ok {
			dup++
			bad = append(bad, k)
			continue
		}
		got[k] = it
		w, ok := want[k]
		switch {
		case !ok:
			extra++
			bad = append(bad, k)
		case !attr.EqualItems(it, w):
			stale++
			bad = append(bad, k)
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			missing++
			bad = append(bad, k)
		}
	}
	if missing+extra+stale+dup == 0 {
		return "", nil
	}
	return fmt.Sprintf("index %s: %d rows, want %d: %d missing, %d extra, %d stale, %d duplicated",
		ix.Name, len(got), len(want), missing, extra, stale, dup), bad
}

// requireExact fails unless the index equals the table's projection.
func requireExact(t testing.TB, s store.Store, tb *store.Table, ix *store.Index, step string) {
	t.Helper()
	if d := indexDiff(t, s, tb, ix); d != "" {
		t.Fatalf("%s: %s", step, d)
	}
}

// randomWrites runs writers goroutines of ops random writes each over items
// items keyed pk "k<n>": puts, updates of the index key, removals of it and
// deletes. Each write goes to one of stores, at random.
func randomWrites(t testing.TB, stores []store.Store, tb *store.Table, writers, ops, items int) {
	t.Helper()
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	for w := range writers {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(w), 42))
			for i := range ops {
				s := stores[rnd.IntN(len(stores))]
				key := attr.Item{"pk": attr.Str(fmt.Sprintf("k%d", rnd.IntN(items)))}
				op, g, gn := rnd.IntN(4), fmt.Sprintf("g%d", rnd.IntN(5)), fmt.Sprint(rnd.IntN(100))
				_, err := onFresh(s, tb, func(tb *store.Table) error {
					_, err := s.ItemWrite(context.Background(), tb, key, func(old attr.Item) (attr.Item, error) {
						it := old.Clone()
						if it == nil {
							it = key.Clone()
						}
						switch op {
						case 0: // put a whole new item
							return attr.Item{"pk": key["pk"], "g": attr.Str(g), "gn": attr.Num(gn), "v": attr.Num(fmt.Sprint(i))}, nil
						case 1: // update the index key
							it["g"], it["v"] = attr.Str(g), attr.Num(fmt.Sprint(i))
							if _, ok := it["gn"]; !ok {
								it["gn"] = attr.Num(gn)
							}
							return it, nil
						case 2: // remove the index key
							if old == nil {
								return nil, nil
							}
							delete(it, "g")
							return it, nil
						}
						return nil, nil // delete
					})
					return err
				})
				if err != nil {
					failed.CompareAndSwap(nil, &err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		t.Fatalf("random writes: %v", *err)
	}
}

// warnHandler counts log records at Warn and above.
type warnHandler struct{ n *atomic.Int64 }

func (h warnHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h warnHandler) Handle(context.Context, slog.Record) error {
	h.n.Add(1)
	return nil
}
func (h warnHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h warnHandler) WithGroup(string) slog.Handler      { return h }

// drain applies the whole queue by running the workers' step
// (pgstore.QueueStep: the claim, the set-based pass, the rest) until
// nothing is claimable (for stores opened without workers).
func drain(t testing.TB, s *pgstore.Store) {
	t.Helper()
	ctx := context.Background()
	for range 10000 {
		part, _, _, _, err := s.QueueStep(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if part < 0 {
			return
		}
	}
	t.Fatal("the queue never ran dry")
}

// enqueue queues a row for the item with key (jsonb text) of table, as a
// write does (QueueEnqueueKey), in db: the pool, or a client's transaction.
func enqueue(t testing.TB, db interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}, table int64, key string) {
	t.Helper()
	if _, err := db.Exec(context.Background(), `INSERT INTO dynamopg.index_queue (table_id, part, key)
	    SELECT $1, dynamopg.queue_partition($1, k), k
	      FROM (SELECT dynamopg.queue_key(dynamopg.table_def($1, false), $2::jsonb) AS k) q`, table, key); err != nil {
		t.Fatal(err)
	}
}

// freshURL is the URL of a new database for a test.
func freshURL(t testing.TB) string { return pgtest.URL(t) }
