package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// ItemTransact changes several items in one write transaction. The write
// connection's BEGIN IMMEDIATE takes the database write lock up front, so
// every target is locked at once (no per-item lock order to get wrong) and fn
// runs exactly once. Each target's table definition is read from the catalog
// inside the transaction; a table that is gone gives ErrTableNotFound.
func (s *Store) ItemTransact(ctx context.Context, targets []store.TxTarget, fn store.TxFunc) error {
	return s.inWriteGrouped(ctx, func(tx *sql.Tx) error {
		return s.transactIn(ctx, tx, targets, fn)
	})
}

// transactIn is ItemTransact's work inside the write transaction tx.
func (s *Store) transactIn(ctx context.Context, tx *sql.Tx, targets []store.TxTarget, fn store.TxFunc) error {
	defs := make(map[int64]*store.Table, len(targets)) // one catalog read per table
	tally := store.NewCollectionTally(s.collLimit)
	seen := make(map[string]int, len(targets))
	rs := make([]*target, len(targets))
	olds := make([]attr.Item, len(targets))
	for i, tg := range targets {
		if tg.Table == nil {
			return fmt.Errorf("transact: target %d has no table", i)
		}
		cur, ok := defs[tg.Table.ID]
		if !ok || cur.Version != tg.Table.Version {
			var err error
			if cur, err = currentDef(ctx, tx, tg.Table); err != nil {
				return err
			}
			defs[tg.Table.ID] = cur
		}
		k, err := tableKey(cur, tg.Key)
		if err != nil {
			return fmt.Errorf("transact: item of %q: %w", cur.Name, err)
		}
		id := fmt.Sprintf("%d\x00%x\x00%x", cur.ID, k.pk, k.sk)
		if j, dup := seen[id]; dup {
			return fmt.Errorf("transact: targets %d and %d name the same item of %q", j, i, cur.Name)
		}
		seen[id] = i
		old, err := s.getRow(ctx, tx, cur.ID, k)
		if err != nil {
			return fmt.Errorf("transact: read item of %q: %w", cur.Name, err)
		}
		rs[i] = &target{s: s, def: cur, k: k, old: old, pos: i, tally: tally}
		if err := rs[i].startCollection(ctx, tx); err != nil {
			return fmt.Errorf("transact: %w", err)
		}
		olds[i] = old.Clone()
	}
	writes, err := fn(olds)
	if err != nil {
		return err // unchanged, as the contract says
	}
	if len(writes) != len(targets) {
		return fmt.Errorf("transact: %d writes for %d targets", len(writes), len(targets))
	}
	for i, w := range writes {
		switch {
		case w.Put != nil:
			err = rs[i].apply(ctx, tx, w.Put)
		case w.Delete:
			err = rs[i].apply(ctx, tx, nil)
		default:
			continue // a condition check: read only
		}
		if err != nil {
			return fmt.Errorf("transact: target %d: %w", i, err)
		}
	}
	return finishCollections(ctx, tx, tally)
}

// ItemGetMany reads every target in one read transaction, hence from one
// snapshot: nil where an item is absent, ErrTableNotFound when a table is gone.
func (s *Store) ItemGetMany(ctx context.Context, targets []store.TxTarget) ([]attr.Item, error) {
	raws, err := s.ItemGetManyJSON(ctx, targets)
	if err != nil {
		return nil, err
	}
	out := make([]attr.Item, len(raws))
	for i, raw := range raws {
		if raw == nil {
			continue
		}
		if out[i], err = decodeItem(raw); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ItemGetManyJSON is ItemGetMany's items as they are stored, their wire
// JSON.
func (s *Store) ItemGetManyJSON(ctx context.Context, targets []store.TxTarget) ([][]byte, error) {
	keys := make([]rowKey, len(targets))
	for i, tg := range targets {
		if tg.Table == nil {
			return nil, fmt.Errorf("get items: target %d has no table", i)
		}
		k, err := tableKey(tg.Table, tg.Key)
		if err != nil {
			return nil, fmt.Errorf("get item of %q: %w", tg.Table.Name, err)
		}
		keys[i] = k
	}
	out := make([][]byte, len(targets))
	err := s.inRead(ctx, func(tx *sql.Tx) error {
		checked := make(map[int64]bool, len(targets))
		for i, tg := range targets {
			t := tg.Table
			if !checked[t.ID] {
				// The catalog of this snapshot decides whether the table
				// exists (its storage is dropped in the same transaction).
				if _, err := catalogByID(ctx, tx, t.ID); err != nil {
					if errors.Is(err, store.ErrTableNotFound) {
						return fmt.Errorf("get item of %q: %w", t.Name, store.ErrTableNotFound)
					}
					return err
				}
				checked[t.ID] = true
			}
			raw, err := s.getRowJSON(ctx, tx, t.ID, keys[i])
			if err != nil {
				return explain(ctx, tx, t, nil, "get item of", err)
			}
			out[i] = raw
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
