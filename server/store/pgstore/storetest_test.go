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

// TestStoreContractVersioned runs the item parts of the suite on tables
// described with their catalog version, as the API passes them: tables
// without async indexes or a stream then write through their prepared
// statements (prepared.go).
func TestStoreContractVersioned(t *testing.T) {
	storetest.ExerciseVersioned(context.Background(), t, func(t *testing.T) store.Store { return newStore(t) })
}
