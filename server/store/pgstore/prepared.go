package pgstore

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// The one write path. Every item write (ItemWrite, the blind ItemPut,
// ItemRemove and ItemWriteMany, ItemTransact, the TTL sweeper's deletes)
// is its data row's statement, its sync index rows' statements, a queue
// row when the table has async indexes, and a stream record when its
// stream is enabled: per-table and per-index statements
// (dynamopg.item_write_sql and index_write_sql, QueueEnqueueKey) that pgx
// prepares once per connection, pipelined in one transaction. The SQL
// builds each index row itself, from the one definition of the indexing
// rules (index_row_sql: key columns, whether the item is indexable, its
// projection); Go passes what it knows: the key hashes (store.KeyHash), the
// queue key and the stream record's arguments (the event, both images, the
// label). Each statement that opens a write checks the catalog version of
// the description it was built from, so a description that went stale (an
// index, or a stream, added or removed since) is refused with ErrStaleTable
// before anything is written, and the request reruns on the current one;
// every description pgstore hands out carries its version.

// statement is one SQL statement and its arguments.
type statement struct {
	sql  string
	args []any
}

// itemWrite is the statements of one item write: the data row's, whose one
// result the caller reads, then the index, queue and stream statements,
// which follow it in its transaction. sql is empty when there is nothing to
// write.
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

// tableStmts is the prepared statements of one table's writes, for the
// description t.
type tableStmts struct {
	t       *store.Table
	data    *gen.ItemWriteSQLRow
	indexes []*gen.IndexWriteSQLRow // t.Indexes[i]'s; nil for an async one
	queued  bool                    // t has an async index: writes enqueue
	enqueue string                  // the statement that does (enqueueStatement)
	// stream is t's stream specification; writes record their changes
	// when it is enabled.
	stream store.StreamSpec
	// sized: t has a local index, and its writes keep the sizes of its
	// item collections (collections.go).
	sized bool
	// guard is the optimistic writes' statements when t's writes are the
	// data row alone (guarded.go).
	guard *gen.ItemGuardSQLRow
}

// writeStmts returns t's statements, their texts each read once (they
// depend only on the ids and key schemas of the table and its indexes). It
// takes a pool connection of its own, so callers call it before they hold
// one: waiting for a second connection while holding one can exhaust the
// pool with their peers.
func (s *Store) writeStmts(ctx context.Context, t *store.Table) (*tableStmts, error) {
	ts := &tableStmts{t: t, indexes: make([]*gen.IndexWriteSQLRow, len(t.Indexes)),
		enqueue: s.enqueueStatement(), stream: store.StreamSpecOf(t), sized: t.HasLocalIndex()}
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
	if ts.guardable() {
		// Read with the others, so that a table's first write (a blind
		// put, say) leaves UpdateItem nothing to read first.
		g, err := s.itemGuardStmts(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		ts.guard = g
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

// lock is the statement that opens ItemWrite's and ItemTransact's
// transaction on the item at keyJSON: the catalog check, then the item
// locked and read.
func (ts *tableStmts) lock(keyJSON []byte) statement {
	return statement{ts.data.LockSql, []any{keyJSON, ts.t.Version}}
}

// put is the blind put of item: one statement that checks the catalog,
// locks the item and updates or inserts it (and, with the stream enabled,
// records the change with the image it replaced, unless the put leaves the
// item as it was: dynamopg.item_same, the SQL form of store.StreamChanged,
// since only the statement sees the old item), then the index statements.
func (ts *tableStmts) put(item attr.Item) (itemWrite, error) {
	size, err := itemSize(item)
	if err != nil {
		return itemWrite{}, err
	}
	itemJSON := encodeItemSized(item, size)
	st := statement{ts.data.PutSql, []any{itemJSON, size, keyHash(ts.t.Hash.Name, item), ts.t.Version}}
	if ts.stream.Enabled {
		st = statement{ts.data.PutStreamSql, append(st.args, encodeItem(ts.t.KeyOf(item)), ts.stream.Label, hasSet(item))}
	}
	return ts.write(st, nil, item, itemJSON), nil
}

// blindRemoveSafe reports whether remove may run on t: only when its
// writes keep no index rows. A blind delete of an absent item locks
// nothing (a concurrent put's insert, not yet committed, is invisible to
// it and does not make it wait), so the index deletes pipelined after it,
// each on a newer snapshot, can delete the index rows of that put once it
// has committed, leaving the item without them. The lock path (ItemWrite)
// writes index rows only under the item's row lock.
func (ts *tableStmts) blindRemoveSafe() bool {
	return !slices.ContainsFunc(ts.indexes, func(ix *gen.IndexWriteSQLRow) bool { return ix != nil })
}

// upsert is put for a caller that does not want the item it replaces, on
// a table without a stream: item_write_sql's upsert_sql, one INSERT … ON
// CONFLICT DO UPDATE gated by the catalog check, whose one result is NULL
// (the old item is not read), then the index statements, which need no old
// item either (they delete by key).
func (ts *tableStmts) upsert(item attr.Item) (itemWrite, error) {
	size, err := itemSize(item)
	if err != nil {
		return itemWrite{}, err
	}
	itemJSON := encodeItemSized(item, size)
	st := statement{ts.data.UpsertSql, []any{itemJSON, size, keyHash(ts.t.Hash.Name, item), ts.t.Version}}
	return ts.write(st, nil, item, itemJSON), nil
}

// remove is the blind delete of keyJSON, likewise (blindRemoveSafe).
func (ts *tableStmts) remove(keyJSON []byte) itemWrite {
	st := statement{ts.data.RemoveSql, []any{keyJSON, ts.t.Version}}
	if ts.stream.Enabled {
		st = statement{ts.data.RemoveStreamSql, append(st.args, keyJSON, ts.stream.Label)}
	}
	return ts.write(st, keyJSON, nil, nil)
}

// store is the write of nu over old at keyJSON after the transaction locked
// the item (lock): an insert, a replace or a delete, then the index
// statements and the stream record (none for a write that leaves the item
// as it was: store.StreamChanged); nothing when both are nil. ttl marks a
// deletion by the TTL sweeper in its record.
func (ts *tableStmts) store(keyJSON []byte, old, nu attr.Item, ttl bool) (itemWrite, error) {
	var w itemWrite
	switch {
	case nu == nil && old == nil:
		return itemWrite{}, nil
	case nu == nil:
		w = ts.write(statement{ts.data.DeleteSql, []any{keyJSON}}, keyJSON, nil, nil)
	default:
		size, err := itemSize(nu)
		if err != nil {
			return itemWrite{}, err
		}
		nuJSON := encodeItem(nu)
		if old == nil {
			w = ts.write(statement{ts.data.InsertSql, []any{nuJSON, size, keyHash(ts.t.Hash.Name, nu)}}, keyJSON, nu, nuJSON)
		} else {
			w = ts.write(statement{ts.data.ReplaceSql, []any{nuJSON, size}}, keyJSON, nu, nuJSON)
		}
	}
	if ts.stream.Enabled && store.StreamChanged(old, nu) {
		w.extra = append(w.extra, ts.record(old, nu, ttl && nu == nil))
	}
	return w, nil
}

// record is the stream record of the change from old to nu (not both nil).
// It comes last in the write's pipeline: its advisory lock is then held for
// the shortest time (stream.sql).
func (ts *tableStmts) record(old, nu attr.Item, ttl bool) statement {
	event, it := "MODIFY", nu
	switch {
	case old == nil:
		event = "INSERT"
	case nu == nil:
		event, it = "REMOVE", old
	}
	return statement{ts.data.RecordSql, []any{ts.stream.Label, event, encodeItem(ts.t.KeyOf(it)),
		encodeItem(old), encodeItem(nu), ttl}}
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

// hasSet reports whether it holds a set (SS, NS or BS) at any depth:
// put_stream_sql's hint that two different encodings may still be the
// same item (dynamopg.item_same).
func hasSet(it attr.Item) bool {
	for _, v := range it {
		if valueHasSet(v) {
			return true
		}
	}
	return false
}

func valueHasSet(v attr.Value) bool {
	switch v.T {
	case attr.TypeSS, attr.TypeNS, attr.TypeBS:
		return true
	case attr.TypeM:
		return hasSet(v.M)
	case attr.TypeL:
		for _, e := range v.L {
			if valueHasSet(e) {
				return true
			}
		}
	}
	return false
}

// keyHash is the hk column of item in a table or index whose partition key
// is the attribute name (store.KeyHash of it), computed here rather than by
// the PL/pgSQL dynamopg.key_hash. An item without it (or with it of another
// type) is not indexed: the index's insert writes no row whatever the hash.
func keyHash(name string, item attr.Item) int64 {
	return int64(store.KeyHash(item[name]))
}

// itemSize is item's size as the size column holds it.
func itemSize(item attr.Item) (int32, error) {
	size := item.Size()
	if size > math.MaxInt32 {
		return 0, fmt.Errorf("pgstore: item write: item of %d bytes", size)
	}
	return int32(size), nil
}
