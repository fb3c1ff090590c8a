package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

func exerciseTables(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run("TableCreate", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := createTable(ctx, t, s, newTable("tbl-a", key("pk", attr.TypeS), rkey("sk", attr.TypeN),
			store.Index{Name: "gsi", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"}},
			store.Index{Name: "lsi", Hash: key("pk", attr.TypeS), Range: rkey("l", attr.TypeB), Projection: store.Projection{Type: "KEYS_ONLY"}},
		))
		b := createTable(ctx, t, s, newTable("tbl-b", key("pk", attr.TypeB), nil))
		requireTrue(t, a.ID != b.ID, "TableCreate: tables share ID %d", a.ID)
		requireTrue(t, a.Indexes[0].ID != 0 && a.Indexes[1].ID != 0 && a.Indexes[0].ID != a.Indexes[1].ID,
			"TableCreate: index IDs %d, %d", a.Indexes[0].ID, a.Indexes[1].ID)

		dup := newTable("tbl-a", key("x", attr.TypeS), nil)
		err := s.TableCreate(ctx, dup)
		requireErrorIs(t, err, store.ErrTableExists, "TableCreate of a taken name")
		requireEqual(t, dup.ID, int64(0), "ID assigned by a failed TableCreate")
		got, err := s.TableGet(ctx, "tbl-a")
		requireNoError(t, err, "TableGet")
		requireEqual(t, got.Hash.Name, "pk", "the first table survives the failed create")
	})

	t.Run("TableGet", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		want := newTable("tbl.get_1", key("pk", attr.TypeS), rkey("sk", attr.TypeB),
			store.Index{Name: "by-g", Global: true, Hash: key("g", attr.TypeN), Range: rkey("h", attr.TypeS),
				Projection: store.Projection{Type: "INCLUDE", NonKeyAttributes: []string{"x", "y"}},
				Status:     store.StatusActive, Throughput: store.Throughput{Read: 5, Write: 7},
				OnDemand: &store.Capacity{Read: 100, Write: -1}, Warm: store.Capacity{Read: 13000, Write: 4500}})
		want.Options = map[string][]byte{"tags": []byte(`[{"Key":"k","Value":"v"}]`)}
		createTable(ctx, t, s, want)
		got, err := s.TableGet(ctx, "tbl.get_1")
		requireNoError(t, err, "TableGet")
		requireEqual(t, got.ID, want.ID, "ID")
		requireEqual(t, got.Name, want.Name, "Name")
		requireEqual(t, got.TableID, want.TableID, "TableID")
		requireEqual(t, got.Status, want.Status, "Status")
		requireTrue(t, got.CreatedAt.Equal(want.CreatedAt), "CreatedAt %v, want %v", got.CreatedAt, want.CreatedAt)
		requireEqual(t, got.Hash, want.Hash, "Hash")
		requireTrue(t, got.Range != nil && *got.Range == *want.Range, "Range %v", got.Range)
		requireTrue(t, slices.Equal(got.AttributeDefinitions, want.AttributeDefinitions), "AttributeDefinitions %v", got.AttributeDefinitions)
		requireEqual(t, got.BillingMode, want.BillingMode, "BillingMode")
		requireEqual(t, len(got.Indexes), 1, "Indexes")
		gi, wi := got.Indexes[0], want.Indexes[0]
		requireEqual(t, gi.ID, wi.ID, "Index ID")
		requireEqual(t, gi.Name, wi.Name, "Index Name")
		requireEqual(t, gi.Global, true, "Index Global")
		requireEqual(t, gi.Hash, wi.Hash, "Index Hash")
		requireTrue(t, gi.Range != nil && *gi.Range == *wi.Range, "Index Range %v", gi.Range)
		requireEqual(t, gi.Projection.Type, "INCLUDE", "Projection")
		requireTrue(t, slices.Equal(gi.Projection.NonKeyAttributes, wi.Projection.NonKeyAttributes), "NonKeyAttributes %v", gi.Projection.NonKeyAttributes)
		requireEqual(t, gi.Throughput.Write, int64(7), "Index Throughput")
		requireTrue(t, gi.OnDemand != nil && *gi.OnDemand == *wi.OnDemand, "Index OnDemand %v", gi.OnDemand)
		requireEqual(t, gi.Warm, wi.Warm, "Index Warm")
		requireEqual(t, string(got.Options["tags"]), string(want.Options["tags"]), "Options")

		_, err = s.TableGet(ctx, "absent")
		requireErrorIs(t, err, store.ErrTableNotFound, "TableGet absent")
	})

	t.Run("TableList", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		names := []string{"b", "a_1", "A-1", "a.1", "B9", "aaa", "a-1", "Z", "0x", "zz"}
		for _, n := range names {
			createTable(ctx, t, s, newTable(n, key("pk", attr.TypeS), nil))
		}
		want := slices.Clone(names)
		slices.Sort(want) // byte order
		all, err := s.TableList(ctx, "", 100)
		requireNoError(t, err, "TableList")
		requireTrue(t, slices.Equal(all, want), "TableList = %v, want %v", all, want)
		for size := 1; size <= len(names)+1; size++ {
			var got []string
			after := ""
			for {
				page, err := s.TableList(ctx, after, size)
				requireNoError(t, err, "TableList page")
				requireTrue(t, len(page) <= size, "TableList page of %d with limit %d", len(page), size)
				got = append(got, page...)
				if len(page) < size {
					break
				}
				after = page[len(page)-1]
			}
			requireTrue(t, slices.Equal(got, want), "TableList pages of %d = %v, want %v", size, got, want)
		}
		page, err := s.TableList(ctx, "a_1", 2)
		requireNoError(t, err, "TableList after a name")
		requireTrue(t, slices.Equal(page, []string{"aaa", "b"}), "TableList after a_1 = %v", page)
		page, err = s.TableList(ctx, "zzz", 10)
		requireNoError(t, err, "TableList past the end")
		requireEqual(t, len(page), 0, "TableList past the end")
	})

	t.Run("TableUpdate", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("upd", key("pk", attr.TypeS), nil))
		m := newModel(tbl)
		for i := range 5 {
			m.put(ctx, t, s, attr.Item{"pk": attr.Str(string(rune('a' + i))), "g": attr.Str("x")})
		}

		errNo := errorf("refused")
		_, err := s.TableUpdate(ctx, "upd", func(t *store.Table) error {
			t.BillingMode = "PROVISIONED"
			return errNo
		})
		requireTrue(t, err == errNo, "TableUpdate: fn error returned as %v, want it unchanged", err)
		got, err := s.TableGet(ctx, "upd")
		requireNoError(t, err, "TableGet")
		requireEqual(t, got.BillingMode, "PAY_PER_REQUEST", "fn error changes nothing")

		out, err := s.TableUpdate(ctx, "upd", func(t *store.Table) error {
			t.BillingMode = "PROVISIONED"
			t.Throughput = store.Throughput{Read: 3, Write: 4}
			t.Status = store.StatusUpdating
			return nil
		})
		requireNoError(t, err, "TableUpdate")
		requireEqual(t, out.BillingMode, "PROVISIONED", "TableUpdate result")
		requireEqual(t, out.ID, tbl.ID, "TableUpdate keeps the ID")
		got, err = s.TableGet(ctx, "upd")
		requireNoError(t, err, "TableGet")
		requireEqual(t, got.Throughput.Write, int64(4), "TableUpdate persisted")
		requireEqual(t, got.Status, store.StatusUpdating, "TableUpdate persisted")

		// An index added by TableUpdate gets an ID, and writes maintain it.
		out, err = s.TableUpdate(ctx, "upd", func(t *store.Table) error {
			t.AttributeDefinitions = append(t.AttributeDefinitions, key("g", attr.TypeS))
			t.Indexes = append(t.Indexes, store.Index{Name: "new-gsi", Global: true, Hash: key("g", attr.TypeS),
				Projection: store.Projection{Type: "ALL"}, Status: store.StatusCreating, Backfilling: true})
			return nil
		})
		requireNoError(t, err, "TableUpdate adding an index")
		ix := out.Index("new-gsi")
		requireTrue(t, ix != nil && ix.ID != 0, "TableUpdate: added index has no ID: %+v", ix)
		// Replacing it by another of the same shape: a new index, new ID.
		first := ix.ID
		out, err = s.TableUpdate(ctx, "upd", func(t *store.Table) error {
			t.Indexes[0].Name, t.Indexes[0].ID = "new-gsi", 0
			return nil
		})
		requireNoError(t, err, "TableUpdate replacing an index")
		ix = out.Index("new-gsi")
		requireTrue(t, ix != nil && ix.ID != 0 && ix.ID != first, "TableUpdate: the replacing index has ID %d (the replaced one %d)", ix.ID, first)
		m.tbl = out
		m.put(ctx, t, s, attr.Item{"pk": attr.Str("new"), "g": attr.Str("y")})
		page, err := s.ItemQuery(ctx, out, store.QueryInput{Index: ix, Hash: attr.Str("y"), Forward: true})
		requireNoError(t, err, "ItemQuery of the added index")
		requireItems(t, page, m.query(store.QueryInput{Index: ix, Hash: attr.Str("y"), Forward: true}), "added index")

		// Removing it again: writes still work.
		out, err = s.TableUpdate(ctx, "upd", func(t *store.Table) error {
			t.Indexes = nil
			return nil
		})
		requireNoError(t, err, "TableUpdate removing an index")
		requireEqual(t, len(out.Indexes), 0, "indexes after removal")
		m.tbl = out
		m.put(ctx, t, s, attr.Item{"pk": attr.Str("newer"), "g": attr.Str("y")})
		// Through the stale description that still lists the index: the
		// write succeeds, or (a store that checks descriptions) is refused
		// with ErrStaleTable, writing nothing, and succeeds on a fresh one.
		newest := attr.Item{"pk": attr.Str("newest"), "g": attr.Str("y")}
		_, err = s.ItemWrite(ctx, tbl, tbl.KeyOf(newest), func(attr.Item) (attr.Item, error) { return newest.Clone(), nil })
		if errors.Is(err, store.ErrStaleTable) {
			got, gerr := s.ItemGet(ctx, out, tbl.KeyOf(newest))
			requireNoError(t, gerr, "ItemGet after a refused write")
			requireTrue(t, got == nil, "a write refused with ErrStaleTable wrote %v", got)
			fresh, gerr := s.TableGet(ctx, "upd")
			requireNoError(t, gerr, "TableGet")
			put(ctx, t, s, fresh, newest)
		} else {
			requireNoError(t, err, "ItemWrite through a stale description")
		}
		written, err := s.ItemGet(ctx, out, out.KeyOf(newest))
		requireNoError(t, err, "ItemGet")
		requireItem(t, written, newest, "the write through a stale description")

		_, err = s.TableUpdate(ctx, "absent", func(*store.Table) error { return nil })
		requireErrorIs(t, err, store.ErrTableNotFound, "TableUpdate absent")
	})

	t.Run("TableDelete", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("del", key("pk", attr.TypeS), rkey("sk", attr.TypeN),
			store.Index{Name: "gsi", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"}}))
		put(ctx, t, s, tbl, attr.Item{"pk": attr.Str("a"), "sk": num(t, "1"), "g": attr.Str("x")})
		other := createTable(ctx, t, s, newTable("other", key("pk", attr.TypeS), nil))
		put(ctx, t, s, other, attr.Item{"pk": attr.Str("a")})

		old, err := s.TableDelete(ctx, "del")
		requireNoError(t, err, "TableDelete")
		requireEqual(t, old.ID, tbl.ID, "TableDelete returns the description")
		requireEqual(t, len(old.Indexes), 1, "TableDelete returns the indexes")
		_, err = s.TableGet(ctx, "del")
		requireErrorIs(t, err, store.ErrTableNotFound, "TableGet after delete")
		_, err = s.TableDelete(ctx, "del")
		requireErrorIs(t, err, store.ErrTableNotFound, "TableDelete twice")
		names, err := s.TableList(ctx, "", 10)
		requireNoError(t, err, "TableList")
		requireTrue(t, slices.Equal(names, []string{"other"}), "TableList after delete = %v", names)

		requireGone(ctx, t, s, tbl)

		// A new table of the same name is not reachable through the old description.
		createTable(ctx, t, s, newTable("del", key("pk", attr.TypeS), rkey("sk", attr.TypeN),
			store.Index{Name: "gsi", Global: true, Hash: key("g", attr.TypeS), Projection: store.Projection{Type: "ALL"}}))
		requireGone(ctx, t, s, tbl)

		// The other table is untouched.
		it, err := s.ItemGet(ctx, other, attr.Item{"pk": attr.Str("a")})
		requireNoError(t, err, "ItemGet other table")
		requireTrue(t, it != nil, "other table lost its item")
	})

	t.Run("TableStats", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, newTable("stats", key("pk", attr.TypeS), nil))
		n, b, err := s.TableStats(ctx, tbl)
		requireNoError(t, err, "TableStats empty")
		requireTrue(t, n == 0 && b == 0, "TableStats empty = %d, %d", n, b)
		want := int64(0)
		for i := range 10 {
			it := attr.Item{"pk": attr.Str(string(rune('a' + i))), "v": attr.Str("payload"), "n": num(t, "12.5")}
			put(ctx, t, s, tbl, it)
			want += int64(it.Size())
		}
		del(ctx, t, s, tbl, attr.Item{"pk": attr.Str("a")})
		want -= int64(attr.Item{"pk": attr.Str("a"), "v": attr.Str("payload"), "n": num(t, "12.5")}.Size())
		n, b, err = s.TableStats(ctx, tbl)
		requireNoError(t, err, "TableStats")
		requireEqual(t, n, int64(9), "TableStats items")
		requireEqual(t, b, want, "TableStats bytes (sum of attr.Item.Size)")
	})
}

// requireGone checks that every item operation on a deleted table's
// description fails with ErrTableNotFound.
func requireGone(ctx context.Context, t *testing.T, s store.Store, tbl *store.Table) {
	t.Helper()
	k := attr.Item{tbl.Hash.Name: attr.Str("a")}
	if tbl.Range != nil {
		k[tbl.Range.Name] = num(t, "1")
	}
	_, err := s.ItemGet(ctx, tbl, k)
	requireErrorIs(t, err, store.ErrTableNotFound, "ItemGet on a deleted table")
	called := false
	_, err = s.ItemWrite(ctx, tbl, k, func(old attr.Item) (attr.Item, error) { called = true; return k, nil })
	requireErrorIs(t, err, store.ErrTableNotFound, "ItemWrite on a deleted table")
	requireTrue(t, !called, "ItemWrite on a deleted table called fn")
	_, err = s.ItemQuery(ctx, tbl, store.QueryInput{Hash: attr.Str("a"), Forward: true})
	requireErrorIs(t, err, store.ErrTableNotFound, "ItemQuery on a deleted table")
	_, err = s.ItemScan(ctx, tbl, store.ScanInput{TotalSegments: 1})
	requireErrorIs(t, err, store.ErrTableNotFound, "ItemScan on a deleted table")
	_, _, err = s.TableStats(ctx, tbl)
	requireErrorIs(t, err, store.ErrTableNotFound, "TableStats on a deleted table")
	for i := range tbl.Indexes {
		ix := &tbl.Indexes[i]
		_, err = s.ItemQuery(ctx, tbl, store.QueryInput{Index: ix, Hash: attr.Str("x"), Forward: true})
		requireErrorIs(t, err, store.ErrTableNotFound, "ItemQuery on a deleted table's index")
		_, err = s.ItemScan(ctx, tbl, store.ScanInput{Index: ix, TotalSegments: 1})
		requireErrorIs(t, err, store.ErrTableNotFound, "ItemScan on a deleted table's index")
	}
}
