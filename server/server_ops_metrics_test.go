package server

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dynamopg/dynamopg/server/metrics"
	"github.com/dynamopg/dynamopg/server/store"
)

type fakeOps struct {
	st    *store.Status
	err   error
	calls int
}

func (f *fakeOps) Status(context.Context, store.StatusInput) (*store.Status, error) {
	f.calls++
	return f.st, f.err
}

func TestOpsStatsMetrics(t *testing.T) {
	src := &fakeOps{st: &store.Status{
		Builds: []store.BuildStatus{
			{Table: "T", Index: "g1", Phase: "backfill", RowsDone: 512, TableRows: 1000},
			{Table: "T", Index: "g0", Phase: "active", RowsDone: 7, TableRows: -1},
		},
		Queue:         []store.QueueStatus{{Table: "T", Depth: 2, PassedOver: 1, OldestS: 2.5}, {Table: "U", Depth: 1, OldestS: 0.5}},
		StreamRecords: 42,
	}}
	reg := metrics.NewRegistry()
	registerOpsStats(reg, src)
	var b strings.Builder
	must(t, reg.Write(&b))
	out := b.String()
	for _, want := range []string{
		"dynamopg_index_queue_depth 3\n",
		"dynamopg_index_queue_oldest_age_seconds 2.5\n",
		"dynamopg_index_queue_passed_over 1\n",
		`dynamopg_index_build_rows_done{index="g1",table="T"} 512` + "\n",
		`dynamopg_index_build_rows_done{index="g0",table="T"} 7` + "\n",
		`dynamopg_index_build_table_rows_estimate{index="g1",table="T"} 1000` + "\n",
		`dynamopg_index_build_phase{index="g1",phase="backfill",table="T"} 1` + "\n",
		`dynamopg_index_build_phase{index="g0",phase="active",table="T"} 1` + "\n",
		"# TYPE dynamopg_stream_records_total counter\ndynamopg_stream_records_total 42\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("scrape lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `table_rows_estimate{index="g0",table="T"}`) {
		t.Errorf("unknown estimate exposed:\n%s", out)
	}
	if src.calls != 1 {
		t.Errorf("one scrape read the store %d times, want 1", src.calls)
	}

	// A database that does not answer: the families have no series.
	src = &fakeOps{err: errors.New("down")}
	reg = metrics.NewRegistry()
	registerOpsStats(reg, src)
	b.Reset()
	must(t, reg.Write(&b))
	out = b.String()
	if strings.Contains(out, "dynamopg_index_queue_depth") || strings.Contains(out, "dynamopg_stream_records_total") || src.calls != 1 {
		t.Errorf("scrape with the database down:\n%s", out)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestTTLDeletionsCounter(t *testing.T) {
	reg := metrics.NewRegistry()
	registerProcessCounters(reg)
	var b strings.Builder
	must(t, reg.Write(&b))
	if !strings.Contains(b.String(), "# TYPE dynamopg_ttl_deletions_total counter\ndynamopg_ttl_deletions_total ") {
		t.Errorf("scrape:\n%s", b.String())
	}
}
