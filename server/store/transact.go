package store

import (
	"context"

	"github.com/dynamopg/dynamopg/server/attr"
)

// Transactor is the part of the contract that serves TransactWriteItems and
// TransactGetItems. Both stores implement it; it is kept separate from Store
// only so that the single-item paths stay readable.
type Transactor interface {
	// ItemTransact changes several items atomically. It locks and reads every
	// target (in a canonical order, so two transactions cannot deadlock on
	// each other), calls fn with the current items in the order of targets
	// (nil where absent), and stores fn's answer for each target: a new item,
	// a delete, or nothing. fn's error aborts with nothing written and is
	// returned unchanged; fn may be called again after a lost race and must
	// not have side effects. Targets name distinct items. A table dropped
	// under the call gives ErrTableNotFound.
	ItemTransact(ctx context.Context, targets []TxTarget, fn TxFunc) error
	// ItemGetMany reads several items from one consistent snapshot, in the
	// order of targets (nil where absent).
	ItemGetMany(ctx context.Context, targets []TxTarget) ([]attr.Item, error)
}

// TxTarget names one item of a transaction.
type TxTarget struct {
	Table *Table
	Key   attr.Item
}

// TxWrite is what a transaction does to one target.
type TxWrite struct {
	// Put is the item's new state; nil with Delete deletes it.
	Put    attr.Item
	Delete bool
	// Neither Put nor Delete: the item is only read (a ConditionCheck).
}

// TxFunc computes each target's write from the current items.
type TxFunc func(olds []attr.Item) ([]TxWrite, error)
