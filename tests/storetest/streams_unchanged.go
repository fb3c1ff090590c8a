package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/maintain"
)

// exerciseStreamUnchanged checks that a write leaving an item as it was
// writes no stream record, through every write path, the images compared
// as the service compares them (store.StreamChanged): numbers by value,
// sets whatever their members' order; a real change, a delete and a TTL
// deletion always write one.
func exerciseStreamUnchanged(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run("ItemWrite/Unchanged", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		tbl := createTable(ctx, t, s, withStream(newTable("st_same", key("pk", attr.TypeS), nil), true, streamLabel))
		k := attr.Item{"pk": attr.Str("a")}
		v1 := attr.Item{"pk": attr.Str("a"), "n": num(t, "1.50"), "list": attr.Value{T: attr.TypeL, L: []attr.Value{attr.Str("x"), num(t, "2")}},
			"m":  attr.Value{T: attr.TypeM, M: attr.Item{"ss": {T: attr.TypeSS, Strs: []string{"b", "a"}}, "t": attr.Bool(true)}},
			"ns": {T: attr.TypeNS, Strs: []string{"10", "-1", "2.5"}}, "bs": {T: attr.TypeBS, Bins: [][]byte{{2}, {1, 0}}}}
		// v1 again, its sets in other orders: the same item.
		same := v1.Clone()
		same["ns"] = attr.Value{T: attr.TypeNS, Strs: []string{"2.5", "10", "-1"}}
		same["bs"] = attr.Value{T: attr.TypeBS, Bins: [][]byte{{1, 0}, {2}}}
		same["m"] = attr.Value{T: attr.TypeM, M: attr.Item{"t": attr.Bool(true), "ss": {T: attr.TypeSS, Strs: []string{"a", "b"}}}}
		// A list's order is its value: a change.
		swapped := v1.Clone()
		swapped["list"] = attr.Value{T: attr.TypeL, L: []attr.Value{num(t, "2"), attr.Str("x")}}

		put(ctx, t, s, tbl, v1)             // INSERT
		put(ctx, t, s, tbl, v1)             // ItemWrite: unchanged
		_, err := s.ItemPut(ctx, tbl, same) // ItemPut: unchanged
		requireNoError(t, err, "ItemPut of the same item")
		_, err = s.ItemWriteMany(ctx, []store.WriteOp{{Table: tbl, Key: k, Put: same}}) // unchanged
		requireNoError(t, err, "ItemWriteMany of the same item")
		err = s.ItemTransact(ctx, []store.TxTarget{{Table: tbl, Key: k}},
			func(olds []attr.Item) ([]store.TxWrite, error) { return []store.TxWrite{{Put: olds[0]}}, nil }) // unchanged
		requireNoError(t, err, "ItemTransact writing the item back")
		// An update that REMOVEs an absent attribute, or SETs the value there.
		_, err = s.ItemWrite(ctx, tbl, k, func(old attr.Item) (attr.Item, error) {
			nu := old.Clone()
			delete(nu, "absent")
			nu["n"] = num(t, "1.5")
			return nu, nil
		})
		requireNoError(t, err, "ItemWrite of the same values")
		_, err = s.ItemPut(ctx, tbl, swapped) // MODIFY
		requireNoError(t, err, "ItemPut of a change")
		put(ctx, t, s, tbl, swapped)       // unchanged
		_, err = s.ItemRemove(ctx, tbl, k) // REMOVE
		requireNoError(t, err, "ItemRemove")
		_, err = s.ItemRemove(ctx, tbl, k) // absent: nothing
		requireNoError(t, err, "ItemRemove of an absent item")

		// A TTL deletion always records, even right after a no-op write.
		now := time.Now()
		exp := attr.Item{"pk": attr.Str("e"), "exp": num(t, itoa(int(now.Add(-time.Minute).Unix())))}
		put(ctx, t, s, tbl, exp)                                                    // INSERT
		put(ctx, t, s, tbl, exp)                                                    // unchanged
		deleted, err := maintain.TTLDelete(ctx, s, tbl, tbl.KeyOf(exp), "exp", now) // REMOVE (TTL)
		requireNoError(t, err, "TTLDelete")
		requireTrue(t, deleted, "TTLDelete did not delete")

		recs := streamAll(ctx, t, s, tbl, streamLabel, 10)
		var events []string
		for _, r := range recs {
			events = append(events, r.EventName)
		}
		requireEqual(t, len(recs), 5, fmt.Sprintf("records (events %v)", events))
		requireRecord(t, recs[0], "INSERT", k, nil, v1, "insert")
		requireRecord(t, recs[1], "MODIFY", k, v1, swapped, "the one change")
		requireRecord(t, recs[2], "REMOVE", k, swapped, nil, "delete")
		requireRecord(t, recs[3], "INSERT", tbl.KeyOf(exp), nil, exp, "insert of the expiring item")
		requireRecord(t, recs[4], "REMOVE", tbl.KeyOf(exp), exp, nil, "TTL deletion")
		requireTrue(t, recs[4].TTL && !recs[2].TTL, "TTL marks: %v %v", recs[4].TTL, recs[2].TTL)
	})
}
