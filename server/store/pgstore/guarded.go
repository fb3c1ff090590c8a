package pgstore

import (
	"bytes"
	"context"
	"sync"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// The optimistic ItemWrite: on a table whose writes are the data row alone
// (no index, no stream, no local index), UpdateItem and the conditional
// PutItem and DeleteItem compute the new item in Go from the item they
// believe is there, and write it in one statement that writes only if the
// row still holds exactly that item (dynamopg.item_guard_sql's statements): one round
// trip and no transaction held open across round trips, where the locking
// path (itemWriteOnce) needs two. The belief comes from the last image
// this process read or wrote (itemImages), else "absent" (a conditional
// put of a new key). A wrong belief costs one round trip: the statement
// returns the item it found, locked, and the write is computed again from
// that. So it is exact under any concurrency; after guardAttempts the
// write falls back to the locking path, whose row lock serializes writers
// of a hot key.

// guardAttempts bounds the optimistic statements of one ItemWrite.
const guardAttempts = 3

// guardable reports whether ts's writes are the data row's statement alone.
func (ts *tableStmts) guardable() bool {
	return len(ts.indexes) == 0 && !ts.stream.Enabled && !ts.sized
}

// itemWriteGuarded is ItemWrite's optimistic path. done reports that the
// write is over (applied, refused by fn, or failed); when not, the caller
// runs the locking path.
func (s *Store) itemWriteGuarded(ctx context.Context, t *store.Table, keyJSON []byte, fn store.WriteFunc) (old attr.Item, done bool, err error) {
	ts, err := s.writeStmts(ctx, t)
	if err != nil {
		return nil, true, err
	}
	if !ts.guardable() || testHookAfterCatalogRead.Load() != nil || testHookBeforeStatement.Load() != nil {
		// The build tests' hooks pause a write between its catalog read
		// and its write statement, which only the locking path has.
		return nil, false, nil
	}
	stmts := ts.guard
	// verified: guess is what the row held at some point of this write (a
	// read of it, or the item a failed statement found), not a belief.
	guess := s.images.get(t.ID, keyJSON)
	verified := false
	for attempt := 0; attempt < guardAttempts; attempt++ {
		if old, err = decodeItem(guess); err != nil {
			return nil, true, err
		}
		nu, ferr := fn(old.Clone())
		if ferr != nil {
			if verified {
				// guess was the row's item at some point of this write:
				// refusing on it is what the locking path would do.
				return nil, true, ferr
			}
			// A belief is not enough to refuse: read the item.
			cur, err := s.itemGetRaw(ctx, t.ID, keyJSON)
			if err != nil {
				return nil, true, err
			}
			if bytes.Equal(cur, guess) {
				return nil, true, ferr
			}
			guess, verified = cur, true
			continue
		}
		var nuJSON []byte
		var size int32
		if nu != nil {
			if size, err = itemSize(nu); err != nil {
				return nil, true, err
			}
			nuJSON = encodeItem(nu)
		}
		var cur []byte
		var applied bool
		switch {
		case guess == nil && nu == nil:
			// Absent and stays absent: the lock statement shows which.
			err = s.pool.QueryRow(ctx, ts.data.LockSql, keyJSON, t.Version).Scan(&cur)
			applied = cur == nil
		case guess == nil:
			err = s.pool.QueryRow(ctx, stmts.InsertSql, nuJSON, size, keyHash(t.Hash.Name, nu), t.Version).Scan(&cur, &applied)
		case nu == nil:
			err = s.pool.QueryRow(ctx, stmts.DeleteSql, keyJSON, guess, t.Version).Scan(&cur, &applied)
		default:
			err = s.pool.QueryRow(ctx, stmts.UpdateSql, keyJSON, guess, nuJSON, size, t.Version).Scan(&cur, &applied)
		}
		if err != nil {
			if retryable(err) {
				return nil, false, nil // the locking path retries
			}
			return nil, true, wrap("item write", err)
		}
		if applied {
			s.images.put(t.ID, keyJSON, nuJSON)
			return old, true, nil
		}
		guess, verified = cur, true
	}
	return nil, false, nil
}

// itemGuardStmts returns table id's item_guard_sql texts, read once per
// table.
func (s *Store) itemGuardStmts(ctx context.Context, id int64) (*gen.ItemGuardSQLRow, error) {
	if v, ok := s.guardStmts.Load(id); ok {
		return v.(*gen.ItemGuardSQLRow), nil
	}
	row, err := s.q.ItemGuardSQL(ctx, s.pool, gen.ItemGuardSQLParams{TableID: id})
	if err != nil {
		return nil, wrap("item write", err)
	}
	s.guardStmts.Store(id, &row)
	return &row, nil
}

// itemGetRaw reads the item at keyJSON as stored (NULL: absent), as ItemGet.
func (s *Store) itemGetRaw(ctx context.Context, id int64, keyJSON []byte) ([]byte, error) {
	stmt, err := s.itemGetStmt(ctx, id)
	if err != nil {
		return nil, err
	}
	var raw []byte
	if err := s.pool.QueryRow(ctx, stmt, keyJSON).Scan(&raw); err != nil {
		return nil, wrap("item get", err)
	}
	s.images.put(id, keyJSON, raw)
	return raw, nil
}

// imagesBudget bounds the bytes of the images itemImages keeps.
const imagesBudget = 8 << 20

// itemImages is the last image of items this process read or wrote, by
// table id and encoded key: the optimistic write's belief. An image may be
// out of date (another process, or a write that failed after its
// statement): the write's statement finds out. Past imagesBudget, arbitrary
// images are dropped.
type itemImages struct {
	mu    sync.Mutex
	m     map[imageKey][]byte
	bytes int
}

type imageKey struct {
	table int64
	key   string
}

// get returns the image of the item at keyJSON; nil (none known) is the
// belief "absent".
func (c *itemImages) get(table int64, keyJSON []byte) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[imageKey{table, string(keyJSON)}]
}

// put records raw (nil: absent) as the image of the item at keyJSON.
func (c *itemImages) put(table int64, keyJSON, raw []byte) {
	k := imageKey{table, string(keyJSON)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[k]; ok {
		c.bytes -= len(old) + len(k.key)
		delete(c.m, k)
	}
	if raw == nil {
		return // absent is the default belief
	}
	if c.m == nil {
		c.m = make(map[imageKey][]byte)
	}
	for mk, v := range c.m {
		if c.bytes+len(raw)+len(k.key) <= imagesBudget {
			break
		}
		c.bytes -= len(v) + len(mk.key)
		delete(c.m, mk)
	}
	c.m[k] = raw
	c.bytes += len(raw) + len(k.key)
}
