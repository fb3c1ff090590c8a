package pgstore

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

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
// path (itemWriteOnce) needs two. (The insert of a key believed absent is
// an INSERT … ON CONFLICT DO NOTHING, which returns no item when the key is
// taken: the item is then read, a second round trip.) The belief comes from the last image
// this process read or wrote (itemImages), else "absent" (a conditional
// put of a new key). A wrong belief costs one round trip: the statement
// returns the item it found, locked, and the write is computed again from
// that. So it is exact under any concurrency; after guardAttempts the
// write falls back to the locking path, whose row lock serializes writers
// of a hot key. When the belief comes from this process's last optimistic
// write of the item, that statement returned the row version it wrote
// (ctid and xmin), and an update is guarded by that version instead of by
// the item: a TID scan, and no second ~1 KB jsonb to parse and compare
// (update_version_sql), which sends only the attributes that change
// (itemPatch); it returns nothing when the row changed, and the item is
// then read.

// guardAttempts bounds the optimistic statements of one ItemWrite.
const guardAttempts = 3

// guardable reports whether ts's writes are the data row's statement alone.
func (ts *tableStmts) guardable() bool { return guardable(ts.t) }

// guardable reports whether t's writes are the data row's statement alone
// (no index, no stream, no local index): the optimistic write's tables,
// the only ones whose item images are of use.
func guardable(t *store.Table) bool {
	return len(t.Indexes) == 0 && !store.StreamSpecOf(t).Enabled && !t.HasLocalIndex()
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
	k, err := s.flights.enter(ctx, t.ID, keyJSON)
	if err != nil {
		return nil, true, wrap("item write", err)
	}
	defer s.flights.leave(k)
	stmts := ts.guard
	// row runs one of the item's statements, with the writes in flight.
	row := func(sql string, args ...any) coalescedRow {
		return s.writes.lockingRow(ctx, t.ID, keyJSON, sql, args...)
	}
	// verified: guess is what the row held at some point of this write (a
	// read of it, or the item a failed statement found), not a belief.
	belief := s.images.get(t.ID, keyJSON)
	// guess nil is "absent" unless belief.item holds the item, whose
	// encoding only some statements need (guessRaw).
	guess := belief.raw
	absent := func() bool { return guess == nil && belief.item == nil }
	guessRaw := func() []byte {
		if guess == nil && belief.item != nil {
			guess = encodeItem(belief.item)
		}
		return guess
	}
	verified := false
	for attempt := 0; attempt < guardAttempts; attempt++ {
		if belief.item != nil {
			// The item believed, as this process wrote it; a copy, as
			// the caller gets old.
			old = belief.item.Clone()
		} else if old, err = decodeItem(guess); err != nil {
			return nil, true, err
		}
		nu, ferr := fn(old)
		if ferr != nil {
			if verified {
				// guess was the row's item at some point of this write:
				// refusing on it is what the locking path would do.
				return nil, true, ferr
			}
			// A belief is not enough to refuse: read the item.
			cur, err := s.itemGetRaw(ctx, t.ID, keyJSON, true)
			if err != nil {
				return nil, true, err
			}
			if bytes.Equal(cur, guessRaw()) {
				return nil, true, ferr
			}
			guess, verified, belief = cur, true, image{}
			continue
		}
		var size int32
		if nu != nil {
			if size, err = itemSize(nu); err != nil {
				return nil, true, err
			}
		}
		var nuJSON []byte // encoded for the statements that take the item
		nuRaw := func() []byte {
			if nuJSON == nil {
				nuJSON = encodeItemSized(nu, size)
			}
			return nuJSON
		}
		// An update of a row version this process wrote sends only the
		// change (itemPatch); not when a removed name is spelled escaped.
		var set attr.Item
		var removed []string
		patched := false
		if belief.ctid != "" && nu != nil { // old is the item believed
			set, removed, patched = itemPatch(old, nu)
		}
		var cur []byte
		var applied, reread bool
		var ctid, xmin pgtype.Text // the row version written (insert, update)
		switch {
		case absent() && nu == nil:
			// Absent and stays absent: the lock statement shows which.
			err = row(ts.data.LockSql, keyJSON, t.Version).Scan(&cur)
			applied = cur == nil
		case absent():
			err = row(stmts.InsertSql, nuRaw(), size, keyHash(t.Hash.Name, nu), t.Version).Scan(&cur, &applied, &ctid, &xmin)
			reread = errors.Is(err, pgx.ErrNoRows) // the key is taken
		case nu == nil:
			err = row(stmts.DeleteSql, keyJSON, guessRaw(), t.Version).Scan(&cur, &applied)
		case patched:
			err = row(stmts.UpdateVersionSql, keyJSON, belief.ctid, encodeItem(set), size, t.Version, belief.xmin, removed).Scan(&cur, &applied, &ctid, &xmin)
			reread = errors.Is(err, pgx.ErrNoRows) // another row version
		default:
			err = row(stmts.UpdateSql, keyJSON, guessRaw(), nuRaw(), size, t.Version).Scan(&cur, &applied, &ctid, &xmin)
		}
		if reread {
			// What the row holds instead is a read away.
			if cur, err = s.itemGetRaw(ctx, t.ID, keyJSON, true); err != nil {
				return nil, true, err
			}
		}
		if err != nil {
			if retryable(err) {
				return nil, false, nil // the locking path retries
			}
			return nil, true, wrap("item write", err)
		}
		if applied {
			// The item itself (a copy: the caller keeps nu), for the next
			// write's old; its encoding when a statement needed it.
			im := image{raw: nuJSON}
			if nu != nil {
				im.item, im.itemBytes = nu.Clone(), int(size)
			}
			if ctid.Valid && xmin.Valid {
				im.ctid, im.xmin = ctid.String, xmin.String
			}
			s.images.put(t.ID, keyJSON, im)
			return old, true, nil
		}
		guess, verified, belief = cur, true, image{}
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

// itemGetRaw reads the item at keyJSON of table id as stored (nil:
// absent), and keeps it as the item's image when keep is set. It runs the
// table's dynamopg.item_get_sql statement, which pgx prepares once per
// connection, with the other reads in flight (coalesce.go); no row means
// the table is gone (ErrTableNotFound).
func (s *Store) itemGetRaw(ctx context.Context, id int64, keyJSON []byte, keep bool) ([]byte, error) {
	stmt, err := s.itemGetStmt(ctx, id)
	if err != nil {
		return nil, err
	}
	var raw []byte
	if err := s.reads.queryRow(ctx, stmt, keyJSON).Scan(&raw); err != nil {
		return nil, wrap("item get", err)
	}
	if keep {
		s.images.putRead(id, keyJSON, raw)
	}
	return raw, nil
}

// imagesBudget bounds the bytes of the images itemImages keeps.
const imagesBudget = 8 << 20

// itemImages is the last image of items this process read or wrote, by
// table id and encoded key: the optimistic write's belief, with the row
// version (ctid, xmin) that holds it when the write that left it returned
// one. An image may be out of date (another process, or a write that
// failed after its statement): the write's statement finds out. Past
// imagesBudget, all images are dropped (the next write of each item reads
// it first).
type itemImages struct {
	mu    sync.Mutex
	m     map[imageKey]image
	bytes int
}

type imageKey struct {
	table int64
	key   string
}

// image is an item as stored (raw) or as this process wrote it (item,
// of DynamoDB size itemBytes; raw then only when a statement needed it);
// neither: absent. With it, when known, the row version holding it
// (item_guard_sql: a ctid and an xmin name one). Nothing changes item
// once it is in an image.
type image struct {
	raw        []byte
	item       attr.Item
	itemBytes  int
	ctid, xmin string
}

// present reports whether im is an item's (not "absent").
func (im image) present() bool { return im.raw != nil || im.item != nil }

// size is the bytes im holds, counting a decoded item as twice its size.
func (im image) size() int {
	return len(im.raw) + 2*im.itemBytes + len(im.ctid) + len(im.xmin)
}

// get returns the image of the item at keyJSON; none known is the belief
// "absent".
func (c *itemImages) get(table int64, keyJSON []byte) image {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[imageKey{table, string(keyJSON)}]
}

// putRead records raw, the item as a read found it, as the image of the
// item at keyJSON. A read equal to the image known keeps the image's row
// version: at worst the row version changed meanwhile (to an equal item),
// and the update guarded by it writes nothing and reads the item.
func (c *itemImages) putRead(table int64, keyJSON, raw []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[imageKey{table, string(keyJSON)}]; ok && old.ctid != "" && bytes.Equal(old.raw, raw) {
		return
	}
	c.putLocked(table, keyJSON, image{raw: raw})
}

// put records im (raw nil: absent) as the image of the item at keyJSON.
func (c *itemImages) put(table int64, keyJSON []byte, im image) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(table, keyJSON, im)
}

// putLocked is put with c.mu held.
func (c *itemImages) putLocked(table int64, keyJSON []byte, im image) {
	k := imageKey{table, string(keyJSON)}
	if old, ok := c.m[k]; ok {
		c.bytes -= old.size() + len(k.key)
		delete(c.m, k)
	}
	if !im.present() {
		return // absent is the default belief
	}
	if c.m == nil || c.bytes+im.size()+len(k.key) > imagesBudget {
		// Over budget: all go at once. Evicting one at a time started a
		// walk of the map on every put once it was full (3% of a
		// conditional PutItem of new keys).
		c.m, c.bytes = make(map[imageKey]image), 0
	}
	c.m[k] = im
	c.bytes += im.size() + len(k.key)
}
