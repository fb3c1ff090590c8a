package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// Prepared writes: on a table with no stream, an item write is its data
// row, its sync index rows and, when the table has async indexes, a queue
// row, so it runs as per-table and per-index statements
// (dynamopg.item_write_sql and index_write_sql, and QueueEnqueueKey) that
// pgx prepares once per connection, pipelined in one transaction, instead
// of the PL/pgSQL item functions that plan their dynamic SQL on every
// call. The SQL builds each index row itself, from the one definition of
// the indexing rules (dynamopg.index_row_sql: key columns, whether the item
// is indexable, its projection); Go computes the key hashes
// (store.KeyHash) and the queue key. Each statement that opens a write checks the catalog version
// of t, so a description that went stale (an index, or a stream, added or
// removed since) is refused with ErrStaleTable and the request reruns on
// the current one.

// statement is one SQL statement and its arguments.
type statement struct {
	sql  string
	args []any
}

// itemWrite is the statements of one item write: the data row's (an item
// function, or a prepared statement), whose one result the caller reads,
// then the index and queue statements of a prepared write, which follow it
// in its transaction. sql is empty when there is nothing to write.
type itemWrite struct {
	statement
	extra    []statement
	enqueues bool // extra queues the item for the async indexes
}

// queue adds w's statements to b and their destinations to dest (as
// runBatch reads them): the data row's result into main, the others
// executed.
func (w itemWrite) queue(b *pgx.Batch, dest []any, main any) []any {
	b.Queue(w.sql, w.args...)
	dest = append(dest, main)
	for _, x := range w.extra {
		b.Queue(x.sql, x.args...)
		dest = append(dest, nil)
	}
	return dest
}

// preparedTable reports whether t's writes can use the prepared statements:
// no stream option (the item functions' own test,
// `p_def->'options' ? 'stream'`), and a catalog version for the statements
// to check.
func preparedTable(t *store.Table) bool {
	_, stream := t.Options["stream"]
	return !stream && t.Version != 0
}

// tableStmts is the prepared statements of one table's writes.
type tableStmts struct {
	t       *store.Table
	data    *gen.ItemWriteSQLRow
	indexes []*gen.IndexWriteSQLRow // t.Indexes[i]'s; nil for an async one
	queued  bool                    // t has an async index: writes enqueue
	enqueue string                  // the statement that does (enqueueStatement)
}

// writeStmts returns t's statement texts, each read once (they depend only
// on the ids and key schemas of the table and its indexes), or nil when t
// is not preparedTable. It takes a pool connection of its own, so callers
// call it before they hold one: waiting for a second connection while
// holding one can exhaust the pool with their peers.
func (s *Store) writeStmts(ctx context.Context, t *store.Table) (*tableStmts, error) {
	if !preparedTable(t) {
		return nil, nil
	}
	ts := &tableStmts{t: t, indexes: make([]*gen.IndexWriteSQLRow, len(t.Indexes)), enqueue: s.enqueueStatement()}
	if v, ok := s.dataStmts.Load(t.ID); ok {
		ts.data = v.(*gen.ItemWriteSQLRow)
	} else {
		row, err := s.q.ItemWriteSQL(ctx, s.pool, gen.ItemWriteSQLParams{TableID: t.ID})
		if err != nil {
			return nil, wrap("item write statements", err)
		}
		ts.data = &row
		s.dataStmts.Store(t.ID, ts.data)
	}
	for i := range t.Indexes {
		if t.Indexes[i].Async() {
			ts.queued = true
			continue
		}
		ix, err := s.indexWriteStmts(ctx, s.pool, t.ID, t.Indexes[i].ID)
		if err != nil {
			return nil, err
		}
		ts.indexes[i] = ix
	}
	return ts, nil
}

// indexWriteStmts returns the statement texts keeping index id of table
// tableID in step with one item (dynamopg.index_write_sql), read once
// through db. An index (or table) gone is ErrStaleTable.
func (s *Store) indexWriteStmts(ctx context.Context, db gen.DBTX, tableID, id int64) (*gen.IndexWriteSQLRow, error) {
	if v, ok := s.indexStmts.Load(id); ok {
		return v.(*gen.IndexWriteSQLRow), nil
	}
	row, err := s.q.IndexWriteSQL(ctx, db, gen.IndexWriteSQLParams{TableID: tableID, IndexID: id})
	if err != nil {
		if interpretError(err) == store.ErrTableNotFound {
			// The index (or the table) is gone: the caller's description is out of date.
			return nil, store.ErrStaleTable
		}
		return nil, wrap("index write statements", err)
	}
	s.indexStmts.Store(id, &row)
	return &row, nil
}

// write is the item write whose data row's statement is st, followed by
// indexWrites.
func (ts *tableStmts) write(st statement, keyJSON []byte, nu attr.Item, nuJSON []byte) itemWrite {
	return itemWrite{statement: st, extra: ts.indexWrites(keyJSON, nu, nuJSON), enqueues: ts.queued}
}

// indexWrites is the statements keeping t's indexes in step with the write
// of nu (encoded as nuJSON) at keyJSON, or with its deletion (nu nil): the
// sync indexes' rows (the insert writes one only where nu is indexable),
// then the queue row for the async ones.
func (ts *tableStmts) indexWrites(keyJSON []byte, nu attr.Item, nuJSON []byte) []statement {
	if len(ts.indexes) == 0 {
		return nil
	}
	out := make([]statement, 0, 2*len(ts.indexes)+1)
	for i, ix := range ts.indexes {
		switch {
		case ix == nil:
			continue // async
		case nu == nil:
			out = append(out, statement{sql: ix.DeleteSql, args: []any{keyJSON}})
			continue
		}
		out = append(out, statement{sql: ix.DeleteSql, args: []any{nuJSON}},
			statement{sql: ix.InsertSql, args: []any{nuJSON, keyHash(ts.t.Indexes[i].Hash.Name, nu)}})
	}
	if ts.queued {
		if keyJSON == nil {
			keyJSON = encodeItem(ts.t.KeyOf(nu))
		}
		out = append(out, statement{sql: ts.enqueue, args: []any{ts.t.ID, keyJSON}})
	}
	return out
}

// keyHash is the hk column of item in a table or index whose partition key
// is the attribute name (store.KeyHash of it), computed here rather than by
// the PL/pgSQL dynamopg.key_hash. An item without it (or with it of another
// type) is not indexed: the index's insert writes no row whatever the hash.
func keyHash(name string, item attr.Item) int64 {
	return int64(store.KeyHash(item[name]))
}
