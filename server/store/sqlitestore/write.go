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
// transaction. The table's definition (its indexes) is read from the catalog
// in that transaction, not taken from t, which may be stale.
func (s *Store) ItemWrite(ctx context.Context, t *store.Table, key attr.Item, fn store.WriteFunc) (attr.Item, error) {
	var old attr.Item
	err := s.inWriteGrouped(ctx, func(tx *sql.Tx) error {
		r, err := lockTarget(ctx, tx, t, key)
		if err != nil {
			return err
		}
		old = r.old
		neu, err := fn(old.Clone())
		if err != nil {
			return err // unchanged, as the contract says
		}
		return r.apply(ctx, tx, neu)
	})
	if err != nil {
		return nil, err
	}
	return old, nil
}

// target is one item read inside a write transaction: the current definition
// of its table (from the catalog, in that transaction), its encoded key and
// its current state (nil when absent).
type target struct {
	def *store.Table
	k   rowKey
	old attr.Item
}

// lockTarget reads the current definition of t and the item at key, inside
// a write transaction (which already holds the database write lock).
// ErrTableNotFound when the table is gone.
func lockTarget(ctx context.Context, tx *sql.Tx, t *store.Table, key attr.Item) (*target, error) {
	cur, err := catalogByID(ctx, tx, t.ID)
	if err != nil {
		return nil, err
	}
	k, err := tableKey(cur, key)
	if err != nil {
		return nil, fmt.Errorf("write item of %q: %w", cur.Name, err)
	}
	old, err := getRow(ctx, tx, cur.ID, k)
	if err != nil {
		return nil, fmt.Errorf("write item of %q: %w", cur.Name, err)
	}
	return &target{def: cur, k: k, old: old}, nil
}

// apply stores neu at the target (nil deletes it), maintains every sync
// index of its table and, when the table has async indexes, enqueues the
// item for the queue workers (queue.go, worker.go), and records the change in
// the table's stream when it is enabled (stream.go). Deleting an absent item
// changes nothing. Every write path (ItemWrite, ItemTransact) goes through
// apply.
func (r *target) apply(ctx context.Context, tx *sql.Tx, neu attr.Item) error {
	if neu == nil && r.old == nil {
		return nil
	}
	cur := r.def
	if err := putRow(ctx, tx, cur, r.k, neu); err != nil {
		return fmt.Errorf("write item of %q: %w", cur.Name, err)
	}
	async := false
	for i := range cur.Indexes {
		ix := &cur.Indexes[i]
		if ix.Async() {
			async = true
			continue
		}
		if err := indexRow(ctx, tx, cur, ix, r.k, r.old != nil, neu); err != nil {
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
func getRow(ctx context.Context, q querier, id int64, k rowKey) (attr.Item, error) {
	var raw []byte
	err := q.QueryRowContext(ctx,
		fmt.Sprintf(`SELECT item FROM %s WHERE pk = ? AND sk = ?`, dataTable(id)),
		k.pk, k.sk).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return decodeItem(raw)
}

// putRow stores an item at key k, or deletes the row when it is nil.
func putRow(ctx context.Context, tx *sql.Tx, t *store.Table, k rowKey, it attr.Item) error {
	if it == nil {
		_, err := tx.ExecContext(ctx,
			fmt.Sprintf(`DELETE FROM %s WHERE pk = ? AND sk = ?`, dataTable(t.ID)), k.pk, k.sk)
		return err
	}
	nk, err := tableKey(t, it)
	if err != nil {
		return fmt.Errorf("new item: %w", err)
	}
	if string(nk.pk) != string(k.pk) || string(nk.sk) != string(k.sk) {
		return errors.New("new item's key differs from the key written")
	}
	_, err = tx.ExecContext(ctx, fmt.Sprintf(`
INSERT INTO %s (hk, pk, sk, item, size)
VALUES (?, ?, ?, ?, ?)
ON CONFLICT (pk, sk) DO UPDATE SET item = excluded.item, size = excluded.size`, dataTable(t.ID)),
		k.hk, k.pk, k.sk, it.AppendJSON(nil), it.Size())
	return err
}

// indexRow brings an item's row of one index up to date: it removes the row
// of the old state (when there was one) and inserts the projected new state
// when the item belongs in the index.
func indexRow(ctx context.Context, tx *sql.Tx, t *store.Table, ix *store.Index, k rowKey, hadOld bool, neu attr.Item) error {
	name := indexTable(ix.ID)
	if hadOld {
		// Uses the (pk, sk) index of the index table.
		if _, err := tx.ExecContext(ctx,
			fmt.Sprintf(`DELETE FROM %s WHERE pk = ? AND sk = ?`, name), k.pk, k.sk); err != nil {
			return err
		}
	}
	if neu == nil || !ix.Indexable(neu) {
		return nil
	}
	return indexInsert(ctx, tx, t, ix, neu)
}

// indexInsert inserts the projection of an Indexable item into an index.
func indexInsert(ctx context.Context, tx *sql.Tx, t *store.Table, ix *store.Index, it attr.Item) error {
	ik, err := indexKeyOf(t, ix, it)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, fmt.Sprintf(`
INSERT INTO %s (hk, ipk, isk, pk, sk, item)
VALUES (?, ?, ?, ?, ?, ?)`, indexTable(ix.ID)),
		ik.hk, ik.ipk, ik.isk, ik.base.pk, ik.base.sk, ix.Project(t, it).AppendJSON(nil))
	return err
}

// backfillIndex indexes every item of a table, in pages of the primary key
// so that no cursor stays open while inserting.
func backfillIndex(ctx context.Context, tx *sql.Tx, t *store.Table, ix *store.Index) error {
	const page = 512
	var lastPK, lastSK []byte
	for first := true; ; first = false {
		var rows *sql.Rows
		var err error
		if first {
			rows, err = tx.QueryContext(ctx, fmt.Sprintf(
				`SELECT pk, sk, item FROM %s ORDER BY pk, sk LIMIT ?`, dataTable(t.ID)), page)
		} else {
			rows, err = tx.QueryContext(ctx, fmt.Sprintf(
				`SELECT pk, sk, item FROM %s WHERE (pk, sk) > (?, ?) ORDER BY pk, sk LIMIT ?`, dataTable(t.ID)),
				lastPK, lastSK, page)
		}
		if err != nil {
			return fmt.Errorf("backfill: %w", err)
		}
		var items []attr.Item
		for rows.Next() {
			var raw []byte
			if err := rows.Scan(&lastPK, &lastSK, &raw); err != nil {
				rows.Close()
				return fmt.Errorf("backfill: %w", err)
			}
			lastSK = nonNil(lastSK) // an empty BLOB scans as nil, which binds as NULL
			it, err := decodeItem(raw)
			if err != nil {
				rows.Close()
				return fmt.Errorf("backfill: %w", err)
			}
			items = append(items, it)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("backfill: %w", err)
		}
		for _, it := range items {
			if ix.Indexable(it) {
				if err := indexInsert(ctx, tx, t, ix, it); err != nil {
					return fmt.Errorf("backfill: %w", err)
				}
			}
		}
		if len(items) < page {
			return nil
		}
	}
}
