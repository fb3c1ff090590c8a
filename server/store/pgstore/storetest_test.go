package pgstore_test

import (
	"context"
	"testing"

	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/tests/storetest"
)

// TestStoreContract runs the shared conformance suite.
func TestStoreContract(t *testing.T) {
	storetest.Exercise(context.Background(), t, func(t *testing.T) store.Store { return newStore(t) })
}
