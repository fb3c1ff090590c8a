package pgstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/backend"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
)

// TestQueueOutOfOrder: duplicate rows, applies twice and in reverse order,
// and an apply of an old row after a newer write all converge.
func TestQueueOutOfOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openStore(t, freshURL(t), pgstore.Options{})
	tb := newTable(t, s, "ooo", attr.TypeS, attr.TypeN, asyncGSI("g", "KEYS_ONLY"))
	ix := &tb.Indexes[0]
	item := func(i, gn int) attr.Item {
		return attr.Item{"pk": attr.Str("p"), "sk": attr.Num(fmt.Sprint(i)), "g": attr.Str("x"), "gn": attr.Num(fmt.Sprint(gn))}
	}
	for i := range 10 {
		put(t, s, tb, item(i, i))
	}
	// Extra rows for every item, enqueued directly: three per item now.
	for range 2 {
		if _, err := s.Pool().Exec(ctx, `INSERT INTO dynamopg.index_queue (table_id, part, key)
		    SELECT $1, dynamopg.queue_partition($1, q.key), q.key
		      FROM (SELECT DISTINCT key FROM dynamopg.index_queue) q`, tb.ID); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := s.QueueDepth(ctx); n != 30 {
		t.Fatalf("depth %d, want 30", n)
	}
	if d := indexDiff(t, s, tb, ix); d == "" {
		t.Fatal("async index already exact without workers")
	}
	// Apply every item twice, newest row first; each apply consumes all of
	// its item's rows.
	apply := func() {
		t.Helper()
		if _, err := s.Pool().Exec(ctx, `SELECT dynamopg.queue_apply(k.table_id, k.key)
		    FROM (SELECT table_id, key, max(id) AS id FROM dynamopg.index_queue GROUP BY 1, 2) k ORDER BY k.id DESC`); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := s.Pool().Query(ctx, "SELECT DISTINCT table_id, key FROM dynamopg.index_queue")
	if err != nil {
		t.Fatal(err)
	}
	type qkey struct {
		table int64
		key   []byte
	}
	var saved []qkey
	for keys.Next() {
		var k qkey
		if err := keys.Scan(&k.table, &k.key); err != nil {
			t.Fatal(err)
		}
		saved = append(saved, k)
	}
	if keys.Err() != nil {
		t.Fatal(keys.Err())
	}
	apply()
	for _, k := range saved { // a second apply of each, with no row left
		if _, err := s.Pool().Exec(ctx, "SELECT dynamopg.queue_apply($1, $2::jsonb)", k.table, k.key); err != nil {
			t.Fatal(err)
		}
	}
	requireExact(t, s, tb, ix, "after applying twice")
	if n, _ := s.QueueDepth(ctx); n != 0 {
		t.Fatalf("depth %d after applies", n)
	}
	// Newer writes, then stale rows for the same items applied first: the
	// apply reads the current item, so the index takes the newest state.
	for i := range 10 {
		if i%3 == 0 {
			del(t, s, tb, tb.KeyOf(item(i, 0)))
		} else {
			put(t, s, tb, item(i, 100+i))
		}
	}
	for _, k := range saved {
		enqueue(t, s.Pool(), k.table, string(k.key))
	}
	apply()
	requireExact(t, s, tb, ix, "after newer writes and stale rows")
	drain(t, s)
	requireExact(t, s, tb, ix, "after draining")
}

// TestQueueHeldRow: an item whose row a client holds is passed over; ten
// other items queued behind it in its partition reach the index within 6 s,
// and the held item converges after the client commits.
func TestQueueHeldRow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openStore(t, freshURL(t), pgstore.Options{Workers: backend.DefaultWorkers})
	tb := newTable(t, s, "held", attr.TypeS, attr.TypeNone, asyncGSI("g", "ALL"))
	ix := &tb.Indexes[0]
	held := attr.Item{"pk": attr.Str("held"), "g": attr.Str("h"), "gn": attr.Num("1")}
	put(t, s, tb, held)
	queueWait(t, s, tb)

	var part int
	partOf := func(pk string) int {
		t.Helper()
		var p int
		if err := s.Pool().QueryRow(ctx, "SELECT dynamopg.queue_partition($1, jsonb_build_object('pk', jsonb_build_object('S', $2::text)))",
			tb.ID, pk).Scan(&p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	part = partOf("held")
	var others []string
	for i := 0; len(others) < 10; i++ {
		if pk := fmt.Sprintf("o%d", i); partOf(pk) == part {
			others = append(others, pk)
		}
	}

	// The client: lock the item and change it, for 10 s.
	holdStart := time.Now()
	tx, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, fmt.Sprintf("SELECT 1 FROM dynamopg_data.t_%d WHERE pk = 'held' FOR UPDATE", tb.ID)); err != nil {
		t.Fatal(err)
	}
	changed := attr.Item{"pk": attr.Str("held"), "g": attr.Str("h"), "gn": attr.Num("2")}
	clientWrite(t, tx, tb, changed)
	// A committed row for the held item, ahead of the others in its partition.
	enqueue(t, s.Pool(), tb.ID, encode(attr.Item{"pk": attr.Str("held")}))
	start := time.Now()
	for i, pk := range others {
		put(t, s, tb, attr.Item{"pk": attr.Str(pk), "g": attr.Str("o"), "gn": attr.Num(fmt.Sprint(i))})
	}
	for {
		rows, err := s.ItemQuery(ctx, tb, store.QueryInput{Index: ix, Hash: attr.Str("o"), Forward: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == len(others) {
			break
		}
		if time.Since(start) > 6*time.Second {
			t.Fatalf("only %d of %d items of the held item's partition in the index after 6 s", len(rows), len(others))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("10 items behind the held one indexed %v after their writes began", time.Since(start).Round(time.Millisecond))
	// The others applied around the held item (the set-based pass skips it);
	// the held item itself is then waited for, and passed over, while held.
	for {
		var passed bool
		if err := s.Pool().QueryRow(ctx, "SELECT coalesce(bool_or(pass_over_until IS NOT NULL), false) FROM dynamopg.index_queue WHERE table_id = $1",
			tb.ID).Scan(&passed); err != nil {
			t.Fatal(err)
		}
		if passed {
			break
		}
		if time.Since(holdStart) > 8*time.Second {
			t.Fatal("the held item's rows are not passed over while it is held")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("the held item passed over %v after the hold began", time.Since(holdStart).Round(time.Millisecond))
	time.Sleep(time.Until(holdStart.Add(10 * time.Second)))
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	queueWait(t, s, tb)
	requireExact(t, s, tb, ix, "after the client committed")
	got, err := s.ItemQuery(ctx, tb, store.QueryInput{Index: ix, Hash: attr.Str("h"), Forward: true})
	if err != nil || len(got) != 1 || !attr.Equal(got[0]["gn"], attr.Num("2")) {
		t.Fatalf("held item in the index: %v, %v", got, err)
	}
}

// encode is an item in the jsonb wire form the functions take (no NULs here).
func encode(it attr.Item) string { return string(it.AppendJSON(nil)) }

// clientWrite is a write in a client's transaction tx, which already holds
// the item's row FOR UPDATE, to a table whose indexes are all async: the
// data row replaced and the item queued, as a store's write would, but
// left uncommitted for as long as the test holds tx.
func clientWrite(t testing.TB, tx pgx.Tx, tb *store.Table, it attr.Item) {
	t.Helper()
	where := "pk = $2::jsonb->'pk'->>'S'"
	if tb.Range != nil {
		where += " AND sk = ($2::jsonb->'sk'->>'N')::numeric"
	}
	key := encode(tb.KeyOf(it))
	if _, err := tx.Exec(context.Background(), fmt.Sprintf("UPDATE dynamopg_data.t_%d SET item = $1::jsonb WHERE %s", tb.ID, where),
		encode(it), key); err != nil {
		t.Fatal(err)
	}
	enqueue(t, tx, tb.ID, key)
}

// TestQueueWorkers: Open starts Options.Workers workers on their own
// connections; Close stops them.
func TestQueueWorkers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := freshURL(t)
	count := func(s *pgstore.Store) int {
		t.Helper()
		var n int
		if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		    WHERE datname = current_database() AND application_name = $1`, pgstore.WorkerApplicationName).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	obs := openStore(t, url, pgstore.Options{})
	s, err := pgstore.Open(ctx, url, pgstore.Options{Workers: backend.DefaultWorkers})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for count(obs) != backend.DefaultWorkers {
		if time.Now().After(deadline) {
			t.Fatalf("%d worker connections, want %d", count(obs), backend.DefaultWorkers)
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.Close()
	for count(obs) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d worker connections after Close", count(obs))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestQueueStepSetBased: one worker step (the claim, the set-based pass,
// the rest: pgstore.QueueStep, the workers' step) takes rows of every
// partition and applies their items set-based on a table with two async
// indexes, with puts, index-key changes, items leaving an index, and
// deletes among them; an item a client holds is left with its rows queued,
// not waited for, and converges after the client commits.
func TestQueueStepSetBased(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	step := func(t *testing.T, s *pgstore.Store) (part *int32, claimed, applied, passed int) {
		p, claimed, applied, passed, err := s.QueueStep(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p >= 0 {
			part = &p
		}
		return part, claimed, applied, passed
	}
	testQueueStepSetBased(t, step)
}

func testQueueStepSetBased(t *testing.T, step func(*testing.T, *pgstore.Store) (*int32, int, int, int)) {
	ctx := context.Background()
	s := openStore(t, freshURL(t), pgstore.Options{})
	keys := asyncGSI("k", "KEYS_ONLY")
	keys.Hash = store.KeyAttr{Name: "g2", Type: attr.TypeS}
	tb := newTable(t, s, "set", attr.TypeS, attr.TypeN, asyncGSI("g", "ALL"), keys)
	item := func(i int, g string) attr.Item {
		it := attr.Item{"pk": attr.Str(fmt.Sprintf("p%d", i%5)), "sk": attr.Num(fmt.Sprint(i)), "gn": attr.Num(fmt.Sprint(i))}
		if g != "" {
			it["g"] = attr.Str(g)
			it["g2"] = attr.Str(g + "2")
		}
		return it
	}
	for i := range 60 {
		put(t, s, tb, item(i, "a"))
	}
	for i := range 60 {
		switch i % 4 {
		case 1:
			put(t, s, tb, item(i, "b")) // a new index key
		case 2:
			put(t, s, tb, item(i, "")) // out of both indexes
		case 3:
			del(t, s, tb, attr.Item{"pk": attr.Str(fmt.Sprintf("p%d", i%5)), "sk": attr.Num(fmt.Sprint(i))})
		}
	}
	if _, err := s.Pool().Exec(ctx, "UPDATE dynamopg.settings SET value = '1000' WHERE key = 'queue_batch_size'"); err != nil {
		t.Fatal(err)
	}

	// A client holds item 0 and changes it.
	tx, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, fmt.Sprintf("SELECT 1 FROM dynamopg_data.t_%d WHERE pk = 'p0' AND sk = 0 FOR UPDATE", tb.ID)); err != nil {
		t.Fatal(err)
	}
	clientWrite(t, tx, tb, item(0, "c"))

	if _, claimed, applied, passed := step(t, s); claimed != 105 || applied != 59 || passed != 0 {
		t.Fatalf("step: claimed %d, applied %d, passed %d; want 105 rows (60 puts, 45 changes), 59 items, none passed over",
			claimed, applied, passed)
	}
	var left []string
	if err := s.Pool().QueryRow(ctx, "SELECT coalesce(array_agg(DISTINCT key::text), '{}') FROM dynamopg.index_queue").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if want := `{"pk": {"S": "p0"}, "sk": {"N": "0"}}`; len(left) != 1 || left[0] != want {
		t.Fatalf("rows left for %v, want only the held item's %s", left, want)
	}
	held := fmt.Sprint(attr.Item{"pk": attr.Str("p0"), "sk": attr.Num("0")})
	onlyHeld := func(step string) {
		t.Helper()
		for _, ix := range tb.Indexes {
			if _, bad := indexDiffKeys(t, s, tb, &ix); len(bad) != 1 || bad[0] != held {
				t.Fatalf("%s: index %s wrong for %v, want only the held item (never applied)", step, ix.Name, bad)
			}
		}
	}
	onlyHeld("before the client committed")
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	onlyHeld("after the client committed")
	for range 100 {
		if part, _, _, _ := step(t, s); part == nil {
			break
		}
	}
	for _, ix := range tb.Indexes {
		requireExact(t, s, tb, &ix, "after the held item's rows ran")
	}
}

// TestQueueWake: with the workers' poll an hour long and no notifications
// (a process with workers enqueues without NOTIFY), every write
// path that queues an item (a put, ItemWrite, a batch, a transaction) wakes
// an idle worker itself, and the index converges.
func TestQueueWake(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openStore(t, freshURL(t), pgstore.Options{Workers: backend.DefaultWorkers})
	newTable(t, s, "wake", attr.TypeS, attr.TypeNone, asyncGSI("g", "ALL"))
	tb, _, err := s.TableGetCached(ctx, "wake") // as the API reads it
	if err != nil {
		t.Fatal(err)
	}
	s.SetQueuePoll(time.Hour)
	time.Sleep(1500 * time.Millisecond) // every worker past its last short wait
	item := func(k string) attr.Item { return attr.Item{"pk": attr.Str(k), "g": attr.Str("x"), "gn": attr.Num("1")} }
	writes := map[string]func(k string) error{
		"put": func(k string) error { _, err := s.ItemPut(ctx, tb, item(k)); return err },
		"write": func(k string) error {
			_, err := s.ItemWrite(ctx, tb, attr.Item{"pk": attr.Str(k)}, func(attr.Item) (attr.Item, error) { return item(k), nil })
			return err
		},
		"batch": func(k string) error {
			_, err := s.ItemWriteMany(ctx, []store.WriteOp{{Table: tb, Key: attr.Item{"pk": attr.Str(k)}, Put: item(k)}})
			return err
		},
		"transact": func(k string) error {
			return s.ItemTransact(ctx, []store.TxTarget{{Table: tb, Key: attr.Item{"pk": attr.Str(k)}}},
				func([]attr.Item) ([]store.TxWrite, error) { return []store.TxWrite{{Put: item(k)}}, nil })
		},
	}
	for name, write := range writes {
		// Every worker idle again: past the step that follows a busy one.
		time.Sleep(300 * time.Millisecond)
		if err := write(name); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for indexDiff(t, s, tb, &tb.Indexes[0]) != "" {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the async index never took the write: %s", name, indexDiff(t, s, tb, &tb.Indexes[0]))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	// A stream of writes from 8 writers: while one worker steps, writers
	// wake no other, and each item must still reach the index without the
	// poll (workerSession's queued count).
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				k := fmt.Sprintf("stream-%d-%d", w, i)
				if err := writes[[]string{"put", "write", "batch", "transact"}[i%4]](k); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("stream: %v", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for indexDiff(t, s, tb, &tb.Indexes[0]) != "" {
		if time.Now().After(deadline) {
			t.Fatalf("stream: the async index never took every write: %s", indexDiff(t, s, tb, &tb.Indexes[0]))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
