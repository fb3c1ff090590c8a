package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// ItemQuery reads one partition of a table or index in key order.
//
// On a table the order is sk; on an index it is (isk, pk, sk): the index
// key, then the base key as tie-break, all in the direction of Forward, so
// that After (index key + base key) resumes exactly.
func (s *Store) ItemQuery(ctx context.Context, t *store.Table, in store.QueryInput) ([]attr.Item, error) {
	q, args, err := buildQuery(t, in)
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", t.Name, err)
	}
	var out []attr.Item
	err = s.inRead(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, q, args...)
		if err == nil {
			out, err = readItems(rows)
		}
		if err != nil {
			return explain(ctx, tx, t, in.Index, "query", err)
		}
		return nil
	})
	return out, err
}

// buildQuery renders the SELECT of a Query:
//
//	SELECT item FROM <storage>
//	WHERE <partition> = ?
//	  AND <sort key condition>            -- when in.Range is set
//	  AND (<order columns>) > (?, ...)    -- when in.After is set (< backwards)
//	ORDER BY <order columns> ASC|DESC
//	LIMIT ?
func buildQuery(t *store.Table, in store.QueryInput) (string, []any, error) {
	var (
		from      string
		partition string
		rangeCol  string
		rangeKey  *store.KeyAttr
		hashKey   *store.KeyAttr
		order     []string
	)
	if ix := in.Index; ix != nil {
		from, partition, rangeCol = indexTable(ix.ID), "ipk", "isk"
		hashKey, rangeKey = &ix.Hash, ix.Range
		order = []string{"isk", "pk", "sk"}
	} else {
		from, partition, rangeCol = dataTable(t.ID), "pk", "sk"
		hashKey, rangeKey = &t.Hash, t.Range
		order = []string{"sk"}
	}
	if in.Hash.T != hashKey.Type {
		return "", nil, fmt.Errorf("partition key %q has type %s, want %s", hashKey.Name, in.Hash.T, hashKey.Type)
	}
	var w strings.Builder
	args := []any{keyBytes(in.Hash)}
	fmt.Fprintf(&w, "SELECT item FROM %s\nWHERE %s = ?", from, partition)

	if rc := in.Range; rc != nil {
		if rangeKey == nil {
			return "", nil, fmt.Errorf("sort key condition on a key without sort key")
		}
		vals := make([][]byte, len(rc.Values))
		for i, v := range rc.Values {
			if v.T != rangeKey.Type {
				return "", nil, fmt.Errorf("sort key %q condition value has type %s, want %s", rangeKey.Name, v.T, rangeKey.Type)
			}
			vals[i] = keyBytes(v)
		}
		need := 1
		if rc.Op == store.RangeBetween {
			need = 2
		}
		if len(vals) != need {
			return "", nil, fmt.Errorf("sort key condition %s takes %d values, got %d", rc.Op, need, len(vals))
		}
		switch rc.Op {
		case store.RangeEQ, store.RangeLT, store.RangeLE, store.RangeGT, store.RangeGE:
			fmt.Fprintf(&w, "\n  AND %s %s ?", rangeCol, sqlOps[rc.Op])
			args = append(args, vals[0])
		case store.RangeBetween:
			fmt.Fprintf(&w, "\n  AND %s BETWEEN ? AND ?", rangeCol)
			args = append(args, vals[0], vals[1])
		case store.RangeBeginsWith:
			if rangeKey.Type == attr.TypeN {
				return "", nil, fmt.Errorf("begins_with on a number sort key")
			}
			// A byte range: [prefix, prefixEnd(prefix)), open above when
			// the prefix is all 0xff.
			fmt.Fprintf(&w, "\n  AND %s >= ?", rangeCol)
			args = append(args, vals[0])
			if end := prefixEnd(vals[0]); end != nil {
				fmt.Fprintf(&w, " AND %s < ?", rangeCol)
				args = append(args, end)
			}
		default:
			return "", nil, fmt.Errorf("unknown sort key operator %q", rc.Op)
		}
	}

	cmp, dir := ">", "ASC"
	if !in.Forward {
		cmp, dir = "<", "DESC"
	}
	if in.After != nil {
		var after []any
		if ix := in.Index; ix != nil {
			k, err := indexKeyOf(t, ix, in.After)
			if err != nil {
				return "", nil, fmt.Errorf("exclusive start key: %w", err)
			}
			after = []any{k.isk, k.base.pk, k.base.sk}
		} else {
			k, err := tableKey(t, in.After)
			if err != nil {
				return "", nil, fmt.Errorf("exclusive start key: %w", err)
			}
			after = []any{k.sk}
		}
		fmt.Fprintf(&w, "\n  AND %s %s %s", rowValue(order), cmp, placeholders(len(after)))
		args = append(args, after...)
	}
	w.WriteString("\nORDER BY ")
	for i, c := range order {
		if i > 0 {
			w.WriteString(", ")
		}
		fmt.Fprintf(&w, "%s %s", c, dir)
	}
	w.WriteString("\nLIMIT ?")
	args = append(args, sqlLimit(in.Limit))
	return w.String(), args, nil
}

var sqlOps = map[store.RangeOp]string{
	store.RangeEQ: "=", store.RangeLT: "<", store.RangeLE: "<=", store.RangeGT: ">", store.RangeGE: ">=",
}

// rowValue renders columns as a row value: "(a, b)", or "a" for one column.
func rowValue(cols []string) string {
	if len(cols) == 1 {
		return cols[0]
	}
	return "(" + strings.Join(cols, ", ") + ")"
}

// placeholders renders n bind parameters as a row value.
func placeholders(n int) string {
	if n == 1 {
		return "?"
	}
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
}

// sqlLimit maps the contract's limit (<= 0: none) to SQLite's (-1: none).
func sqlLimit(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}
