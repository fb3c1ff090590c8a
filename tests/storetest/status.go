package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// Admin.Status: what `dynamopg status` and GET /metrics report.
func exerciseStatus(ctx context.Context, t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Run("Status", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		status := func(in store.StatusInput) *store.Status {
			t.Helper()
			st, err := s.Status(ctx, in)
			requireNoError(t, err, "Status")
			return st
		}
		st := status(store.StatusInput{Tables: true, MaxBuilds: 10})
		requireTrue(t, st.Engine != "" && len(st.Tables) == 0 && len(st.Queue) == 0 && len(st.Builds) == 0 && st.StreamRecords == 0,
			"a fresh store: %+v", st)

		plain := createTable(ctx, t, s, withStream(newTable("st_b", key("pk", attr.TypeS), nil), true, streamLabel))
		byg := asyncIndex("byg", key("g", attr.TypeS), nil, store.Projection{Type: "KEYS_ONLY"})
		byg.Status = store.StatusActive
		q := createTable(ctx, t, s, newTable("st_a", key("pk", attr.TypeS), rkey("sk", attr.TypeN), byg,
			store.Index{Name: "lsi", Hash: key("pk", attr.TypeS), Range: rkey("l", attr.TypeN), Projection: store.Projection{Type: "ALL"},
				Status: store.StatusActive}))
		for i := range 5 {
			put(ctx, t, s, q, attr.Item{"pk": attr.Str("p"), "sk": attr.Num(itoa(i)), "g": attr.Str("x")})
		}
		for i := range 3 {
			put(ctx, t, s, plain, attr.Item{"pk": attr.Str(itoa(i))})
		}
		queueWait(ctx, t, s, q)

		st = status(store.StatusInput{Tables: true, MaxBuilds: 10})
		names := make([]string, len(st.Tables))
		for i, ts := range st.Tables {
			names[i] = ts.Name
		}
		requireTrue(t, slices.Equal(names, []string{"st_a", "st_b"}), "tables %v, want st_a, st_b in name order", names)
		a := st.Tables[0]
		requireTrue(t, a.Status == store.StatusActive && len(a.Indexes) == 2, "table st_a: %+v", a)
		kinds := map[string]store.IndexStatus{}
		for _, ix := range a.Indexes {
			kinds[ix.Name] = ix
		}
		requireTrue(t, kinds["byg"].Kind == "GSI" && kinds["byg"].Propagation == store.PropagationAsync && kinds["byg"].Status == store.StatusActive,
			"index byg: %+v", kinds["byg"])
		requireTrue(t, kinds["lsi"].Kind == "LSI" && kinds["lsi"].Propagation == store.PropagationSync, "index lsi: %+v", kinds["lsi"])
		if !a.Estimated {
			requireTrue(t, a.Items == 5 && st.Tables[1].Items == 3 && kinds["byg"].Rows == 5, "exact counts: %+v", st.Tables)
		} else {
			requireTrue(t, a.Items >= -1 && kinds["byg"].Rows >= -1, "estimates: %+v", st.Tables)
		}
		requireEqual(t, st.StreamRecords, int64(3), "stream records written")
		var depth int64
		for _, x := range st.Queue {
			depth += x.Depth
		}
		requireEqual(t, depth, int64(0), "queue depth after QueueWait")

		// The trim does not lower the count of records written.
		requireNoError(t, s.StreamTrim(ctx, time.Now().Add(time.Hour)), "StreamTrim")
		requireEqual(t, status(store.StatusInput{}).StreamRecords, int64(3), "stream records written after a trim")

		// A build: its rows, active once done; Tables left out when not asked.
		addIndex(ctx, t, s, "st_b", store.Index{Name: "gh", Hash: key("pk", attr.TypeS), Projection: store.Projection{Type: "ALL"}})
		requireNoError(t, s.IndexBuildStart(ctx, plain, "gh"), "IndexBuildStart")
		buildWait(ctx, t, s, plain, "gh")
		// The catalog says ACTIVE first; a store that tracks builds in
		// memory (SQLite) records the end just after.
		deadline := time.Now().Add(5 * time.Second)
		for st = status(store.StatusInput{MaxBuilds: 10}); len(st.Builds) == 1 && !st.Builds[0].Finished() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
			st = status(store.StatusInput{MaxBuilds: 10})
		}
		requireTrue(t, len(st.Tables) == 0, "tables listed without Tables: %+v", st.Tables)
		requireTrue(t, len(st.Builds) == 1, "builds = %+v, want one", st.Builds)
		b := st.Builds[0]
		requireTrue(t, b.Table == "st_b" && b.Index == "gh" && b.Phase == "active" && b.RowsDone == 3 && b.Finished(),
			"build = %+v, want st_b.gh active with 3 rows done", b)
		requireTrue(t, len(status(store.StatusInput{MaxBuilds: 0}).Builds) == 0, "builds listed with MaxBuilds 0")
	})
}
