package pgstore

import (
	"context"
	"fmt"
	"math"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// Query and Scan run the statement dynamopg.item_query_sql or item_scan_sql
// builds for their shape, read once per shape and table and prepared by pgx
// on each connection: where the PL/pgSQL item_query built and planned its
// statement again on every call (~150 us of PostgreSQL per Query; the
// statement itself ~10 us).

// readShape names one read statement of one table.
type readShape struct {
	table, index int64
	scan         bool   // item_scan_sql; else item_query_sql
	op           string // the sort key operator ("" none)
	forward      bool
	after        bool // with an exclusive start key
	eq           int32
}

// readStmt returns the statement text of shape, read once.
func (s *Store) readStmt(ctx context.Context, sh readShape) (string, error) {
	if v, ok := s.readStmts.Load(sh); ok {
		return v.(string), nil
	}
	var stmt string
	var err error
	if sh.scan {
		stmt, err = s.q.ItemScanSQL(ctx, s.pool, gen.ItemScanSQLParams{TableID: sh.table, IndexID: sh.index, After: sh.after})
	} else {
		stmt, err = s.q.ItemQuerySQL(ctx, s.pool, gen.ItemQuerySQLParams{
			TableID: sh.table, IndexID: sh.index, Op: sh.op, Forward: sh.forward, After: sh.after, Eq: sh.eq})
	}
	if err != nil {
		return "", err
	}
	s.readStmts.Store(sh, stmt)
	return stmt, nil
}

// ItemQuery reads one partition of the table or of an index in key order.
func (s *Store) ItemQuery(ctx context.Context, t *store.Table, in store.QueryInput) ([]attr.Item, error) {
	return decodeWire(s.ItemQueryJSON(ctx, t, in))
}

// ItemQueryJSON is ItemQuery's items as wire JSON.
func (s *Store) ItemQueryJSON(ctx context.Context, t *store.Table, in store.QueryInput) ([][]byte, error) {
	sh := readShape{table: t.ID, forward: in.Forward, after: in.After != nil, eq: 1}
	if in.Index != nil {
		sh.index = in.Index.ID
	}
	// $1: the partition key value, or, for a multi-attribute key, the
	// array of every equality (item_query_sql).
	hash := encodeValue(in.Hash)
	if len(in.Eq) > 0 {
		hash = encodeValues(append([]attr.Value{in.Hash}, in.Eq...))
		sh.eq = int32(1 + len(in.Eq))
	}
	var v1, v2 []byte
	if r := in.Range; r != nil {
		sh.op = string(r.Op)
		if len(r.Values) > 0 {
			v1 = encodeValue(r.Values[0])
		}
		if len(r.Values) > 1 {
			v2 = encodeValue(r.Values[1])
		}
		if r.Op == store.RangeBeginsWith && len(r.Values) > 0 {
			end, ok, err := prefixEnd(r.Values[0])
			if err != nil {
				return nil, err
			}
			if v2 = end; !ok {
				sh.op = string(store.RangeGE) // no string is above every one with the prefix
			}
		}
	}
	stmt, err := s.readStmt(ctx, sh)
	if err != nil {
		return nil, wrap("item query", err)
	}
	return wireRead("item query")(s.reads.queryAll(ctx, stmt, hash, v1, v2, encodeItem(in.After), limitArg(in.Limit)))
}

// ItemScan reads one segment of the table or of an index in (KeyHash, key)
// order.
func (s *Store) ItemScan(ctx context.Context, t *store.Table, in store.ScanInput) ([]attr.Item, error) {
	return decodeWire(s.ItemScanJSON(ctx, t, in))
}

// ItemScanJSON is ItemScan's items as wire JSON.
func (s *Store) ItemScanJSON(ctx context.Context, t *store.Table, in store.ScanInput) ([][]byte, error) {
	total := max(in.TotalSegments, 1)
	lo, hi := store.SegmentBounds(in.Segment, total)
	sh := readShape{table: t.ID, scan: true, after: in.After != nil}
	if in.Index != nil {
		sh.index = in.Index.ID
	}
	stmt, err := s.readStmt(ctx, sh)
	if err != nil {
		return nil, wrap("item scan", err)
	}
	return readJSON(ctx, s.pool, "item scan", stmt, int64(lo), int64(hi), encodeItem(in.After), limitArg(in.Limit))
}

// readJSON runs a read statement through db and returns the items it
// read as wire JSON.
func readJSON(ctx context.Context, db gen.DBTX, op, stmt string, args ...any) ([][]byte, error) {
	return wireRead(op)(collectItems(db.Query(ctx, stmt, args...)))
}

// wireRead returns what turns a read's rows, jsonb's text of the stored
// items (each a copy of its own), into their wire JSON: compacted in place,
// NUL escape undone. It wraps the read's error with op.
func wireRead(op string) func([][]byte, error) ([][]byte, error) {
	return func(raw [][]byte, err error) ([][]byte, error) {
		if err != nil {
			return nil, wrap(op, err)
		}
		for i, r := range raw {
			raw[i] = unescapeJSON(appendCompactJSON(r[:0], r))
		}
		return raw, nil
	}
}

// decodeWire decodes the items of a read's wire JSON.
func decodeWire(raw [][]byte, err error) ([]attr.Item, error) {
	if err != nil {
		return nil, err
	}
	out := make([]attr.Item, len(raw))
	for i, r := range raw {
		if out[i], err = attr.DecodeItem(r); err != nil {
			return nil, fmt.Errorf("pgstore: decode item: %w", err)
		}
	}
	return out, nil
}

// limitArg is a limit as the statements take it: NULL for none.
func limitArg(n int) any {
	if n <= 0 || n > math.MaxInt32 {
		return nil
	}
	return int32(n)
}
