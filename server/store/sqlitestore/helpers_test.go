package sqlitestore_test

import (
	"context"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// Helpers of the driver-only tests (the contract-level ones are in
// tests/storetest, run by sqlitestore_test.go).

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
