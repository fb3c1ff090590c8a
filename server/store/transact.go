package store

import (
	"context"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
)

// Transactions serves TransactWriteItems, TransactGetItems and their
// PartiQL forms.
type Transactions interface {
	// ItemTransact changes several items atomically. It locks and reads every
	// target (in a canonical order, so two transactions cannot deadlock on
	// each other), calls fn with the current items in the order of targets
	// (nil where absent), and stores fn's answer for each target: a new item,
	// a delete, or nothing. fn's error aborts with nothing written and is
	// returned unchanged; fn may be called again after a lost race and must
	// not have side effects. Targets name distinct items. A table dropped
	// under the call gives ErrTableNotFound. A transaction that would take
	// an item collection past the limit is a *CollectionFullError naming
	// the targets that grew it (Items.ItemCollectionSize).
	ItemTransact(ctx context.Context, targets []TxTarget, fn TxFunc) error
	// ItemTransactToken is ItemTransact made idempotent by a client token
	// (TransactWriteItems' ClientRequestToken). In the same database
	// transaction as the writes it claims tok.Token:
	//
	//   - a token unknown, or recorded at or before tok.Now-tok.TTL
	//     (forgotten), is recorded with tok.Hash and the transaction runs as
	//     ItemTransact does; if fn or the store fails, nothing is recorded;
	//   - a live token with the same hash: nothing runs, fn is not called,
	//     replayed is true;
	//   - a live token with another hash: ErrTokenMismatch, nothing runs.
	//
	// Two calls with one token racing serialize on the token: one runs, the
	// other waits for it and then replays (or runs, when the first was
	// cancelled). Tokens are shared by every process on the database.
	ItemTransactToken(ctx context.Context, targets []TxTarget, tok TxToken, fn TxFunc) (replayed bool, err error)
	// ItemGetMany reads several items from one consistent snapshot, in the
	// order of targets (nil where absent).
	ItemGetMany(ctx context.Context, targets []TxTarget) ([]attr.Item, error)
	// ItemGetManyJSON is ItemGetMany's items as compact wire JSON, as
	// ItemGetJSON's (nil where absent): BatchGetItem and TransactGetItems
	// answer with them as they are. ItemGetMany is its decode.
	ItemGetManyJSON(ctx context.Context, targets []TxTarget) ([][]byte, error)
	// TxTokenPurge deletes the client tokens recorded at or before `before`
	// (forgotten: a claim takes them over anyway) and returns how many.
	TxTokenPurge(ctx context.Context, before time.Time) (int64, error)
}

// TxToken identifies one idempotent transaction.
type TxToken struct {
	Token string
	// Hash is a canonical hash of the request; equal hashes mean the same
	// request.
	Hash []byte
	// Now is the time the token is recorded with; tokens recorded at or
	// before Now-TTL are forgotten. The caller's clock, so that tests can
	// move it.
	Now time.Time
	TTL time.Duration
}

// Expired is the instant at or before which recorded tokens are forgotten.
func (t TxToken) Expired() time.Time { return t.Now.Add(-t.TTL) }

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
