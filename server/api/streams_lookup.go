package api

import (
	"context"
	"errors"
	"maps"
	"sort"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// Finding streams: those of the live tables (the catalog) and those of
// deleted tables, which the service keeps DISABLED and readable for 24
// hours after DeleteTable (the store keeps their catalog entries as
// store.DeletedTable). A table being deleted counts as deleted.

// liveTable reads a table that is not being deleted; nil when there is none.
func (a *API) liveTable(ctx context.Context, name string) (*store.Table, error) {
	t, err := a.store.TableGet(ctx, name)
	if errors.Is(err, store.ErrTableNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, storeErr(err, "table get")
	}
	if t.Status == store.StatusDeleting {
		return nil, nil
	}
	return t, nil
}

// deletedStreamsOf lists a deleted table's live streams: its enabled
// stream was disabled by the deletion.
func deletedStreamsOf(dt *store.DeletedTable, now time.Time) []*streamRef {
	t := *dt.Table
	t.Options = maps.Clone(dt.Table.Options)
	if spec := store.StreamSpecOf(&t); spec.Enabled {
		var hist []streamHistEntry
		getOpt(&t, optStreamHistory, &hist)
		hist = append(hist, streamHistEntry{Label: spec.Label, ViewType: spec.ViewType, DisabledAt: dt.DeletedAt})
		setOpt(&t, optStreamHistory, hist)
		spec.Enabled = false
		setOpt(&t, store.OptionStream, spec)
	}
	return streamsOf(&t, now)
}

// findStream resolves a stream ARN to a live stream of its table, or of a
// deleted table of that name.
func (a *API) findStream(ctx context.Context, arn string) (*streamRef, error) {
	name, label, ok := parseStreamArn(arn)
	if !ok {
		// Not a stream ARN at all: the request's mistake, not a missing
		// stream (alternator's test_describe_nonexistent_stream and
		// test_get_shard_iterator pass against DynamoDB with a
		// ValidationException; the aws-sdk-js integration tests match
		// "Invalid StreamArn").
		return nil, ValidationError("Invalid StreamArn")
	}
	now := time.Now()
	t, err := a.liveTable(ctx, name)
	if err != nil {
		return nil, err
	}
	if t != nil {
		if s := withLabel(streamsOf(t, now), label); s != nil {
			return s, nil
		}
	}
	st := a.store
	dt, err := st.DeletedTableGet(ctx, name, label)
	if errors.Is(err, store.ErrTableNotFound) {
		return nil, streamNotFound(arn)
	}
	if err != nil {
		return nil, storeErr(err, "deleted table get")
	}
	if s := withLabel(deletedStreamsOf(dt, now), label); s != nil {
		return s, nil
	}
	return nil, streamNotFound(arn)
}

func withLabel(refs []*streamRef, label string) *streamRef {
	for _, s := range refs {
		if s.label == label {
			return s
		}
	}
	return nil
}

// listedStreams returns the streams ListStreams shows, in (table name,
// newest label first) order: those of the named table (live or deleted;
// ResourceNotFoundException when there is neither), or of every table.
func (a *API) listedStreams(ctx context.Context, name *string, now time.Time) ([]*streamRef, error) {
	st := a.store
	var live []*store.Table
	var err error
	if name != nil {
		t, err := a.liveTable(ctx, *name)
		if err != nil {
			return nil, err
		}
		if t != nil {
			live = append(live, t)
		}
	} else if live, err = a.liveTables(ctx); err != nil {
		return nil, err
	}
	filter := ""
	if name != nil {
		filter = *name
	}
	deleted, err := st.DeletedTableList(ctx, filter)
	if err != nil {
		return nil, storeErr(err, "deleted table list")
	}
	if name != nil && len(live) == 0 && len(deleted) == 0 {
		return nil, tableNotFound(*name)
	}
	var refs []*streamRef
	for _, t := range live {
		refs = append(refs, streamsOf(t, now)...)
	}
	for i := range deleted {
		refs = append(refs, deletedStreamsOf(&deleted[i], now)...)
	}
	sort.SliceStable(refs, func(i, j int) bool {
		if refs[i].table.Name != refs[j].table.Name {
			return refs[i].table.Name < refs[j].table.Name
		}
		return refs[i].label > refs[j].label
	})
	return refs, nil
}

// liveTables reads every table not being deleted, in name order.
func (a *API) liveTables(ctx context.Context) ([]*store.Table, error) {
	var out []*store.Table
	after := ""
	for {
		names, err := a.store.TableList(ctx, after, 100)
		if err != nil {
			return nil, storeErr(err, "table list")
		}
		for _, n := range names {
			t, err := a.liveTable(ctx, n)
			if err != nil {
				return nil, err
			}
			if t != nil { // nil: dropped since the listing, or being deleted
				out = append(out, t)
			}
		}
		if len(names) < 100 {
			return out, nil
		}
		after = names[len(names)-1]
	}
}
