package sqlitestore_test

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/maintain"
)

// Behaviour of this store beyond the shared contract suite.

func testTable(name string) *store.Table {
	return &store.Table{
		Name: name, Status: store.StatusActive, BillingMode: "PAY_PER_REQUEST",
		Hash:  store.KeyAttr{Name: "pk", Type: attr.TypeS},
		Range: &store.KeyAttr{Name: "sk", Type: attr.TypeN},
	}
}

func putItem(t *testing.T, s store.Store, tbl *store.Table, it attr.Item) {
	t.Helper()
	if _, err := s.ItemWrite(context.Background(), tbl, tbl.KeyOf(it), func(attr.Item) (attr.Item, error) { return it, nil }); err != nil {
		t.Fatalf("ItemWrite: %v", err)
	}
}

// An index added by TableUpdate as CREATING starts empty and the online
// build fills it from the table's existing items, page by page.
func TestTableUpdateBackfill(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "backfill.db"))
	tbl := testTable("bf")
	if err := s.TableCreate(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	const n = 1100 // more than one backfill page
	for i := range n {
		it := attr.Item{"pk": attr.Str("p"), "sk": attr.Num(strconv.Itoa(i))}
		if i%2 == 0 {
			it["g"] = attr.Str("x")
		}
		putItem(t, s, tbl, it)
	}
	out, err := s.TableUpdate(ctx, "bf", func(t *store.Table) error {
		t.Indexes = append(t.Indexes, store.Index{Name: "g", Global: true, Status: store.StatusCreating,
			Hash: store.KeyAttr{Name: "g", Type: attr.TypeS}, Projection: store.Projection{Type: "KEYS_ONLY"}})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	empty, err := s.ItemQuery(ctx, out, store.QueryInput{Index: out.Index("g"), Hash: attr.Str("x"), Forward: true})
	if err != nil || len(empty) != 0 {
		t.Fatalf("CREATING index before its build: %d rows, %v; want it empty", len(empty), err)
	}
	if err := s.IndexBuildStart(ctx, out, "g"); err != nil {
		t.Fatal(err)
	}
	if err := maintain.IndexBuildWait(ctx, s, out, "g"); err != nil {
		t.Fatal(err)
	}
	if out, err = s.TableGet(ctx, "bf"); err != nil {
		t.Fatal(err)
	}
	if ix := out.Index("g"); ix.Status != store.StatusActive || ix.Backfilling {
		t.Fatalf("index after its build: %+v", ix)
	}
	got, err := s.ItemQuery(ctx, out, store.QueryInput{Index: out.Index("g"), Hash: attr.Str("x"), Forward: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n/2 {
		t.Fatalf("backfilled index has %d rows, want %d", len(got), n/2)
	}

	// Querying the index through a description that predates its removal.
	stale := out
	if _, err := s.TableUpdate(ctx, "bf", func(t *store.Table) error { t.Indexes = nil; return nil }); err != nil {
		t.Fatal(err)
	}
	_, err = s.ItemQuery(ctx, stale, store.QueryInput{Index: stale.Index("g"), Hash: attr.Str("x"), Forward: true})
	if !errors.Is(err, store.ErrTableNotFound) {
		t.Fatalf("ItemQuery of a dropped index: %v, want ErrTableNotFound", err)
	}
}
