package sqlitestore_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore"
)

// The table cache under DDL (tablecache.go): writers take their table's
// description from the cache (TableGetCached) and write with it, as the
// API does, while another goroutine changes the table (TableUpdate) and
// deletes it and creates it again with another key schema, through the
// same store or through a second store on the same file (another process,
// whose changes this store's cache hears nothing of). No write may land on
// a table generation other than the current one, or on a description
// older than one already committed: every write that starts after a
// change has committed and succeeds must carry a description at least as
// new. The table left at the end holds only items of its own generation.
func TestTableCacheUnderDDL(t *testing.T) {
	for _, second := range []bool{false, true} {
		name := "same store"
		if second {
			name = "second store on the file"
		}
		t.Run(name, func(t *testing.T) { tableCacheUnderDDL(t, second) })
	}
}

// generation is one committed state of the table: its id and version.
type generation struct{ id, version int64 }

func tableCacheUnderDDL(t *testing.T, second bool) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cache.db")
	openStore := func() *sqlitestore.Store {
		s, err := sqlitestore.Open(ctx, path, sqlitestore.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	s := openStore()
	ddl := s
	if second {
		ddl = openStore()
	}
	const name = "gen"
	// Even generations: hash key pk (S); odd: hash key id (N), range sk (S).
	newTable := func(gen int) *store.Table {
		if gen%2 == 0 {
			return &store.Table{Name: name, Status: store.StatusActive, BillingMode: "PAY_PER_REQUEST",
				Hash: store.KeyAttr{Name: "pk", Type: attr.TypeS}}
		}
		return &store.Table{Name: name, Status: store.StatusActive, BillingMode: "PAY_PER_REQUEST",
			Hash:  store.KeyAttr{Name: "id", Type: attr.TypeN},
			Range: &store.KeyAttr{Name: "sk", Type: attr.TypeS}}
	}
	first := newTable(0)
	if err := ddl.TableCreate(ctx, first); err != nil {
		t.Fatal(err)
	}
	var published atomic.Pointer[generation]
	published.Store(&generation{first.ID, first.Version})

	stop := make(chan struct{})
	var writes, refused atomic.Int64
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for seq := 0; ; seq++ {
				select {
				case <-stop:
					return
				default:
				}
				before := *published.Load() // committed before this write starts
				tbl, _, err := s.TableGetCached(ctx, name)
				if errors.Is(err, store.ErrTableNotFound) {
					continue // between a delete and a create
				}
				if err != nil {
					t.Errorf("TableGetCached: %v", err)
					return
				}
				it := attr.Item{"gid": attr.Num(strconv.FormatInt(tbl.ID, 10)), "ver": attr.Num(strconv.FormatInt(tbl.Version, 10))}
				if tbl.Hash.Name == "pk" {
					it["pk"] = attr.Str(fmt.Sprintf("w%d-%d", w, seq))
				} else {
					it["id"] = attr.Num(strconv.Itoa(w))
					it["sk"] = attr.Str(strconv.Itoa(seq))
				}
				_, err = s.ItemPut(ctx, tbl, it)
				switch {
				case err == nil:
					writes.Add(1)
					if tbl.ID < before.id || tbl.ID == before.id && tbl.Version < before.version {
						t.Errorf("a write with table id %d version %d succeeded after id %d version %d had committed", tbl.ID, tbl.Version, before.id, before.version)
					}
				case errors.Is(err, store.ErrStaleTable), errors.Is(err, store.ErrTableNotFound):
					refused.Add(1)
					s.TableForget(name) // as the API does, then runs the request again
				default:
					t.Errorf("ItemPut: %v", err)
					return
				}
			}
		})
	}

	var last *store.Table
	for gen := 1; gen <= 24; gen++ {
		time.Sleep(2 * time.Millisecond)
		up, err := ddl.TableUpdate(ctx, name, func(t *store.Table) error {
			t.Options = map[string][]byte{"round": []byte(strconv.Itoa(gen))}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		published.Store(&generation{up.ID, up.Version})
		time.Sleep(2 * time.Millisecond)
		if _, err := ddl.TableDelete(ctx, name); err != nil {
			t.Fatal(err)
		}
		last = newTable(gen)
		if err := ddl.TableCreate(ctx, last); err != nil {
			t.Fatal(err)
		}
		published.Store(&generation{last.ID, last.Version})
	}
	time.Sleep(5 * time.Millisecond)
	close(stop)
	wg.Wait()

	cur, err := s.TableGet(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	items, err := s.ItemScan(ctx, cur, store.ScanInput{})
	if err != nil {
		t.Fatal(err)
	}
	want := strconv.FormatInt(last.ID, 10)
	for _, it := range items {
		ok := it["gid"].S == want
		if last.Hash.Name == "pk" {
			ok = ok && it["pk"].T == attr.TypeS && len(it) == 3
		} else {
			ok = ok && it["id"].T == attr.TypeN && it["sk"].T == attr.TypeS && len(it) == 4
		}
		if !ok {
			t.Errorf("item %v in generation %s (hash key %s)", it, want, last.Hash.Name)
		}
	}
	t.Logf("%d writes, %d refused as stale or gone, %d items in the last generation", writes.Load(), refused.Load(), len(items))
	if writes.Load() == 0 || refused.Load() == 0 {
		t.Errorf("the race did not happen: %d writes, %d refused", writes.Load(), refused.Load())
	}
}
