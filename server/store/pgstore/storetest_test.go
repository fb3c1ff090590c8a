package pgstore_test

import (
	"context"
	"testing"

	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/tests/storetest"
)

// TestStoreContract runs the shared conformance suite. Every description
// pgstore hands out carries its catalog version, so the suite's writes
// are checked against it as the API's are.
func TestStoreContract(t *testing.T) {
	storetest.Exercise(context.Background(), t, func(t *testing.T) store.Store { return newStore(t) })
}
