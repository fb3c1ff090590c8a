package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/maintain"
)

const streamLabel = "2026-01-01T00:00:00.000"

// withStream sets the table's stream specification.
func withStream(tbl *store.Table, enabled bool, label string) *store.Table {
	raw, _ := json.Marshal(store.StreamSpec{Enabled: enabled, ViewType: "NEW_AND_OLD_IMAGES", Label: label})
	if tbl.Options == nil {
		tbl.Options = map[string][]byte{}
	}
	tbl.Options[store.OptionStream] = raw
	return tbl
}

// streamAll pages through a stream label, page records at a time.
func streamAll(ctx context.Context, t testing.TB, st store.Streams, tbl *store.Table, label string, page int) []store.StreamRecord {
	t.Helper()
	var out []store.StreamRecord
	after := int64(0)
	for {
		recs, err := st.StreamRead(ctx, tbl.ID, label, after, page)
		requireNoError(t, err, "StreamRead")
		for _, r := range recs {
			requireTrue(t, r.Seq > after, "StreamRead: seq %d after %d", r.Seq, after)
			after = r.Seq
		}
		out = append(out, recs...)
		if len(recs) < page {
			return out
		}
	}
}

// requireRecord checks one record's event, key and images.
func requireRecord(t testing.TB, r store.StreamRecord, event string, keys, old, nu attr.Item, what string) {
	t.Helper()
	requireEqual(t, r.EventName, event, what+": event")
	requireItem(t, r.Keys, keys, what+": keys")
	requireItem(t, r.OldImage, old, what+": old image")
	requireItem(t, r.NewImage, nu, what+": new image")
	requireEqual(t, r.Label, streamLabel, what+": label")
	requireTrue(t, !r.CreatedAt.IsZero() && time.Since(r.CreatedAt) < time.Hour && time.Until(r.CreatedAt) < time.Minute,
		"%s: created at %v", what, r.CreatedAt)
}

func exerciseStreams(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run("ItemWrite", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		st := s
		tbl := createTable(ctx, t, s, withStream(newTable("st", key("pk", attr.TypeS), rkey("sk", attr.TypeN)), true, streamLabel))
		k := attr.Item{"pk": attr.Str("a\x00b"), "sk": num(t, "1")}
		v1 := attr.Item{"pk": attr.Str("a\x00b"), "sk": num(t, "1"), "v": attr.Str("one")}
		v2 := attr.Item{"pk": attr.Str("a\x00b"), "sk": num(t, "1"), "v": attr.Str("two"), "n": num(t, "2")}

		first, last, err := st.StreamBounds(ctx, tbl.ID, streamLabel)
		requireNoError(t, err, "StreamBounds of an empty stream")
		requireTrue(t, first == 0 && last == 0, "StreamBounds of an empty stream: %d, %d", first, last)

		put(ctx, t, s, tbl, v1)
		put(ctx, t, s, tbl, v2)
		del(ctx, t, s, tbl, k)
		del(ctx, t, s, tbl, k) // absent: no record
		// A write whose fn fails writes nothing.
		_, err = s.ItemWrite(ctx, tbl, k, func(attr.Item) (attr.Item, error) { return nil, errExists })
		requireErrorIs(t, err, errExists, "ItemWrite failing")

		recs := streamAll(ctx, t, st, tbl, streamLabel, 2)
		requireEqual(t, len(recs), 3, "records")
		requireRecord(t, recs[0], "INSERT", k, nil, v1, "put")
		requireRecord(t, recs[1], "MODIFY", k, v1, v2, "update")
		requireRecord(t, recs[2], "REMOVE", k, v2, nil, "delete")
		for _, r := range recs {
			requireTrue(t, !r.TTL, "a client's write marked TTL")
		}
		first, last, err = st.StreamBounds(ctx, tbl.ID, streamLabel)
		requireNoError(t, err, "StreamBounds")
		requireEqual(t, first, recs[0].Seq, "StreamBounds first")
		requireEqual(t, last, recs[2].Seq, "StreamBounds last")

		// Reading after the middle record, and with a limit.
		more, err := st.StreamRead(ctx, tbl.ID, streamLabel, recs[0].Seq, 1)
		requireNoError(t, err, "StreamRead after")
		requireTrue(t, len(more) == 1 && more[0].Seq == recs[1].Seq, "StreamRead after the first: %v", more)
		none, err := st.StreamRead(ctx, tbl.ID, "other-label", 0, 10)
		requireNoError(t, err, "StreamRead of another label")
		requireEqual(t, len(none), 0, "records of another label")

		// A new label (stream replaced): new records go there, the old stay.
		tbl2, err := s.TableUpdate(ctx, tbl.Name, func(t *store.Table) error {
			withStream(t, true, "new-label")
			return nil
		})
		requireNoError(t, err, "TableUpdate stream label")
		put(ctx, t, s, tbl2, v1)
		newRecs, err := st.StreamRead(ctx, tbl.ID, "new-label", 0, 10)
		requireNoError(t, err, "StreamRead new label")
		requireEqual(t, len(newRecs), 1, "records of the new label")
		requireEqual(t, len(streamAll(ctx, t, st, tbl, streamLabel, 10)), 3, "records of the old label")

		// Trim: a cutoff in the future removes everything.
		requireNoError(t, st.StreamTrim(ctx, time.Now().Add(-time.Hour)), "StreamTrim past")
		requireEqual(t, len(streamAll(ctx, t, st, tbl, streamLabel, 10)), 3, "records after a trim of older ones")
		requireNoError(t, st.StreamTrim(ctx, time.Now().Add(time.Hour)), "StreamTrim future")
		requireEqual(t, len(streamAll(ctx, t, st, tbl, streamLabel, 10)), 0, "records after a trim of all")
		first, last, err = st.StreamBounds(ctx, tbl.ID, streamLabel)
		requireNoError(t, err, "StreamBounds after trim")
		requireTrue(t, first == 0 && last == 0, "StreamBounds after trim: %d, %d", first, last)
		// Seqs keep increasing after a trim.
		put(ctx, t, s, tbl2, v2)
		again, err := st.StreamRead(ctx, tbl.ID, "new-label", newRecs[0].Seq, 10)
		requireNoError(t, err, "StreamRead after trim")
		requireEqual(t, len(again), 1, "records written after the trim")
	})

	t.Run("Disabled", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		st := s
		plain := createTable(ctx, t, s, newTable("plain", key("pk", attr.TypeS), nil))
		off := createTable(ctx, t, s, withStream(newTable("off", key("pk", attr.TypeS), nil), false, streamLabel))
		for _, tbl := range []*store.Table{plain, off} {
			it := attr.Item{"pk": attr.Str("x"), "v": attr.Str("1")}
			put(ctx, t, s, tbl, it)
			put(ctx, t, s, tbl, attr.Item{"pk": attr.Str("x"), "v": attr.Str("2")})
			del(ctx, t, s, tbl, attr.Item{"pk": attr.Str("x")})
			for _, label := range []string{"", streamLabel} {
				recs, err := st.StreamRead(ctx, tbl.ID, label, 0, 100)
				requireNoError(t, err, "StreamRead")
				requireEqual(t, len(recs), 0, tbl.Name+": records with the stream disabled")
			}
		}
	})

	t.Run("ItemTransact", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		st := s
		txr := s
		a := createTable(ctx, t, s, withStream(newTable("ta", key("pk", attr.TypeS), nil), true, streamLabel))
		b := createTable(ctx, t, s, withStream(newTable("tb", key("pk", attr.TypeN), nil), true, streamLabel))
		c := createTable(ctx, t, s, newTable("tc", key("pk", attr.TypeS), nil)) // no stream
		old1 := attr.Item{"pk": attr.Str("upd"), "v": num(t, "1")}
		old2 := attr.Item{"pk": attr.Str("del"), "v": num(t, "2")}
		chk := attr.Item{"pk": num(t, "7"), "v": attr.Str("checked")}
		put(ctx, t, s, a, old1)
		put(ctx, t, s, a, old2)
		put(ctx, t, s, b, chk)
		startA := streamAll(ctx, t, st, a, streamLabel, 100)
		startB := streamAll(ctx, t, st, b, streamLabel, 100)
		requireTrue(t, len(startA) == 2 && len(startB) == 1, "setup records: %d, %d", len(startA), len(startB))

		nuUpd := attr.Item{"pk": attr.Str("upd"), "v": num(t, "10")}
		nuIns := attr.Item{"pk": attr.Str("ins"), "v": num(t, "3")}
		targets := []store.TxTarget{
			{Table: a, Key: attr.Item{"pk": attr.Str("upd")}},
			{Table: a, Key: attr.Item{"pk": attr.Str("del")}},
			{Table: a, Key: attr.Item{"pk": attr.Str("ins")}},
			{Table: b, Key: attr.Item{"pk": num(t, "7")}},      // condition check
			{Table: a, Key: attr.Item{"pk": attr.Str("nope")}}, // delete of a missing item
			{Table: c, Key: attr.Item{"pk": attr.Str("c")}},    // table without stream
		}
		// A transaction that fails writes no record.
		boom := errors.New("boom")
		err := txr.ItemTransact(ctx, targets, func([]attr.Item) ([]store.TxWrite, error) { return nil, boom })
		requireErrorIs(t, err, boom, "ItemTransact failing")
		requireEqual(t, len(streamAll(ctx, t, st, a, streamLabel, 100)), 2, "records after a failed transaction")

		err = txr.ItemTransact(ctx, targets, func(olds []attr.Item) ([]store.TxWrite, error) {
			return []store.TxWrite{
				{Put: nuUpd.Clone()}, {Delete: true}, {Put: nuIns.Clone()}, {}, {Delete: true},
				{Put: attr.Item{"pk": attr.Str("c")}},
			}, nil
		})
		requireNoError(t, err, "ItemTransact")
		recsA := streamAll(ctx, t, st, a, streamLabel, 100)[2:]
		requireEqual(t, len(recsA), 3, "records of the transaction in table a")
		byKey := map[string]store.StreamRecord{}
		for _, r := range recsA {
			byKey[r.Keys["pk"].S] = r
		}
		requireRecord(t, byKey["upd"], "MODIFY", attr.Item{"pk": attr.Str("upd")}, old1, nuUpd, "transact update")
		requireRecord(t, byKey["del"], "REMOVE", attr.Item{"pk": attr.Str("del")}, old2, nil, "transact delete")
		requireRecord(t, byKey["ins"], "INSERT", attr.Item{"pk": attr.Str("ins")}, nil, nuIns, "transact insert")
		requireEqual(t, len(streamAll(ctx, t, st, b, streamLabel, 100)), 1, "records of table b (a condition check)")
	})

	// 8 writers × 50 writes over 20 items, read back by a reader paging
	// while they write: every change exactly once, in per-item order (each
	// record's old image is the previous record's new image).
	t.Run("Concurrent", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		st := s
		tbl := createTable(ctx, t, s, withStream(newTable("conc", key("pk", attr.TypeS), nil,
			store.Index{Name: "gsi", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"}}),
			true, streamLabel))
		const writers, writes, items = 8, 50, 20
		var changes sync.Map // writer*writes+i -> true when the write changed an item
		var wg sync.WaitGroup
		errs := make([]error, writers)
		stop := make(chan struct{})
		var read []store.StreamRecord
		var readErr error
		readerDone := make(chan struct{})
		go func() {
			defer close(readerDone)
			after := int64(0)
			for {
				recs, err := st.StreamRead(ctx, tbl.ID, streamLabel, after, 17)
				if err != nil {
					readErr = err
					return
				}
				for _, r := range recs {
					if r.Seq <= after {
						readErr = errorf("seq %d after %d", r.Seq, after)
						return
					}
					after = r.Seq
				}
				read = append(read, recs...)
				if len(recs) == 0 {
					select {
					case <-stop:
						// One last page: everything is committed now.
						recs, err := st.StreamRead(ctx, tbl.ID, streamLabel, after, 1000)
						if err != nil {
							readErr = err
						}
						read = append(read, recs...)
						return
					case <-time.After(time.Millisecond):
					}
				}
			}
		}()
		for w := range writers {
			wg.Go(func() {
				for i := range writes {
					k := attr.Item{"pk": attr.Str("item" + strconv.Itoa((w*7+i*3)%items))}
					remove := (w+i)%5 == 4
					old, err := s.ItemWrite(ctx, tbl, k, func(old attr.Item) (attr.Item, error) {
						if remove {
							return nil, nil
						}
						n := 0
						if old != nil {
							n, _ = strconv.Atoi(old["n"].S)
						}
						nu := k.Clone()
						nu["n"] = attr.Num(strconv.Itoa(n + 1))
						nu["w"] = attr.Str(strconv.Itoa(w*writes + i))
						nu["g"] = attr.Str("g" + strconv.Itoa(i%3))
						return nu, nil
					})
					if err != nil {
						errs[w] = err
						return
					}
					if !remove || old != nil {
						changes.Store(w*writes+i, true)
					}
				}
			})
		}
		wg.Wait()
		close(stop)
		<-readerDone
		for w, err := range errs {
			requireNoError(t, err, "writer "+strconv.Itoa(w))
		}
		requireNoError(t, readErr, "reader")
		want := 0
		changes.Range(func(any, any) bool { want++; return true })
		requireEqual(t, len(read), want, "records read (one per change)")
		all := streamAll(ctx, t, st, tbl, streamLabel, 50)
		requireEqual(t, len(all), want, "records read after the workload")
		for i := range all {
			requireEqual(t, all[i].Seq, read[i].Seq, "the concurrent reader's record "+strconv.Itoa(i))
		}

		last := map[string]attr.Item{} // per item: the last record's new image
		seen := map[string]bool{}
		for _, r := range read {
			pk := r.Keys["pk"].S
			prev := last[pk]
			requireItem(t, r.OldImage, prev, "item "+pk+" seq "+strconv.FormatInt(r.Seq, 10)+": old image = previous new image")
			switch {
			case prev == nil:
				requireEqual(t, r.EventName, "INSERT", "item "+pk+": event after absence")
			case r.NewImage == nil:
				requireEqual(t, r.EventName, "REMOVE", "item "+pk+": event")
			default:
				requireEqual(t, r.EventName, "MODIFY", "item "+pk+": event")
			}
			if r.NewImage != nil {
				id, _ := strconv.Atoi(r.NewImage["w"].S)
				requireTrue(t, !seen[r.NewImage["w"].S], "write %d recorded twice", id)
				seen[r.NewImage["w"].S] = true
				if _, ok := changes.Load(id); !ok {
					t.Fatalf("record of write %d, which made no change", id)
				}
			}
			last[pk] = r.NewImage
		}
		for i := range items {
			k := attr.Item{"pk": attr.Str("item" + strconv.Itoa(i))}
			got, err := s.ItemGet(ctx, tbl, k)
			requireNoError(t, err, "ItemGet")
			requireItem(t, got, last[k["pk"].S], "item "+k["pk"].S+": stored = last new image")
		}
	})

	t.Run("TTL", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		st := s
		tbl := withStream(newTable("ttl", key("pk", attr.TypeS), nil,
			store.Index{Name: "gsi", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"}}),
			true, streamLabel)
		tbl.Options[store.OptionTTL], _ = json.Marshal(map[string]any{"enabled": true, "attributeName": "exp"})
		createTable(ctx, t, s, tbl)
		other := createTable(ctx, t, s, newTable("nottl", key("pk", attr.TypeS), nil))
		now := time.Now()
		sec := func(d time.Duration) attr.Value { return attr.Num(strconv.FormatInt(now.Add(d).Unix(), 10)) }
		item := func(pk string, exp attr.Value, has bool) attr.Item {
			it := attr.Item{"pk": attr.Str(pk), "g": attr.Str("g")}
			if has {
				it["exp"] = exp
			}
			return it
		}
		expired := 0
		for i := range 130 { // more than one batch
			put(ctx, t, s, tbl, item("old"+strconv.Itoa(i), sec(-time.Duration(i+1)*time.Minute), true))
			expired++
		}
		put(ctx, t, s, tbl, item("fraction", attr.Num(strconv.FormatInt(now.Unix()-10, 10)+".5"), true))
		expired++
		keep := []attr.Item{
			item("future", sec(time.Hour), true),
			item("ancient", sec(-6*365*24*time.Hour), true), // more than 5 years ago: kept
			item("string", attr.Str(strconv.FormatInt(now.Unix()-100, 10)), true),
			item("missing", attr.Value{}, false),
		}
		for _, it := range keep {
			put(ctx, t, s, tbl, it)
		}
		put(ctx, t, s, other, item("x", sec(-time.Hour), true)) // TTL not enabled there
		before := len(streamAll(ctx, t, st, tbl, streamLabel, 500))

		n, err := maintain.SweepTTL(ctx, s, now)
		requireNoError(t, err, "TTLSweep")
		requireEqual(t, n, expired, "items the sweep deleted")
		for _, it := range keep {
			got, err := s.ItemGet(ctx, tbl, tbl.KeyOf(it))
			requireNoError(t, err, "ItemGet")
			requireItem(t, got, it, "item kept by the sweep")
		}
		got, err := s.ItemGet(ctx, other, attr.Item{"pk": attr.Str("x")})
		requireNoError(t, err, "ItemGet")
		requireTrue(t, got != nil, "the sweep deleted an item of a table without TTL")
		got, err = s.ItemGet(ctx, tbl, attr.Item{"pk": attr.Str("old0")})
		requireNoError(t, err, "ItemGet")
		requireTrue(t, got == nil, "an expired item survived the sweep")
		page, err := s.ItemQuery(ctx, tbl, store.QueryInput{Index: &tbl.Indexes[0], Hash: attr.Str("g"), Forward: true, Limit: 1000})
		requireNoError(t, err, "ItemQuery index")
		requireEqual(t, len(page), len(keep), "index rows after the sweep")

		recs := streamAll(ctx, t, st, tbl, streamLabel, 500)[before:]
		requireEqual(t, len(recs), expired, "stream records of the sweep")
		for _, r := range recs {
			requireTrue(t, r.EventName == "REMOVE" && r.TTL && r.OldImage != nil && r.NewImage == nil,
				"sweep record: %s ttl=%v", r.EventName, r.TTL)
		}
		// A second pass finds nothing; an item updated to a future TTL is
		// not deleted.
		n, err = maintain.SweepTTL(ctx, s, now)
		requireNoError(t, err, "TTLSweep again")
		requireEqual(t, n, 0, "items the second sweep deleted")
		n, err = maintain.SweepTTL(ctx, s, now.Add(2*time.Hour))
		requireNoError(t, err, "TTLSweep later")
		requireEqual(t, n, 1, "items a later sweep deleted (future)")
	})

	// The table changes between the sweeper's read of it and its deletes
	// (here: a tag added while it lists the expired keys). The pass does
	// not fail: it deletes the items, or leaves them to the next pass where
	// the store refuses the description it read (ErrStaleTable), and the
	// next pass, on a fresh description, deletes them.
	t.Run("TTL/TableChangesDuringSweep", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := newTable("ttl-changing", key("pk", attr.TypeS), nil)
		tbl.Options = map[string][]byte{}
		tbl.Options[store.OptionTTL], _ = json.Marshal(map[string]any{"enabled": true, "attributeName": "exp"})
		createTable(ctx, t, s, tbl)
		now := time.Now()
		var keys []attr.Item
		for i := range 3 {
			it := attr.Item{"pk": attr.Str("old" + strconv.Itoa(i)), "exp": attr.Num(strconv.FormatInt(now.Unix()-60, 10))}
			put(ctx, t, s, tbl, it)
			keys = append(keys, tbl.KeyOf(it))
		}
		cs := &changingStore{Store: s}
		n, err := maintain.SweepTTL(ctx, cs, now)
		requireNoError(t, err, "SweepTTL of a table changing under it")
		requireTrue(t, cs.changed, "the sweep listed no expired keys")
		more, err := maintain.SweepTTL(ctx, s, now)
		requireNoError(t, err, "SweepTTL again")
		requireEqual(t, n+more, len(keys), "items deleted by the two passes")
		for _, k := range keys {
			got, err := s.ItemGet(ctx, tbl, k)
			requireNoError(t, err, "ItemGet")
			requireTrue(t, got == nil, "an expired item survived the sweeps: %s", show(got))
		}
	})
}

// changingStore is a store whose ItemExpiredKeys changes the table (a tag
// added, a new catalog version) the first time it is called, before it
// lists: the TTL sweeper then deletes through a description that is out of
// date.
type changingStore struct {
	store.Store
	changed bool
}

func (c *changingStore) ItemExpiredKeys(ctx context.Context, t *store.Table, name string, now time.Time, limit int) ([]attr.Item, error) {
	if !c.changed {
		c.changed = true
		if _, err := c.TableUpdate(ctx, t.Name, func(t *store.Table) error {
			t.Options["tags"] = []byte(`[{"Key":"k","Value":"v"}]`)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return c.Store.ItemExpiredKeys(ctx, t, name, now, limit)
}
