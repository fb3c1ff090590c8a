-- name: CollectionGet :one
-- CollectionGet reads the size of one item collection (no row: not sized
-- yet).
SELECT bytes
  FROM item_collections
 WHERE table_id = @table_id AND pk = @pk;

-- name: CollectionSet :exec
-- CollectionSet stores the size of one item collection.
INSERT INTO item_collections (table_id, pk, bytes)
VALUES (@table_id, @pk, @bytes)
    ON CONFLICT (table_id, pk) DO UPDATE SET bytes = excluded.bytes;

-- name: CollectionDeleteTable :exec
-- CollectionDeleteTable forgets the collections of a table TableDelete
-- drops (in the same transaction).
DELETE FROM item_collections
 WHERE table_id = @table_id;
