package pgstore

import (
	"context"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// Plain tables: a table with no index and no stream writes only its data
// row, so its item writes run as per-table statements
// (dynamopg.item_write_sql) that pgx prepares once per connection, instead
// of the PL/pgSQL item functions that plan their dynamic SQL on every call.
// Each statement that opens a write checks the catalog version of t, so a
// description that went stale (an index or a stream added since) is
// refused with ErrStaleTable and the request reruns on the item functions.

// plainTable reports whether t's writes can use the plain statements: it
// has no index, no stream option (the item functions' own tests,
// `p_def ? 'indexes'` and `p_def->'options' ? 'stream'`), and a catalog
// version for the statements to check.
func plainTable(t *store.Table) bool {
	_, stream := t.Options["stream"]
	return t.Version != 0 && len(t.Indexes) == 0 && !stream
}

// plainStmts returns t's item_write_sql texts, read once per table (they
// depend only on its id and key schema), or nil when t is not plain.
func (s *Store) plainStmts(ctx context.Context, t *store.Table) (*gen.ItemWriteSQLRow, error) {
	if !plainTable(t) {
		return nil, nil
	}
	if v, ok := s.writeStmts.Load(t.ID); ok {
		return v.(*gen.ItemWriteSQLRow), nil
	}
	row, err := s.q.ItemWriteSQL(ctx, s.pool, gen.ItemWriteSQLParams{TableID: t.ID})
	if err != nil {
		return nil, wrap("item write statements", err)
	}
	s.writeStmts.Store(t.ID, &row)
	return &row, nil
}

// keyHash is the hk column of item in t (store.KeyHash of its partition
// key), computed here rather than by the PL/pgSQL dynamopg.key_hash.
func keyHash(t *store.Table, item attr.Item) int64 {
	return int64(store.KeyHash(item[t.Hash.Name]))
}
