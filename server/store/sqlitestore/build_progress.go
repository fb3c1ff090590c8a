package sqlitestore

import (
	"context"
	"errors"
	"sort"
	"sync"

	"github.com/dynamopg/dynamopg/server/store"
)

// maxBuildStats bounds the finished builds Status keeps reporting.
const maxBuildStats = 100

// buildStats is the progress of the builds this process ran.
type buildStats struct {
	mu   sync.Mutex
	seq  int64
	byID map[int64]*buildStat
}

type buildStat struct {
	store.BuildStatus
	seq int64 // start order
}

// started records a build starting; tableRows is -1 when unknown.
func (b *buildStats) started(indexID int64, table, index string, tableRows int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byID == nil {
		b.byID = map[int64]*buildStat{}
	}
	b.seq++
	b.byID[indexID] = &buildStat{BuildStatus: store.BuildStatus{Table: table, Index: index, IndexID: indexID, Phase: "backfill", TableRows: tableRows}, seq: b.seq}
	b.evict()
}

// rows records the rows the build has done.
func (b *buildStats) rows(indexID, rows int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if st := b.byID[indexID]; st != nil {
		st.RowsDone = rows
	}
}

// ended records the build's final phase (active or failed), or forgets it
// ("": stopped by Close; the next Open resumes it).
func (b *buildStats) ended(indexID int64, phase string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.byID[indexID]
	switch {
	case st == nil:
	case phase == "":
		delete(b.byID, indexID)
	default:
		st.Phase = phase
	}
}

// evict drops the oldest finished builds beyond maxBuildStats.
func (b *buildStats) evict() {
	if len(b.byID) <= maxBuildStats {
		return
	}
	var finished []int64
	for id, st := range b.byID {
		if st.Phase == "active" || st.Phase == "failed" {
			finished = append(finished, id)
		}
	}
	sort.Slice(finished, func(i, j int) bool { return b.byID[finished[i]].seq < b.byID[finished[j]].seq })
	for _, id := range finished {
		if len(b.byID) <= maxBuildStats {
			return
		}
		delete(b.byID, id)
	}
}

// list returns the builds, running first, then the latest finished.
func (b *buildStats) list() []store.BuildStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	all := make([]*buildStat, 0, len(b.byID))
	for _, st := range b.byID {
		all = append(all, st)
	}
	sort.Slice(all, func(i, j int) bool {
		ri, rj := all[i].Phase == "backfill", all[j].Phase == "backfill"
		if ri != rj {
			return ri
		}
		return all[i].seq > all[j].seq
	})
	out := make([]store.BuildStatus, len(all))
	for i, st := range all {
		out[i] = st.BuildStatus
	}
	return out
}

// buildTableRows counts the rows of the table a build reads, for its
// progress (-1 when the count fails).
func (s *Store) buildTableRows(ctx context.Context, tableID int64) int64 {
	var n int64
	if err := s.reader.QueryRowContext(ctx, s.stmts.on("item_count", tableID)).Scan(&n); err != nil {
		return -1
	}
	return n
}

// buildOutcome is the phase of a build that ended: active when its index is
// ACTIVE, failed when the index (or its table) is gone, "" when the catalog
// cannot be read (the build is then forgotten).
func (s *Store) buildOutcome(ctx context.Context, tableID, indexID int64) string {
	def, err := catalogByID(ctx, s.reader, tableID)
	if errors.Is(err, store.ErrTableNotFound) {
		return "failed"
	}
	if err != nil {
		return ""
	}
	if ix := indexByID(def, indexID); ix != nil && ix.Status == store.StatusActive {
		return "active"
	}
	return "failed"
}
