package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// newTable returns an ACTIVE on-demand table description with the given key.
func newTable(name string, hash store.KeyAttr, rng *store.KeyAttr, indexes ...store.Index) *store.Table {
	defs := []store.KeyAttr{hash}
	if rng != nil {
		defs = append(defs, *rng)
	}
	for _, ix := range indexes {
		for _, k := range ix.KeyAttrs() {
			if !slices.ContainsFunc(defs, func(d store.KeyAttr) bool { return d.Name == k.Name }) {
				defs = append(defs, k)
			}
		}
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	return &store.Table{
		Name:                 name,
		TableID:              "00000000-0000-4000-8000-000000000000",
		Status:               store.StatusActive,
		CreatedAt:            now,
		Hash:                 hash,
		Range:                rng,
		AttributeDefinitions: defs,
		BillingMode:          "PAY_PER_REQUEST",
		BillingModeSetAt:     now,
		Indexes:              indexes,
	}
}

func key(name string, t attr.Type) store.KeyAttr   { return store.KeyAttr{Name: name, Type: t} }
func rkey(name string, t attr.Type) *store.KeyAttr { return &store.KeyAttr{Name: name, Type: t} }

// createTable creates a table and fails the test on error.
func createTable(ctx context.Context, t testing.TB, s store.Store, tbl *store.Table) *store.Table {
	t.Helper()
	requireNoError(t, s.TableCreate(ctx, tbl), "TableCreate "+tbl.Name)
	requireTrue(t, tbl.ID != 0, "TableCreate %s: no ID assigned", tbl.Name)
	return tbl
}

// rereadOnStale runs write with tbl and, while it fails with
// store.ErrStaleTable (the table changed since tbl was read, and a store
// that checks descriptions, Table.Version, wrote nothing), reads the table
// again and reruns it on the fresh description, as the API does. It
// returns the description it last used.
func rereadOnStale(ctx context.Context, s store.Store, tbl *store.Table, write func(*store.Table) error) (*store.Table, error) {
	for range 100 {
		err := write(tbl)
		if !errors.Is(err, store.ErrStaleTable) {
			return tbl, err
		}
		fresh, err := s.TableGet(ctx, tbl.Name)
		if err != nil {
			return tbl, err
		}
		tbl = fresh
	}
	return tbl, fmt.Errorf("still %w after 100 fresh descriptions", store.ErrStaleTable)
}

// put writes an item unconditionally and returns the item it replaced.
func put(ctx context.Context, t testing.TB, s store.Store, tbl *store.Table, it attr.Item) attr.Item {
	t.Helper()
	old, err := s.ItemWrite(ctx, tbl, tbl.KeyOf(it), func(attr.Item) (attr.Item, error) { return it.Clone(), nil })
	requireNoError(t, err, "ItemWrite put "+show(it))
	return old
}

// del deletes an item by key.
func del(ctx context.Context, t testing.TB, s store.Store, tbl *store.Table, k attr.Item) attr.Item {
	t.Helper()
	old, err := s.ItemWrite(ctx, tbl, k, func(attr.Item) (attr.Item, error) { return nil, nil })
	requireNoError(t, err, "ItemWrite delete "+show(k))
	return old
}

// model is the expected content of a table: its items by key.
type model struct {
	tbl   *store.Table
	items map[string]attr.Item
}

func newModel(tbl *store.Table) *model { return &model{tbl: tbl, items: map[string]attr.Item{}} }

func (m *model) put(ctx context.Context, t testing.TB, s store.Store, it attr.Item) {
	t.Helper()
	put(ctx, t, s, m.tbl, it)
	m.items[show(m.tbl.KeyOf(it))] = it.Clone()
}

func (m *model) del(ctx context.Context, t testing.TB, s store.Store, k attr.Item) {
	t.Helper()
	del(ctx, t, s, m.tbl, k)
	delete(m.items, show(k))
}

// rows returns the table's items, or an index's projected items.
func (m *model) rows(ix *store.Index) []attr.Item {
	var out []attr.Item
	for _, it := range m.items {
		switch {
		case ix == nil:
			out = append(out, it.Clone())
		case ix.Indexable(it):
			out = append(out, ix.Project(m.tbl, it.Clone()))
		}
	}
	return out
}

// orderNames are the attributes that order a Query: the table key, or the
// index key then the table key.
func (m *model) orderNames(ix *store.Index) []string {
	if ix == nil {
		return m.tbl.KeyNames()
	}
	return ix.KeyNames(m.tbl)
}

// compareBy orders two items by the given key attributes.
func compareBy(names []string, a, b attr.Item) int {
	for _, n := range names {
		if c, _ := attr.Compare(a[n], b[n]); c != 0 {
			return c
		}
	}
	return 0
}

// query computes what ItemQuery must return.
func (m *model) query(in store.QueryInput) []attr.Item {
	// The equalities (the partition key; for a multi-attribute key every
	// partition attribute and a prefix of the sort attributes: in.Eq), then
	// the sort key condition on the next key attribute.
	keys := []store.KeyAttr{m.tbl.Hash}
	if m.tbl.Range != nil {
		keys = append(keys, *m.tbl.Range)
	}
	if in.Index != nil {
		keys = in.Index.KeyAttrs()
	}
	eq := append([]attr.Value{in.Hash}, in.Eq...)
	rangeName := ""
	if len(eq) < len(keys) {
		rangeName = keys[len(eq)].Name
	}
	names := m.orderNames(in.Index)
	var out []attr.Item
	for _, it := range m.rows(in.Index) {
		equal := true
		for i, v := range eq {
			equal = equal && attr.Equal(it[keys[i].Name], v)
		}
		if !equal {
			continue
		}
		if in.Range != nil && !rangeMatches(it[rangeName], in.Range) {
			continue
		}
		if in.After != nil {
			c := compareBy(names, it, in.After)
			if (in.Forward && c <= 0) || (!in.Forward && c >= 0) {
				continue
			}
		}
		out = append(out, it)
	}
	slices.SortFunc(out, func(a, b attr.Item) int {
		if in.Forward {
			return compareBy(names, a, b)
		}
		return compareBy(names, b, a)
	})
	if in.Limit > 0 && len(out) > in.Limit {
		out = out[:in.Limit]
	}
	return out
}

func rangeMatches(v attr.Value, rc *store.RangeCond) bool {
	c, ok := attr.Compare(v, rc.Values[0])
	if !ok {
		return false
	}
	switch rc.Op {
	case store.RangeEQ:
		return c == 0
	case store.RangeLT:
		return c < 0
	case store.RangeLE:
		return c <= 0
	case store.RangeGT:
		return c > 0
	case store.RangeGE:
		return c >= 0
	case store.RangeBetween:
		c2, _ := attr.Compare(v, rc.Values[1])
		return c >= 0 && c2 <= 0
	case store.RangeBeginsWith:
		if v.T == attr.TypeB {
			return bytes.HasPrefix(v.B, rc.Values[0].B)
		}
		return strings.HasPrefix(v.S, rc.Values[0].S)
	}
	return false
}

// pageKey is the exclusive start key that resumes after item it.
func (m *model) pageKey(ix *store.Index, it attr.Item) attr.Item {
	k := attr.Item{}
	for _, n := range m.orderNames(ix) {
		k[n] = it[n]
	}
	return k
}

// queryAll pages through a Query with the given page size and returns the
// concatenation, failing on a page larger than asked.
func queryAll(ctx context.Context, t testing.TB, s store.Store, m *model, in store.QueryInput, size int) []attr.Item {
	t.Helper()
	var all []attr.Item
	in.Limit = size
	in.After = nil
	for range 10000 {
		page, err := s.ItemQuery(ctx, m.tbl, in)
		requireNoError(t, err, "ItemQuery page")
		requireTrue(t, len(page) <= size, "ItemQuery: page of %d items with limit %d", len(page), size)
		all = append(all, page...)
		if len(page) < size {
			return all
		}
		in.After = m.pageKey(in.Index, page[len(page)-1])
	}
	t.Fatalf("ItemQuery paging does not end")
	return nil
}
