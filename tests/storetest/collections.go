package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/maintain"
)

// Collections is what ExerciseCollections needs of a store.
type Collections struct {
	// New returns a fresh, empty store whose item collection limit is
	// limit bytes (0: the service's 10 GB), closed in t.Cleanup.
	New func(t *testing.T, limit int64) store.Store
	// Counters returns how many collection counters s keeps for table id,
	// and with forget deletes them, as a database from before the counters
	// has none: the store must size such a collection on its first write.
	// Nil when the test cannot reach the store's database (SQLite in
	// memory): the tests that need it are not run.
	Counters func(t *testing.T, s store.Store, tableID int64, forget bool) int
}

// ExerciseCollections runs the item collection tests (store/collections.go):
// every write path keeps each collection's size, and refuses, writing
// nothing, exactly the writes that would take it past the limit, also
// under a race of writers; a collection without a counter is sized on its
// first write, also under a race; a deleted table's counters go with it.
func ExerciseCollections(ctx context.Context, t *testing.T, c Collections) {
	t.Helper()
	t.Run("Collections", func(t *testing.T) {
		exerciseCollections(ctx, t, c.New)
		if c.Counters != nil {
			exerciseCounters(ctx, t, c)
		}
	})
}

// collTable is a table keyed (pk, sk) with two local indexes, by-l on lsk
// (KEYS_ONLY) and by-m on m (a Number, INCLUDE v), and a global index on g,
// whose entries are not part of the collections.
func collTable(name string) *store.Table {
	return newTable(name, key("pk", attr.TypeS), rkey("sk", attr.TypeS),
		store.Index{Name: "by-l", Hash: key("pk", attr.TypeS), Range: rkey("lsk", attr.TypeS),
			Projection: store.Projection{Type: "KEYS_ONLY"}},
		store.Index{Name: "by-m", Hash: key("pk", attr.TypeS), Range: rkey("m", attr.TypeN),
			Projection: store.Projection{Type: "INCLUDE", NonKeyAttributes: []string{"v"}}},
		store.Index{Name: "by-g", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"}})
}

// entrySize is what it adds to its collection in collTable, computed here
// from the service's rule rather than by store.CollectionEntrySize: the
// item, and each local index entry (its projected attributes) plus 100.
func entrySize(it attr.Item) int64 {
	n := int64(it.Size())
	keys := attr.Item{"pk": it["pk"], "sk": it["sk"]}
	if v, ok := it["lsk"]; ok && v.T == attr.TypeS {
		e := keys.Clone()
		e["lsk"] = v
		n += int64(e.Size()) + 100
	}
	if v, ok := it["m"]; ok && v.T == attr.TypeN {
		e := keys.Clone()
		e["m"] = v
		if x, ok := it["v"]; ok {
			e["v"] = x
		}
		n += int64(e.Size()) + 100
	}
	return n
}

// collItem is an item of collTable: partition p, sort key s, and the
// attributes of extra, as name/value pairs (a string value, or a number
// when it is an int).
func collItem(p, s string, extra ...any) attr.Item {
	it := attr.Item{"pk": attr.Str(p), "sk": attr.Str(s)}
	for i := 0; i+1 < len(extra); i += 2 {
		switch v := extra[i+1].(type) {
		case int:
			it[extra[i].(string)] = attr.Num(fmt.Sprint(v))
		default:
			it[extra[i].(string)] = attr.Str(fmt.Sprint(v))
		}
	}
	return it
}

func collKey(p, s string) attr.Item { return attr.Item{"pk": attr.Str(p), "sk": attr.Str(s)} }

// requireCollectionSize checks the store's size of collection p against want.
func requireCollectionSize(ctx context.Context, t testing.TB, s store.Store, tbl *store.Table, p string, want int64, what string) {
	t.Helper()
	got, err := s.ItemCollectionSize(ctx, tbl, attr.Str(p))
	requireNoError(t, err, what+": ItemCollectionSize "+p)
	requireEqual(t, got, want, what+": size of collection "+p)
}

// requireCollectionFull checks that err refuses the writes numbered want.
func requireCollectionFull(t testing.TB, err error, want []int, what string) {
	t.Helper()
	requireErrorIs(t, err, store.ErrCollectionFull, what)
	var full *store.CollectionFullError
	requireTrue(t, errors.As(err, &full), "%s: %v is not a *store.CollectionFullError", what, err)
	requireTrue(t, slices.Equal(full.Writes, want), "%s: refused writes %v, want %v", what, full.Writes, want)
}

// collModel is the expected items of collTable, by partition and sort key.
type collModel map[string]map[string]attr.Item

func (m collModel) set(it attr.Item) {
	p := it["pk"].S
	if m[p] == nil {
		m[p] = map[string]attr.Item{}
	}
	m[p][it["sk"].S] = it.Clone()
}

func (m collModel) del(p, s string) { delete(m[p], s) }

func (m collModel) size(p string) int64 {
	var n int64
	for _, it := range m[p] {
		n += entrySize(it)
	}
	return n
}

func exerciseCollections(ctx context.Context, t *testing.T, newStore func(t *testing.T, limit int64) store.Store) {
	// Every write path keeps the counters: ItemWrite, ItemPut, ItemRemove,
	// ItemWriteMany, ItemTransact, ItemTransactToken and the TTL sweeper's
	// deletes; replacements that enter and leave the local indexes, deletes
	// of absent items, condition checks.
	t.Run("ItemCollectionSize/Writes", func(t *testing.T) {
		t.Parallel()
		s := newStore(t, 0)
		tbl := createTable(ctx, t, s, collTable("coll_writes"))
		m := collModel{}
		check := func(what string) {
			t.Helper()
			for _, p := range []string{"a", "b"} {
				requireCollectionSize(ctx, t, s, tbl, p, m.size(p), what)
			}
		}
		check("empty")

		it := collItem("a", "1", "lsk", "x", "g", "g1", "v", strings.Repeat("v", 50))
		put(ctx, t, s, tbl, it)
		m.set(it)
		check("ItemWrite insert")

		it = collItem("a", "2", "m", 7, "v", "in by-m")
		_, err := s.ItemPut(ctx, tbl, it)
		requireNoError(t, err, "ItemPut")
		m.set(it)
		check("ItemPut insert")

		it = collItem("a", "1", "other", strings.Repeat("o", 300)) // leaves by-l
		_, err = s.ItemPut(ctx, tbl, it)
		requireNoError(t, err, "ItemPut replace")
		m.set(it)
		check("ItemPut replace")

		_, err = s.ItemRemove(ctx, tbl, collKey("a", "2"))
		requireNoError(t, err, "ItemRemove")
		m.del("a", "2")
		check("ItemRemove")
		_, err = s.ItemRemove(ctx, tbl, collKey("a", "2"))
		requireNoError(t, err, "ItemRemove of an absent item")
		check("ItemRemove of an absent item")

		a3, b1 := collItem("a", "3", "lsk", "y", "m", 1), collItem("b", "1", "lsk", "z", "v", "vv")
		_, err = s.ItemWriteMany(ctx, []store.WriteOp{
			{Table: tbl, Key: collKey("a", "3"), Put: a3},
			{Table: tbl, Key: collKey("b", "1"), Put: b1},
			{Table: tbl, Key: collKey("a", "1")},
		})
		requireNoError(t, err, "ItemWriteMany")
		m.set(a3)
		m.set(b1)
		m.del("a", "1")
		check("ItemWriteMany")

		a4, b2 := collItem("a", "4", "m", 12345, "v", strings.Repeat("w", 20)), collItem("b", "2", "lsk", "q")
		targets := []store.TxTarget{{Table: tbl, Key: collKey("a", "4")}, {Table: tbl, Key: collKey("b", "1")},
			{Table: tbl, Key: collKey("a", "3")}, {Table: tbl, Key: collKey("b", "2")}}
		err = s.ItemTransact(ctx, targets, func([]attr.Item) ([]store.TxWrite, error) {
			return []store.TxWrite{{Put: a4}, {Delete: true}, {}, {Put: b2}}, nil
		})
		requireNoError(t, err, "ItemTransact")
		m.set(a4)
		m.del("b", "1")
		m.set(b2)
		check("ItemTransact")

		a5 := collItem("a", "5", "lsk", "t", "m", 5, "v", "token")
		tok := store.TxToken{Token: "coll-tok", Hash: []byte("h"), Now: time.Now(), TTL: time.Hour}
		for range 2 { // the second is a replay: nothing changes
			_, err = s.ItemTransactToken(ctx, []store.TxTarget{{Table: tbl, Key: collKey("a", "5")}}, tok,
				func([]attr.Item) ([]store.TxWrite, error) { return []store.TxWrite{{Put: a5}}, nil })
			requireNoError(t, err, "ItemTransactToken")
			m.set(a5)
			check("ItemTransactToken")
		}

		now := time.Now()
		exp := collItem("b", "ttl", "lsk", "e", "exp", int(now.Add(-time.Hour).Unix()))
		put(ctx, t, s, tbl, exp)
		m.set(exp)
		check("put of an expiring item")
		deleted, err := maintain.TTLDelete(ctx, s, tbl, collKey("b", "ttl"), "exp", now)
		requireNoError(t, err, "TTLDelete")
		requireTrue(t, deleted, "TTLDelete did not delete the expired item")
		m.del("b", "ttl")
		check("TTL delete")

		// A table without a local index has no collections to size.
		plain := createTable(ctx, t, s, newTable("coll_plain", key("pk", attr.TypeS), nil))
		put(ctx, t, s, plain, attr.Item{"pk": attr.Str("a"), "v": attr.Str(strings.Repeat("x", 100))})
		n, err := s.ItemCollectionSize(ctx, plain, attr.Str("a"))
		requireNoError(t, err, "ItemCollectionSize without a local index")
		requireEqual(t, n, int64(0), "size without a local index")
	})

	// The limit refuses exactly the write that would cross it, with
	// nothing written, through every write path; a write that reaches the
	// limit exactly passes; shrinking and deleting pass in a full
	// collection; a call is judged on its net change to each collection.
	t.Run("ItemWrite/Limit", func(t *testing.T) {
		t.Parallel()
		pad := func(n int) string { return strings.Repeat("p", n) }
		unit := collItem("full", "0", "lsk", "l", "v", pad(200))
		e := entrySize(unit)
		s := newStore(t, 3*e)
		tbl := createTable(ctx, t, s, collTable("coll_limit"))
		for i := range 3 {
			put(ctx, t, s, tbl, collItem("full", fmt.Sprint(i), "lsk", "l", "v", pad(200)))
		}
		requireCollectionSize(ctx, t, s, tbl, "full", 3*e, "three items: exactly the limit")

		absent := func(p, sk, what string) {
			t.Helper()
			got, err := s.ItemGet(ctx, tbl, collKey(p, sk))
			requireNoError(t, err, "ItemGet")
			requireTrue(t, got == nil, "%s: the refused item was written: %s", what, show(got))
		}
		one := collItem("full", "x", "lsk", "l") // a small item: still too much
		_, err := s.ItemWrite(ctx, tbl, collKey("full", "x"), func(attr.Item) (attr.Item, error) { return one, nil })
		requireCollectionFull(t, err, []int{0}, "ItemWrite past the limit")
		absent("full", "x", "ItemWrite")
		_, err = s.ItemPut(ctx, tbl, one)
		requireCollectionFull(t, err, []int{0}, "ItemPut past the limit")
		absent("full", "x", "ItemPut")
		_, err = s.ItemPut(ctx, tbl, collItem("full", "0", "lsk", "l", "v", pad(201)))
		requireCollectionFull(t, err, []int{0}, "a replacement one byte larger")

		other := collItem("other", "1", "lsk", "l")
		_, err = s.ItemWriteMany(ctx, []store.WriteOp{
			{Table: tbl, Key: collKey("other", "1"), Put: other},
			{Table: tbl, Key: collKey("full", "x"), Put: one},
		})
		requireCollectionFull(t, err, []int{1}, "ItemWriteMany past the limit")
		absent("other", "1", "ItemWriteMany")
		absent("full", "x", "ItemWriteMany")
		err = s.ItemTransact(ctx, []store.TxTarget{{Table: tbl, Key: collKey("full", "x")}, {Table: tbl, Key: collKey("other", "1")}},
			func([]attr.Item) ([]store.TxWrite, error) { return []store.TxWrite{{Put: one}, {Put: other}}, nil })
		requireCollectionFull(t, err, []int{0}, "ItemTransact past the limit")
		absent("other", "1", "ItemTransact")
		absent("full", "x", "ItemTransact")
		requireCollectionSize(ctx, t, s, tbl, "full", 3*e, "after the refusals")

		// Net change: shrink one item and add another that fits in what it
		// frees, in one transaction.
		small := collItem("full", "0", "lsk", "l")
		room := e - entrySize(small)
		fits := collItem("full", "y", "v", pad(1))
		fits["v"] = attr.Str(pad(int(room - entrySize(fits) + 1))) // entry exactly room
		requireEqual(t, entrySize(fits), room, "the item that fits")
		err = s.ItemTransact(ctx, []store.TxTarget{{Table: tbl, Key: collKey("full", "y")}, {Table: tbl, Key: collKey("full", "0")}},
			func([]attr.Item) ([]store.TxWrite, error) { return []store.TxWrite{{Put: fits}, {Put: small}}, nil })
		requireNoError(t, err, "ItemTransact that grows one item and shrinks another")
		requireCollectionSize(ctx, t, s, tbl, "full", 3*e, "after the net-zero transaction")

		// In a full collection, shrinking and deleting pass; other
		// collections take writes.
		put(ctx, t, s, tbl, collItem("full", "1", "lsk", "l"))
		_, err = s.ItemRemove(ctx, tbl, collKey("full", "2"))
		requireNoError(t, err, "delete in a full collection")
		put(ctx, t, s, tbl, other)
		requireCollectionSize(ctx, t, s, tbl, "other", entrySize(other), "another collection")
		requireCollectionSize(ctx, t, s, tbl, "full", 3*e-(e-entrySize(collItem("full", "1", "lsk", "l")))-e, "after shrinking and deleting")
	})

	// The race: writers put items of random sizes into one collection at
	// once. The writes the store accepted are exactly those that fit in the
	// order they took the collection's lock (the order their fn ran in,
	// fn being called under the lock), and the sizes add up.
	t.Run("ItemWrite/LimitRace", func(t *testing.T) {
		t.Parallel()
		const writers, each = 16, 12
		const limit = 60_000
		s := newStore(t, limit)
		tbl := createTable(ctx, t, s, collTable("coll_race"))
		put(ctx, t, s, tbl, collItem("hot", "seed", "lsk", "l")) // sizes the collection before the race
		seed := entrySize(collItem("hot", "seed", "lsk", "l"))

		type call struct {
			w, i int
			size int64
		}
		var mu sync.Mutex
		var calls []call // fn's calls, in the order they ran
		errs := make([][]error, writers)
		var wg sync.WaitGroup
		for w := range writers {
			errs[w] = make([]error, each)
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			wg.Go(func() {
				for i := range each {
					it := collItem("hot", fmt.Sprintf("w%02d-%02d", w, i), "lsk", "l", "v", strings.Repeat("r", 100+rng.IntN(900)))
					size := entrySize(it)
					_, errs[w][i] = s.ItemWrite(ctx, tbl, tbl.KeyOf(it), func(attr.Item) (attr.Item, error) {
						mu.Lock()
						calls = append(calls, call{w, i, size})
						mu.Unlock()
						return it, nil
					})
				}
			})
		}
		wg.Wait()

		// The last call of each write is the one that decided it.
		last := map[[2]int]int{}
		for n, c := range calls {
			last[[2]int{c.w, c.i}] = n
		}
		total, accepted, refused := seed, 0, 0
		for n, c := range calls {
			if last[[2]int{c.w, c.i}] != n {
				continue
			}
			err := errs[c.w][c.i]
			fits := total+c.size <= limit
			switch {
			case err == nil:
				requireTrue(t, fits, "write %d/%d (%d bytes) accepted at %d of %d bytes", c.w, c.i, c.size, total, limit)
				total += c.size
				accepted++
			case errors.Is(err, store.ErrCollectionFull):
				requireTrue(t, !fits, "write %d/%d (%d bytes) refused at %d of %d bytes", c.w, c.i, c.size, total, limit)
				refused++
			default:
				t.Fatalf("write %d/%d: unexpected error %v", c.w, c.i, err)
			}
		}
		requireEqual(t, accepted+refused, writers*each, "writes decided")
		requireTrue(t, refused > 0 && accepted > 0, "the race filled the collection: %d accepted, %d refused", accepted, refused)
		requireCollectionSize(ctx, t, s, tbl, "hot", total, "after the race")
		items, err := s.ItemQuery(ctx, tbl, store.QueryInput{Hash: attr.Str("hot"), Forward: true})
		requireNoError(t, err, "ItemQuery")
		var stored int64
		for _, it := range items {
			stored += entrySize(it)
		}
		requireEqual(t, len(items), accepted+1, "items stored")
		requireEqual(t, stored, total, "the stored items' sizes")
		t.Logf("limit %d bytes: %d writes accepted (%d bytes with the seed item), %d refused", limit, accepted, total, refused)
	})
}

func exerciseCounters(ctx context.Context, t *testing.T, c Collections) {
	// A collection written before the store kept counters is sized on its
	// first write, once, also when that first write is a race of writers;
	// the sizes then add up.
	t.Run("ItemWrite/SizedOnFirstWrite", func(t *testing.T) {
		t.Parallel()
		s := c.New(t, 0)
		tbl := createTable(ctx, t, s, collTable("coll_upgrade"))
		for i := range 40 {
			put(ctx, t, s, tbl, collItem("old", fmt.Sprintf("i%02d", i), "lsk", "l", "m", i, "v", strings.Repeat("o", i*10)))
		}
		put(ctx, t, s, tbl, collItem("other", "1", "lsk", "l"))
		requireEqual(t, c.Counters(t, s, tbl.ID, true), 2, "counters before the upgrade")
		requireEqual(t, c.Counters(t, s, tbl.ID, false), 0, "counters after forgetting them")

		const writers = 16
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for w := range writers {
			wg.Go(func() {
				it := collItem("old", fmt.Sprintf("new%02d", w), "lsk", "n", "v", strings.Repeat("n", w*7))
				if w%2 == 0 {
					_, errs[w] = s.ItemPut(ctx, tbl, it)
					return
				}
				errs[w] = s.ItemTransact(ctx, []store.TxTarget{{Table: tbl, Key: tbl.KeyOf(it)}},
					func([]attr.Item) ([]store.TxWrite, error) { return []store.TxWrite{{Put: it}}, nil })
			})
		}
		wg.Wait()
		for w, err := range errs {
			requireNoError(t, err, fmt.Sprintf("writer %d", w))
		}
		items, err := s.ItemQuery(ctx, tbl, store.QueryInput{Hash: attr.Str("old"), Forward: true})
		requireNoError(t, err, "ItemQuery")
		requireEqual(t, len(items), 40+writers, "items")
		var want int64
		for _, it := range items {
			want += entrySize(it)
		}
		requireEqual(t, c.Counters(t, s, tbl.ID, false), 1, "counters after the first writes")
		requireCollectionSize(ctx, t, s, tbl, "old", want, "after the first writes")
		// ItemCollectionSize sizes a collection never written since.
		requireCollectionSize(ctx, t, s, tbl, "other", entrySize(collItem("other", "1", "lsk", "l")), "an unwritten collection")
	})

	// TableDelete takes the table's counters with it.
	t.Run("TableDelete/Counters", func(t *testing.T) {
		t.Parallel()
		s := c.New(t, 0)
		tbl := createTable(ctx, t, s, collTable("coll_drop"))
		put(ctx, t, s, tbl, collItem("a", "1", "lsk", "l"))
		put(ctx, t, s, tbl, collItem("b", "1", "lsk", "l"))
		requireEqual(t, c.Counters(t, s, tbl.ID, false), 2, "counters")
		_, err := s.TableDelete(ctx, tbl.Name)
		requireNoError(t, err, "TableDelete")
		deadline := time.Now().Add(10 * time.Second) // a drop may finish in the background
		for c.Counters(t, s, tbl.ID, false) != 0 {
			requireTrue(t, time.Now().Before(deadline), "the deleted table's counters are still there")
			time.Sleep(20 * time.Millisecond)
		}
	})
}
