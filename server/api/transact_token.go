package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// TxTokenTTL is how long a ClientRequestToken of TransactWriteItems is
// remembered after the transaction that used it: the service's 10 minutes.
const TxTokenTTL = 10 * time.Minute

// txTokenTTLEnv overrides TxTokenTTL (a Go duration, e.g. "2s"), for tests
// of expiry.
const txTokenTTLEnv = "DYNAMOPG_TX_TOKEN_TTL"

// txTokenTTL is TxTokenTTL or its override.
func txTokenTTL() time.Duration {
	if v := os.Getenv(txTokenTTLEnv); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return TxTokenTTL
}

// idempotentMismatch is the service's answer to a token reused for another
// request within the window.
func idempotentMismatch() *Error {
	return newErr(nsDynamo, "IdempotentParameterMismatchException", 400,
		"The request uses the same client token as a previous, but different, request.")
}

// requestHash is the canonical hash of a transaction request as the token
// compares it (TransactItems, or ExecuteTransaction's TransactStatements):
// the decoded members re-encoded with every JSON
// object's keys sorted (key order, whitespace and escapes of the request do
// not matter; values, numbers' spelling and list order do).
// ReturnConsumedCapacity and ReturnItemCollectionMetrics only shape the
// response, and the service documents that a replay's response may differ,
// so they are not part of the hash.
func requestHash(items any) ([]byte, error) {
	raw, err := json.Marshal(items)
	if err != nil {
		return nil, fmt.Errorf("hash request: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, fmt.Errorf("hash request: %w", err)
	}
	canon, err := json.Marshal(generic) // maps: keys sorted
	if err != nil {
		return nil, fmt.Errorf("hash request: %w", err)
	}
	sum := sha256.Sum256(canon)
	return sum[:], nil
}

// commitTransaction runs fn over targets as one transaction, once per
// ClientRequestToken when token is set (request is what the token's hash
// covers), and maps the store's outcomes to the service's errors: a
// conflict cancels every member with TransactionConflict, a token reused
// for another request is IdempotentParameterMismatchException. replayed
// reports that a live token of the same request ended it without writing.
func commitTransaction(ctx context.Context, txs store.Transactions, targets []store.TxTarget, token *string, request any, fn store.TxFunc, op string) (replayed bool, err error) {
	if token != nil {
		hash, herr := requestHash(request)
		if herr != nil {
			return false, herr
		}
		tok := store.TxToken{Token: *token, Hash: hash, Now: time.Now(), TTL: txTokenTTL()}
		replayed, err = txs.ItemTransactToken(ctx, targets, tok, fn)
	} else {
		err = txs.ItemTransact(ctx, targets, fn)
	}
	switch {
	case err == nil:
		return replayed, nil
	case errors.Is(err, store.ErrConflict):
		reasons := make([]map[string]any, len(targets))
		for i := range reasons {
			reasons[i] = map[string]any{"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"}
		}
		return false, cancellation(reasons)
	case errors.Is(err, store.ErrTokenMismatch):
		return false, idempotentMismatch()
	case errors.Is(err, store.ErrCollectionFull):
		return false, cancellation(collectionFullReasons(err, len(targets)))
	}
	return false, storeErr(err, op)
}

// txCapacity renders the ConsumedCapacity list of a transaction: per table
// (in name order) the table's units and, for INDEXES, each index's.
// field is "WriteCapacityUnits" or "ReadCapacityUnits", set beside
// CapacityUnits as the service does for transactions.
func txCapacity(mode *string, tables map[string]*store.Table, units map[string]float64, indexUnits map[string]map[string]float64, field string) []map[string]any {
	if !wantsCapacity(mode) {
		return nil
	}
	ccs := []map[string]any{}
	for _, n := range sortedTables(tables) {
		cc := consumed(mode, tables[n], units[n], indexUnits[n])
		cc[field] = cc["CapacityUnits"]
		if tc, ok := cc["Table"].(map[string]any); ok {
			tc[field] = tc["CapacityUnits"]
		}
		for _, k := range []string{"GlobalSecondaryIndexes", "LocalSecondaryIndexes"} {
			if m, ok := cc[k].(map[string]any); ok {
				for _, v := range m {
					v.(map[string]any)[field] = v.(map[string]any)["CapacityUnits"]
				}
			}
		}
		ccs = append(ccs, cc)
	}
	return ccs
}

// txWriteCapacity charges a committed TransactWriteItems: every member
// twice the units of the single-item operation (the larger of the item
// before and after, per 1 KB; a ConditionCheck as a write of the item it
// read), and each index written the standard units of its projected sizes
// (index maintenance is not part of the two-phase commit).
func txWriteCapacity(mode *string, actions []*txAction, olds []attr.Item, writes []store.TxWrite) []map[string]any {
	tables := map[string]*store.Table{}
	units := map[string]float64{}
	indexUnits := map[string]map[string]float64{}
	for i, act := range actions {
		n := act.table.Name
		tables[n] = act.table
		var old attr.Item
		if i < len(olds) {
			old = olds[i]
		}
		cur := old
		if i < len(writes) {
			switch w := writes[i]; {
			case w.Put != nil:
				cur = w.Put
			case w.Delete:
				cur = nil
			}
		}
		units[n] += 2 * writeUnits(old.Size(), cur.Size())
		if act.kind == "ConditionCheck" {
			continue
		}
		for ix, u := range indexWriteUnits(act.table, old, cur) {
			if indexUnits[n] == nil {
				indexUnits[n] = map[string]float64{}
			}
			indexUnits[n][ix] += u
		}
	}
	return txCapacity(mode, tables, units, indexUnits, "WriteCapacityUnits")
}
