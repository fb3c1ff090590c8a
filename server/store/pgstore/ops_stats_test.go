package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
)

func opsStats(t *testing.T, s *pgstore.Store) *store.OpsStats {
	t.Helper()
	st, err := s.OpsStats(context.Background())
	if err != nil {
		t.Fatalf("OpsStats: %v", err)
	}
	return st
}

// OpsStats: the queue's depth and lag, the builds, the stream records
// written (the numbers of `dynamopg status`).
func TestOpsStats(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, freshURL(t), pgstore.Options{Workers: -1})
	if st := opsStats(t, s); st.Queue != (store.QueueStat{}) || st.StreamRecords != 0 || len(st.Builds) != 0 {
		t.Fatalf("fresh database: %+v", st)
	}

	q := newTable(t, s, "q", attr.TypeS, attr.TypeNone, asyncGSI("g", "ALL"))
	before := time.Now()
	put(t, s, q, attr.Item{"pk": attr.Str("a"), "g": attr.Str("x"), "gn": attr.Num("1")})
	st := opsStats(t, s)
	if st.Queue.Depth != 1 || st.Queue.OldestAge <= 0 || st.Queue.OldestAge > time.Since(before).Seconds()+1 {
		t.Errorf("queue after one async write, no workers: %+v", st.Queue)
	}

	// A stream: one record per write; the trim does not lower the count.
	tb := newTable(t, s, "b", attr.TypeS, attr.TypeNone)
	tb, err := s.TableUpdate(ctx, tb.Name, func(t *store.Table) error {
		if t.Options == nil {
			t.Options = map[string][]byte{}
		}
		t.Options[store.OptionStream] = []byte(`{"enabled":true,"viewType":"NEW_IMAGE","label":"l1"}`)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	loadItems(t, s, tb, 40)
	if err := s.StreamTrim(ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if st := opsStats(t, s); st.StreamRecords != 40 {
		t.Errorf("stream records = %d, want 40", st.StreamRecords)
	}

	// A build: its rows, active once done.
	tb, _ = addIndex(t, s, tb.Name, gsiHash(store.PropagationSync))
	buildIndex(t, s, tb, "gh")
	st = opsStats(t, s)
	if len(st.Builds) != 1 {
		t.Fatalf("builds = %+v, want one", st.Builds)
	}
	if b := st.Builds[0]; b.Table != "b" || b.Index != "gh" || b.Phase != "active" || b.RowsDone != 40 {
		t.Errorf("build = %+v, want b.gh active with 40 rows done", b)
	}
}
