-- name: CollectionLock :one
-- CollectionLock locks the counter of one item collection (migration 010;
-- pgstore collections.go) for the write that follows in the transaction
-- and reads its size (NULL: no counter yet, the
-- collection is sized first). Writers lock counters after their items, in
-- (table id, hash) order.
SELECT (SELECT c.bytes
          FROM dynamopg.item_collections c
         WHERE c.table_id = @table_id::bigint AND c.hash = @hash::jsonb
           FOR UPDATE) AS bytes;

-- name: CollectionSet :exec
-- CollectionSet stores a collection's size after a write, under the lock
-- CollectionLock took in the write's transaction.
UPDATE dynamopg.item_collections
   SET bytes = @bytes::bigint
 WHERE table_id = @table_id::bigint AND hash = @hash::jsonb;

-- name: CollectionSize :one
-- CollectionSize reads a collection's size (ReturnItemCollectionMetrics).
SELECT c.bytes
  FROM dynamopg.item_collections c
 WHERE c.table_id = @table_id::bigint AND c.hash = @hash::jsonb;

-- name: CollectionCreate :one
-- CollectionCreate creates the counter of a collection that has none, with
-- size 0 until the transaction sizes it, and reports whether it did: true
-- when this transaction now holds the new row (the collection's writers
-- wait for it), no row when another had created it. It locks the catalog
-- row first (table_def), as writers do, so a table being deleted is not
-- sized.
INSERT INTO dynamopg.item_collections AS c (table_id, hash, bytes)
SELECT @table_id::bigint, @hash::jsonb, 0
  FROM (SELECT dynamopg.table_def(@table_id::bigint, true) AS def) d
    ON CONFLICT (table_id, hash) DO NOTHING
RETURNING true AS created;

-- name: CollectionItemsSQL :one
-- CollectionItemsSQL is the text of the statement reading one partition
-- of a table, which sizes a collection once
-- (dynamopg.collection_items_sql).
SELECT dynamopg.collection_items_sql(dynamopg.table_def(@table_id::bigint, false))::text AS stmt;
