package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore/internal/sqlitedb"
)

// Item collection sizes (store/collections.go) on SQLite: one row of
// item_collections per collection (migration 007). Every write call
// (ItemWrite, ItemWriteMany, a transaction) keeps a store.CollectionTally:
// each target of a table with a local index starts its collection in the
// tally with the counter's size (startCollection), apply adds its change,
// and finishCollections, before the call's transaction commits, refuses
// the call (its writes are rolled back) or stores the new sizes. The
// single writer serializes all of it, so the limit check is exact.

// startCollection adds the target's item collection to its call's tally,
// when its table has a local index and the tally lacks it: the counter's
// size, or, for a collection without one (a table from before migration
// 007), the sum over its partition, stored at once in the call's
// transaction. It runs before any write of the call to the collection.
func (r *target) startCollection(ctx context.Context, tx *sql.Tx) error {
	if !r.def.HasLocalIndex() {
		return nil
	}
	r.coll = store.CollectionKey{TableID: r.def.ID, Hash: string(r.k.pk)}
	if r.tally.Known(r.coll) {
		return nil
	}
	size, err := r.s.collectionSize(ctx, tx, r.def, r.k.pk)
	if err != nil {
		return fmt.Errorf("item collection of %q: %w", r.def.Name, err)
	}
	r.tally.Start(r.coll, size)
	return nil
}

// collectionSize reads the counter of table t's collection pk, sizing the
// collection first (and storing its counter, in tx) when it has none.
func (s *Store) collectionSize(ctx context.Context, tx *sql.Tx, t *store.Table, pk []byte) (int64, error) {
	size, err := queries.CollectionGet(ctx, tx, sqlitedb.CollectionGetParams{TableID: t.ID, Pk: pk})
	if err == nil {
		return size, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	if size, err = s.sizePartition(ctx, tx, t, pk); err != nil {
		return 0, err
	}
	return size, queries.CollectionSet(ctx, tx, sqlitedb.CollectionSetParams{TableID: t.ID, Pk: pk, Bytes: size})
}

// sizePartition sums store.CollectionEntrySize over the items of t's
// partition pk: one read of the partition (item_query, no condition, no
// limit).
func (s *Store) sizePartition(ctx context.Context, q querier, t *store.Table, pk []byte) (int64, error) {
	rows, err := q.QueryContext(ctx, s.stmts.on("item_query", t.ID), pk, -1)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var size int64
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return 0, err
		}
		it, err := decodeItem(raw)
		if err != nil {
			return 0, err
		}
		size += store.CollectionEntrySize(t, it)
	}
	return size, rows.Err()
}

// finishCollections ends a write call's tally in its transaction: a
// *store.CollectionFullError when the call would take a collection past
// the limit (the caller's transaction, or savepoint, then rolls back), or
// the new sizes stored.
func finishCollections(ctx context.Context, tx *sql.Tx, tally *store.CollectionTally) error {
	if err := tally.Check(); err != nil {
		return err
	}
	return tally.Changed(func(k store.CollectionKey, ch *store.CollectionChange) error {
		err := queries.CollectionSet(ctx, tx, sqlitedb.CollectionSetParams{TableID: k.TableID, Pk: []byte(k.Hash), Bytes: ch.After()})
		if err != nil {
			return fmt.Errorf("item collection size: %w", err)
		}
		return nil
	})
}

// ItemCollectionSize reads the counter of t's collection hash, sizing the
// collection first when it has none.
func (s *Store) ItemCollectionSize(ctx context.Context, t *store.Table, hash attr.Value) (int64, error) {
	if !t.HasLocalIndex() {
		return 0, nil
	}
	if hash.T != t.Hash.Type {
		return 0, fmt.Errorf("sqlitestore: item collection of %q: partition key of type %s, want %s", t.Name, hash.T, t.Hash.Type)
	}
	pk := keyBytes(hash)
	var size int64
	err := s.inRead(ctx, func(tx *sql.Tx) error {
		var err error
		size, err = queries.CollectionGet(ctx, tx, sqlitedb.CollectionGetParams{TableID: t.ID, Pk: pk})
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return explain(ctx, tx, t, nil, "item collection of", err)
		}
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		err = s.inWrite(ctx, func(tx *sql.Tx) error {
			cur, err := catalogByID(ctx, tx, t.ID)
			if err != nil {
				return err
			}
			size, err = s.collectionSize(ctx, tx, cur, pk)
			return err
		})
	}
	if err != nil {
		return 0, fmt.Errorf("sqlitestore: %w", err)
	}
	return size, nil
}
