package pgstore_test

import (
	"context"
	"testing"

	"github.com/dynamopg/dynamopg/server/backend"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/pgstore"
	"github.com/dynamopg/dynamopg/tests/pgtest"
	"github.com/dynamopg/dynamopg/tests/storetest"
)

// TestStoreContract runs the shared conformance suite. Every description
// pgstore hands out carries its catalog version, so the suite's writes
// are checked against it as the API's are.
func TestStoreContract(t *testing.T) {
	storetest.Exercise(context.Background(), t, storetest.Backend{
		New: func(t *testing.T) store.Store { return newStore(t) },
		Open: func(t *testing.T, s store.Store, background bool) store.Store {
			opts := pgstore.Options{}
			if background {
				opts = serveOptions()
			}
			return openStore(t, s.(*pgstore.Store).Pool().Config().ConnString(), opts)
		},
		Leftovers: func(t testing.TB, s store.Store, tbl *store.Table) string {
			return leftovers(t, s.(*pgstore.Store), tbl)
		},
		ChecksVersions: true,
	})
	storetest.ExerciseCollections(context.Background(), t, storetest.Collections{
		New: func(t *testing.T, limit int64) store.Store {
			return openStore(t, pgtest.URL(t), pgstore.Options{ItemCollectionLimit: limit, Workers: backend.DefaultWorkers})
		},
		Counters: counters,
	})
}

// counters counts (and with forget deletes) the item collection counters
// of table id (migration 010).
func counters(t *testing.T, s store.Store, id int64, forget bool) int {
	t.Helper()
	ctx := context.Background()
	pool := s.(*pgstore.Store).Pool()
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM dynamopg.item_collections WHERE table_id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if forget {
		if _, err := pool.Exec(ctx, `DELETE FROM dynamopg.item_collections WHERE table_id = $1`, id); err != nil {
			t.Fatal(err)
		}
	}
	return n
}
