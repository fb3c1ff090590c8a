package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// exerciseDeletedTables checks the deleted tables a store keeps for their
// streams: TableDelete records a table with a stream label, the lookups
// find it by name and label, its records stay readable, the trim forgets it.
func exerciseDeletedTables(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run("DeletedTableGet", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		st := s
		tbl := withStream(newTable("gone", key("pk", attr.TypeS), nil), true, streamLabel)
		spec := store.StreamSpecOf(tbl)
		spec.Previous = []string{"2025-01-01T00:00:00.000"}
		tbl.Options[store.OptionStream], _ = json.Marshal(spec)
		createTable(ctx, t, s, tbl)
		put(ctx, t, s, tbl, attr.Item{"pk": attr.Str("a")})
		createTable(ctx, t, s, newTable("plain", key("pk", attr.TypeS), nil))

		before := time.Now()
		_, err := s.TableDelete(ctx, "gone")
		requireNoError(t, err, "TableDelete gone")
		_, err = s.TableDelete(ctx, "plain")
		requireNoError(t, err, "TableDelete plain")

		for _, label := range []string{streamLabel, "2025-01-01T00:00:00.000"} {
			dt, err := st.DeletedTableGet(ctx, "gone", label)
			requireNoError(t, err, "DeletedTableGet "+label)
			requireEqual(t, dt.Table.ID, tbl.ID, "DeletedTableGet: table ID")
			requireEqual(t, store.StreamSpecOf(dt.Table).Label, streamLabel, "DeletedTableGet: stream spec")
			requireTrue(t, !dt.DeletedAt.Before(before.Add(-time.Minute)) && time.Since(dt.DeletedAt) < time.Hour,
				"DeletedTableGet: deleted at %v", dt.DeletedAt)
		}
		_, err = st.DeletedTableGet(ctx, "gone", "2020-01-01T00:00:00.000")
		requireErrorIs(t, err, store.ErrTableNotFound, "DeletedTableGet of another label")
		_, err = st.DeletedTableGet(ctx, "plain", "")
		requireErrorIs(t, err, store.ErrTableNotFound, "DeletedTableGet of a table without stream")

		// The records outlive the table.
		recs, err := st.StreamRead(ctx, tbl.ID, streamLabel, 0, 10)
		requireNoError(t, err, "StreamRead after TableDelete")
		requireEqual(t, len(recs), 1, "records after TableDelete")

		// A new table of the name, deleted too: each label finds its own.
		again := createTable(ctx, t, s, withStream(newTable("gone", key("pk", attr.TypeS), nil), true, "2027-01-01T00:00:00.000"))
		_, err = s.TableDelete(ctx, "gone")
		requireNoError(t, err, "TableDelete gone again")
		dt, err := st.DeletedTableGet(ctx, "gone", "2027-01-01T00:00:00.000")
		requireNoError(t, err, "DeletedTableGet new label")
		requireEqual(t, dt.Table.ID, again.ID, "DeletedTableGet new label: table ID")
		dt, err = st.DeletedTableGet(ctx, "gone", streamLabel)
		requireNoError(t, err, "DeletedTableGet old label")
		requireEqual(t, dt.Table.ID, tbl.ID, "DeletedTableGet old label: table ID")
	})

	t.Run("DeletedTableList", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		st := s
		for _, n := range []string{"b", "a", "b"} {
			createTable(ctx, t, s, withStream(newTable(n, key("pk", attr.TypeS), nil), true, streamLabel))
			_, err := s.TableDelete(ctx, n)
			requireNoError(t, err, "TableDelete "+n)
		}
		all, err := st.DeletedTableList(ctx, "")
		requireNoError(t, err, "DeletedTableList")
		requireEqual(t, len(all), 3, "deleted tables")
		requireTrue(t, all[0].Table.Name == "a" && all[1].Table.Name == "b" && all[2].Table.Name == "b",
			"DeletedTableList order: %s, %s, %s", all[0].Table.Name, all[1].Table.Name, all[2].Table.Name)
		requireTrue(t, all[1].Table.ID > all[2].Table.ID, "DeletedTableList: latest deletion first")
		bs, err := st.DeletedTableList(ctx, "b")
		requireNoError(t, err, "DeletedTableList b")
		requireEqual(t, len(bs), 2, "deleted tables named b")
		none, err := st.DeletedTableList(ctx, "c")
		requireNoError(t, err, "DeletedTableList c")
		requireEqual(t, len(none), 0, "deleted tables named c")

		requireNoError(t, st.StreamTrim(ctx, time.Now().Add(-time.Hour)), "StreamTrim past")
		all, err = st.DeletedTableList(ctx, "")
		requireNoError(t, err, "DeletedTableList after a trim of older ones")
		requireEqual(t, len(all), 3, "deleted tables after a trim of older ones")
		requireNoError(t, st.StreamTrim(ctx, time.Now().Add(time.Hour)), "StreamTrim future")
		all, err = st.DeletedTableList(ctx, "")
		requireNoError(t, err, "DeletedTableList after a trim of all")
		requireEqual(t, len(all), 0, "deleted tables after a trim of all")
	})
}
