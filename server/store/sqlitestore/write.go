package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// ItemWrite changes one item under the write lock: it reads the current item,
// calls fn once, stores or deletes what fn returns, maintains every sync
// index of the table and enqueues the item for its async indexes, all in one
// transaction. The table's definition (its indexes) is t once its version
// is checked in that transaction (currentDef): a stale t fails with
// ErrStaleTable, writing nothing.
func (s *Store) ItemWrite(ctx context.Context, t *store.Table, key attr.Item, fn store.WriteFunc) (attr.Item, error) {
	var old attr.Item
	err := s.inWriteGrouped(ctx, func(tx *sql.Tx) error {
		tally := store.NewCollectionTally(s.collLimit)
		r, err := s.lockTarget(ctx, tx, t, key, 0, tally)
		if err != nil {
			return err
		}
		old = r.old
		neu, err := fn(old)
		if err != nil {
			return err // unchanged, as the contract says
		}
		if err := r.apply(ctx, tx, neu); err != nil {
			return err
		}
		return finishCollections(ctx, tx, tally)
	})
	if err != nil {
		return nil, err
	}
	return old, nil
}

// target is one item read inside a write transaction of store s: the
// current definition of its table (checked in that transaction),
// its encoded key and its current state (nil when absent), and its place
// in its write call: its position pos and the call's tally of item
// collections (coll names its collection when the table has a local
// index; collections.go).
type target struct {
	s     *Store
	def   *store.Table
	k     rowKey
	old   attr.Item
	pos   int
	tally *store.CollectionTally
	coll  store.CollectionKey
}

// lockTarget reads the current definition of t and the item at key, inside
// a write transaction (which already holds the database write lock), as
// write number pos of the call whose collections tally holds.
// ErrTableNotFound when the table is gone.
func (s *Store) lockTarget(ctx context.Context, tx *sql.Tx, t *store.Table, key attr.Item, pos int, tally *store.CollectionTally) (*target, error) {
	cur, k, old, ok, err := s.getChecked(ctx, tx, t, key)
	if !ok {
		if cur, err = currentDef(ctx, tx, t); err != nil {
			return nil, err
		}
		if k, err = tableKey(cur, key); err != nil {
			return nil, fmt.Errorf("write item of %q: %w", cur.Name, err)
		}
		if old, err = s.getRow(ctx, tx, cur.ID, k); err != nil {
			return nil, fmt.Errorf("write item of %q: %w", cur.Name, err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("write item of %q: %w", cur.Name, err)
	}
	r := &target{s: s, def: cur, k: k, old: old, pos: pos, tally: tally}
	if err := r.startCollection(ctx, tx); err != nil {
		return nil, err
	}
	return r, nil
}

// getChecked is currentDef and getRow in one statement (item_get_checked),
// for a description with a version: ok when the version is current and the
// item was read (old, nil when absent; err a failure to decode it). Not ok
// (a stale or gone table, a failed statement, a key the description
// refuses) leaves the answer to currentDef and getRow, which say why.
func (s *Store) getChecked(ctx context.Context, tx *sql.Tx, t *store.Table, key attr.Item) (cur *store.Table, k rowKey, old attr.Item, ok bool, err error) {
	if t.Version == 0 {
		return nil, k, nil, false, nil
	}
	if k, err = tableKey(t, key); err != nil {
		return nil, k, nil, false, nil
	}
	var version sql.NullInt64
	var raw []byte
	if err := tx.QueryRowContext(ctx, s.stmts.on("item_get_checked", t.ID), t.ID, k.pk, k.sk).Scan(&version, &raw); err != nil ||
		!version.Valid || version.Int64 != t.Version {
		return nil, k, nil, false, nil
	}
	if raw != nil {
		old, err = decodeItem(raw)
	}
	return t, k, old, true, err
}

// apply stores neu at the target (nil deletes it), maintains every sync
// index of its table and, when the table has async indexes, enqueues the
// item for the queue workers (queue.go, worker.go), records the change in
// the table's stream when it is enabled (stream.go), and adds it to the
// call's tally of item collections (collections.go), which the call
// finishes before it commits (finishCollections). Deleting an absent item
// changes nothing. Every write path (ItemWrite, ItemTransact) goes through
// apply.
func (r *target) apply(ctx context.Context, tx *sql.Tx, neu attr.Item) error {
	if neu == nil && r.old == nil {
		return nil
	}
	cur := r.def
	if cur.HasLocalIndex() {
		r.tally.Add(r.coll, r.pos, cur, r.old, neu)
	}
	if err := r.s.putRow(ctx, tx, cur, r.k, neu); err != nil {
		return fmt.Errorf("write item of %q: %w", cur.Name, err)
	}
	async := false
	for i := range cur.Indexes {
		ix := &cur.Indexes[i]
		if ix.Async() {
			async = true
			continue
		}
		if err := r.s.indexRow(ctx, tx, cur, ix, r.k, r.old != nil, neu); err != nil {
			return fmt.Errorf("write item of %q: index %q: %w", cur.Name, ix.Name, err)
		}
	}
	if async {
		if err := r.enqueue(ctx, tx); err != nil {
			return fmt.Errorf("write item of %q: %w", cur.Name, err)
		}
	}
	if err := r.streamRecord(ctx, tx, neu); err != nil {
		return fmt.Errorf("write item of %q: %w", cur.Name, err)
	}
	return nil
}

// getRow reads one item by its encoded key; nil when absent.
func (s *Store) getRow(ctx context.Context, q querier, id int64, k rowKey) (attr.Item, error) {
	raw, err := s.getRowJSON(ctx, q, id, k)
	if err != nil || raw == nil {
		return nil, err
	}
	return decodeItem(raw)
}

// getRowJSON reads one item's stored wire JSON by its encoded key; nil when
// absent.
func (s *Store) getRowJSON(ctx context.Context, q querier, id int64, k rowKey) ([]byte, error) {
	var raw []byte
	err := q.QueryRowContext(ctx, s.stmts.on("item_get", id), k.pk, k.sk).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return raw, err
}

// putRow stores an item at key k, or deletes the row when it is nil.
func (s *Store) putRow(ctx context.Context, tx *sql.Tx, t *store.Table, k rowKey, it attr.Item) error {
	if it == nil {
		_, err := tx.ExecContext(ctx, s.stmts.on("item_delete", t.ID), k.pk, k.sk)
		return err
	}
	nk, err := tableKey(t, it)
	if err != nil {
		return fmt.Errorf("new item: %w", err)
	}
	if string(nk.pk) != string(k.pk) || string(nk.sk) != string(k.sk) {
		return errors.New("new item's key differs from the key written")
	}
	_, err = tx.ExecContext(ctx, s.stmts.on("item_put", t.ID), k.hk, k.pk, k.sk, it.AppendJSON(nil), it.Size())
	return err
}

// indexRow brings an item's row of one index up to date: it removes the row
// of the old state (when there was one) and inserts the projected new state
// when the item belongs in the index.
func (s *Store) indexRow(ctx context.Context, tx *sql.Tx, t *store.Table, ix *store.Index, k rowKey, hadOld bool, neu attr.Item) error {
	if hadOld {
		if _, err := tx.ExecContext(ctx, s.stmts.on("index_delete", ix.ID), k.pk, k.sk); err != nil {
			return err
		}
	}
	if neu == nil || !ix.Indexable(neu) {
		return nil
	}
	return s.indexInsert(ctx, tx, t, ix, neu)
}

// indexInsert inserts the projection of an Indexable item into an index.
func (s *Store) indexInsert(ctx context.Context, tx *sql.Tx, t *store.Table, ix *store.Index, it attr.Item) error {
	ik, err := indexKeyOf(t, ix, it)
	if err != nil {
		return err
	}
	args := append([]any{ik.hk}, ik.keyArgs()...)
	args = append(args, ik.base.pk, ik.base.sk, ix.Project(t, it).AppendJSON(nil))
	_, err = tx.ExecContext(ctx, s.stmts.get("index_insert", indexVars(ix)), args...)
	return err
}

// backfillIndex indexes every item of a table, in pages of the primary key
// so that no cursor stays open while inserting.
func (s *Store) backfillIndex(ctx context.Context, tx *sql.Tx, t *store.Table, ix *store.Index) error {
	const page = 512
	var after *rowKey
	for {
		rows, err := s.itemPage(ctx, tx, t.ID, after, page)
		if err != nil {
			return fmt.Errorf("backfill: %w", err)
		}
		for _, r := range rows {
			it, err := decodeItem(r.raw)
			if err != nil {
				return fmt.Errorf("backfill: %w", err)
			}
			if ix.Indexable(it) {
				if err := s.indexInsert(ctx, tx, t, ix, it); err != nil {
					return fmt.Errorf("backfill: %w", err)
				}
			}
		}
		if len(rows) < page {
			return nil
		}
		after = &rows[len(rows)-1].k
	}
}

// pageRow is one row of itemPage: an item's key and its stored JSON.
type pageRow struct {
	k   rowKey
	raw []byte
}

// itemPage reads up to limit items of table id in base-key order, after
// the key after (nil: from the first), and closes its cursor before it
// returns, so that the caller may write while it walks the table.
func (s *Store) itemPage(ctx context.Context, q querier, id int64, after *rowKey, limit int) ([]pageRow, error) {
	var rows *sql.Rows
	var err error
	if after == nil {
		rows, err = q.QueryContext(ctx, s.stmts.on("item_page", id), limit)
	} else {
		rows, err = q.QueryContext(ctx, s.stmts.get("item_page", stmtVars{ID: id, After: true}), after.pk, after.sk, limit)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pageRow
	for rows.Next() {
		var r pageRow
		if err := rows.Scan(&r.k.pk, &r.k.sk, &r.raw); err != nil {
			return nil, err
		}
		r.k.pk, r.k.sk = nonNil(r.k.pk), nonNil(r.k.sk) // an empty BLOB scans as nil, which binds as NULL
		out = append(out, r)
	}
	return out, rows.Err()
}
