package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// ItemQuery reads one partition of a table or index in key order.
//
// On a table the order is sk; on an index it is (isk[, isk2...], pk, sk):
// the index sort key, then the base key as tie-break, all in the direction of Forward, so
// that After (index key + base key) resumes exactly.
func (s *Store) ItemQuery(ctx context.Context, t *store.Table, in store.QueryInput) ([]attr.Item, error) {
	return decodeItems(s.ItemQueryJSON(ctx, t, in))
}

// ItemQueryJSON is ItemQuery's items as they are stored, their wire JSON.
func (s *Store) ItemQueryJSON(ctx context.Context, t *store.Table, in store.QueryInput) ([][]byte, error) {
	q, args, err := s.buildQuery(t, in)
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", t.Name, err)
	}
	var out [][]byte
	err = s.inRead(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, q, args...)
		if err == nil {
			out, err = readStored(rows)
		}
		if err != nil {
			return explain(ctx, tx, t, in.Index, "query", err)
		}
		return nil
	})
	return out, err
}

// buildQuery picks the variant of item_query (a table) or index_query of
// sql/storage.sql and binds its arguments: the partition key, the sort key
// condition's values, the exclusive start key's position, the limit.
func (s *Store) buildQuery(t *store.Table, in store.QueryInput) (string, []any, error) {
	name, v := "item_query", stmtVars{ID: t.ID, Desc: !in.Forward, After: in.After != nil}
	rangeKey := t.Range
	eqKeys := []store.KeyAttr{t.Hash}
	if ix := in.Index; ix != nil {
		name, v = "index_query", indexVars(ix)
		v.Desc, v.After = !in.Forward, in.After != nil
		// The equalities: every partition attribute, then a prefix of the
		// sort attributes; the range condition is on the next one.
		keys := ix.KeyAttrs()
		nHash := len(ix.HashAttrs())
		if len(in.Eq) < nHash-1 || len(in.Eq) >= len(keys) {
			return "", nil, fmt.Errorf("%d key equalities on an index key of %d partition and %d sort attributes", 1+len(in.Eq), nHash, len(keys)-nHash)
		}
		v.Eq = len(in.Eq)
		eqKeys = keys[:1+len(in.Eq)]
		rangeKey = nil
		if n := 1 + len(in.Eq); n < len(keys) && n >= nHash {
			rangeKey = &keys[n]
		}
	} else if len(in.Eq) > 0 {
		return "", nil, fmt.Errorf("key equalities beyond the partition key on a table")
	}
	var args []any
	for i, val := range append([]attr.Value{in.Hash}, in.Eq...) {
		if val.T != eqKeys[i].Type {
			return "", nil, fmt.Errorf("key attribute %q has type %s, want %s", eqKeys[i].Name, val.T, eqKeys[i].Type)
		}
		args = append(args, keyBytes(val))
	}

	if rc := in.Range; rc != nil {
		if rangeKey == nil {
			return "", nil, fmt.Errorf("sort key condition on a key without sort key")
		}
		vals := make([][]byte, len(rc.Values))
		for i, val := range rc.Values {
			if val.T != rangeKey.Type {
				return "", nil, fmt.Errorf("sort key %q condition value has type %s, want %s", rangeKey.Name, val.T, rangeKey.Type)
			}
			vals[i] = keyBytes(val)
		}
		need := 1
		if rc.Op == store.RangeBetween {
			need = 2
		}
		if len(vals) != need {
			return "", nil, fmt.Errorf("sort key condition %s takes %d values, got %d", rc.Op, need, len(vals))
		}
		v.Op = string(rc.Op)
		switch rc.Op {
		case store.RangeEQ, store.RangeLT, store.RangeLE, store.RangeGT, store.RangeGE:
			args = append(args, vals[0])
		case store.RangeBetween:
			args = append(args, vals[0], vals[1])
		case store.RangeBeginsWith:
			if rangeKey.Type == attr.TypeN {
				return "", nil, fmt.Errorf("begins_with on a number sort key")
			}
			// A byte range: [prefix, store.BytesPrefixEnd(prefix)), open above when
			// the prefix is all 0xff.
			args = append(args, vals[0])
			if end := store.BytesPrefixEnd(vals[0]); end != nil {
				args = append(args, end)
			} else {
				v.Op = "BEGINS_WITH_OPEN"
			}
		default:
			return "", nil, fmt.Errorf("unknown sort key operator %q", rc.Op)
		}
	}

	if in.After != nil {
		if ix := in.Index; ix != nil {
			k, err := indexKeyOf(t, ix, in.After)
			if err != nil {
				return "", nil, fmt.Errorf("exclusive start key: %w", err)
			}
			for _, b := range k.sort {
				args = append(args, b)
			}
			args = append(args, k.base.pk, k.base.sk)
		} else {
			k, err := tableKey(t, in.After)
			if err != nil {
				return "", nil, fmt.Errorf("exclusive start key: %w", err)
			}
			args = append(args, k.sk)
		}
	}
	args = append(args, sqlLimit(in.Limit))
	return s.stmts.get(name, v), args, nil
}

// sqlLimit maps the contract's limit (<= 0: none) to SQLite's (-1: none).
func sqlLimit(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}
