package pgstore

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// Item collection sizes (store/collections.go) on PostgreSQL: one row of
// dynamopg.item_collections per collection (migration 010). Every write to
// a table with a local index runs in an explicit transaction (the lock
// statements, then the write): after locking its items it locks the
// counters of their collections FOR UPDATE (CollectionLock, pipelined with
// the item locks, in (table id, hash) order), computes each change in Go
// from the old and the new item, refuses the write when the tally says so
// (nothing was written: the transaction rolls back), and stores the new
// sizes in the write's pipeline (CollectionSet). Counters are locked after
// every item lock and before any stream lock (the records come last in the
// write's pipeline), each kind in one global order, so these writers
// cannot wait on each other in a cycle; a rare cycle through a blind
// write's stream lock (stream.sql) ends in a deadlock error, which is
// retried. The blind one-statement writes (ItemPut, ItemRemove,
// ItemWriteMany) would need the old item's size before the statement
// runs, which only Go computes (the size rules and the projections), so on
// such tables they take this path too: two round trips, no partition read.
//
// A collection without a counter (a table created before migration 010)
// is sized once, by sizeCollection, in a transaction of its own, and the
// write starts over.

// collection is one item collection a write locks.
type collection struct {
	t     *store.Table
	hash  []byte // the partition key value, encodeValue
	bytes *int64 // the size CollectionLock read; nil: no counter yet
}

func (c *collection) key() store.CollectionKey {
	return store.CollectionKey{TableID: c.t.ID, Hash: string(c.hash)}
}

// collectionOf is the collection of the item (or key) it of t.
func collectionOf(t *store.Table, it attr.Item) collection {
	return collection{t: t, hash: encodeValue(it[t.Hash.Name])}
}

// lockCollections queues the lock of each collection in b, with its size
// read into the collection, and returns dest with the destinations.
func lockCollections(b *pgx.Batch, dest []any, colls []collection) []any {
	for i := range colls {
		b.Queue(gen.CollectionLock, colls[i].t.ID, colls[i].hash)
		dest = append(dest, &colls[i].bytes)
	}
	return dest
}

// errUnsized reports collections with no counter yet: the write rolled
// back, writing nothing; sizeUnsized sizes them before it starts over.
type errUnsized struct{ colls []collection }

func (e *errUnsized) Error() string { return "pgstore: item collection not sized yet" }

// unsized is the collections of colls that have no counter, as an
// *errUnsized, or nil.
func unsized(colls []collection) error {
	var missing []collection
	for _, c := range colls {
		if c.bytes == nil {
			missing = append(missing, c)
		}
	}
	if missing == nil {
		return nil
	}
	return &errUnsized{missing}
}

// tally starts a tally of colls at the sizes their locks read.
func (s *Store) tally(colls []collection) *store.CollectionTally {
	tl := store.NewCollectionTally(s.collLimit)
	for i := range colls {
		tl.Start(colls[i].key(), *colls[i].bytes)
	}
	return tl
}

// queueCollectionSets queues the new size of every collection tl changes
// in b, and returns dest with their (empty) destinations.
func queueCollectionSets(b *pgx.Batch, dest []any, tl *store.CollectionTally) []any {
	if tl == nil {
		return dest
	}
	_ = tl.Changed(func(k store.CollectionKey, ch *store.CollectionChange) error {
		b.Queue(gen.CollectionSet, ch.After(), k.TableID, []byte(k.Hash)) // CollectionSetParams' order
		dest = append(dest, nil)
		return nil
	})
	return dest
}

// sizeUnsized is retryTx's step for an attempt that ended in err: when the
// attempt found collections without a counter, it sizes them and asks for
// another attempt.
func (s *Store) sizeUnsized(ctx context.Context, retry bool, err error) (bool, error) {
	var u *errUnsized
	if !errors.As(err, &u) {
		return retry, err
	}
	for _, c := range u.colls {
		if err := s.sizeCollection(ctx, c); err != nil {
			return false, err
		}
	}
	return true, err
}

// sizeCollection creates the counter of collection c, if it has none, with
// the sum of its items' sizes (store.CollectionEntrySize): one read of the
// partition, once per collection. The counter's row is inserted first, so
// that the collection's writers, which lock it, wait for this transaction
// and then see the size it stored; a concurrent sizer of the same
// collection waits on the insert and then does nothing. Writers hold no
// lock while they call it.
func (s *Store) sizeCollection(ctx context.Context, c collection) error {
	stmt, err := s.q.CollectionItemsSQL(ctx, s.pool, gen.CollectionItemsSQLParams{TableID: c.t.ID})
	if err != nil {
		return wrap("item collection size", err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return wrap("item collection size", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	_, err = s.q.CollectionCreate(ctx, tx, gen.CollectionCreateParams{TableID: c.t.ID, Hash: c.hash})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // another transaction sized it
	}
	if err != nil {
		return wrap("item collection size", err)
	}
	rows, err := tx.Query(ctx, stmt, c.hash)
	if err != nil {
		return wrap("item collection size", err)
	}
	var size int64
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			rows.Close()
			return wrap("item collection size", err)
		}
		it, err := decodeItem(raw)
		if err != nil {
			rows.Close()
			return err
		}
		size += store.CollectionEntrySize(c.t, it)
	}
	if err := rows.Err(); err != nil {
		return wrap("item collection size", err)
	}
	err = s.q.CollectionSet(ctx, tx, gen.CollectionSetParams{TableID: c.t.ID, Hash: c.hash, Bytes: size})
	if err != nil {
		return wrap("item collection size", err)
	}
	s.log.DebugContext(ctx, "item collection sized", "table", c.t.Name, "bytes", size)
	return wrap("item collection size", tx.Commit(ctx))
}

// ItemCollectionSize reads the counter of t's collection hash, sizing the
// collection first when it has none.
func (s *Store) ItemCollectionSize(ctx context.Context, t *store.Table, hash attr.Value) (int64, error) {
	if !t.HasLocalIndex() {
		return 0, nil
	}
	c := collection{t: t, hash: encodeValue(hash)}
	for range 2 {
		n, err := s.q.CollectionSize(ctx, s.pool, gen.CollectionSizeParams{TableID: t.ID, Hash: c.hash})
		if !errors.Is(err, pgx.ErrNoRows) {
			return n, wrap("item collection size", err)
		}
		if err := s.sizeCollection(ctx, c); err != nil {
			return 0, err
		}
	}
	return 0, wrap("item collection size", pgx.ErrNoRows) // dropped under the call
}

// collectionsOf returns the distinct collections of the targets whose
// tables have a local index, in locking order (table id, then hash), and
// sets each such target's coll to its collection's index.
func collectionsOf(order []txTarget) []collection {
	var colls []collection
	for i := range order {
		order[i].coll = -1
		if order[i].t.HasLocalIndex() {
			colls = append(colls, collection{t: order[i].t, hash: order[i].hash})
		}
	}
	slices.SortFunc(colls, func(a, b collection) int {
		return cmp.Or(cmp.Compare(a.t.ID, b.t.ID), bytes.Compare(a.hash, b.hash))
	})
	colls = slices.CompactFunc(colls, func(a, b collection) bool {
		return a.t.ID == b.t.ID && bytes.Equal(a.hash, b.hash)
	})
	for i := range order {
		if order[i].t.HasLocalIndex() {
			order[i].coll, _ = slices.BinarySearchFunc(colls, order[i], func(c collection, o txTarget) int {
				return cmp.Or(cmp.Compare(c.t.ID, o.t.ID), bytes.Compare(c.hash, o.hash))
			})
		}
	}
	return colls
}
