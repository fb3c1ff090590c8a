-- name: ItemGetSQL :one
-- ItemGetSQL is the statement text ItemGet prepares for a table.
SELECT dynamopg.item_get_sql(dynamopg.table_def(@table_id::bigint, false))::text AS stmt;

-- name: ItemWriteSQL :one
-- ItemWriteSQL is the statement texts pgstore prepares for a plain table's
-- writes (dynamopg.item_write_sql).
SELECT w.lock_sql::text AS lock_sql, w.put_sql::text AS put_sql, w.remove_sql::text AS remove_sql,
       w.insert_sql::text AS insert_sql, w.replace_sql::text AS replace_sql,
       w.delete_sql::text AS delete_sql
  FROM dynamopg.item_write_sql(dynamopg.table_def(@table_id::bigint, false)) AS w;

-- name: IndexWriteSQL :one
-- IndexWriteSQL is the statement texts pgstore prepares to keep a sync
-- index in step with a write (dynamopg.index_write_sql).
SELECT w.delete_sql::text AS delete_sql, w.insert_sql::text AS insert_sql
  FROM dynamopg.index_write_sql(dynamopg.table_def(@table_id::bigint, false), @index_id::bigint) AS w;

-- name: ItemLock :one
-- ItemLock reads one item by key and locks it FOR UPDATE (NULL when absent);
-- a @version (the cached description's) other than the catalog's is DPG01.
SELECT dynamopg.item_lock(@table_id::bigint, @key::jsonb, sqlc.narg('version')::bigint)::jsonb AS item;

-- name: ItemInsert :one
-- ItemInsert inserts an item unless its key exists; false on conflict.
SELECT dynamopg.item_insert(@table_id::bigint, @item::jsonb, @size::int)::boolean AS inserted;

-- name: ItemReplace :one
-- ItemReplace overwrites an existing item; false when it is absent.
SELECT dynamopg.item_replace(@table_id::bigint, @item::jsonb, @size::int)::boolean AS replaced;

-- name: ItemPut :one
-- ItemPut writes an item whole, unconditionally, in one statement; the item
-- it replaced (NULL: none).
SELECT dynamopg.item_put(@table_id::bigint, @item::jsonb, @size::int,
                         sqlc.narg('version')::bigint)::jsonb AS old;

-- name: ItemRemove :one
-- ItemRemove deletes an item by key unconditionally, in one statement; the
-- item it deleted (NULL: none).
SELECT dynamopg.item_remove(@table_id::bigint, @key::jsonb, sqlc.narg('version')::bigint)::jsonb AS old;

-- name: ItemDelete :one
-- ItemDelete deletes an item by key; false when it is absent.
SELECT dynamopg.item_delete(@table_id::bigint, @key::jsonb, @ttl::boolean)::boolean AS deleted;

-- name: ItemQuery :many
-- ItemQuery reads one partition of a table (@index_id 0) or index.
SELECT q.item::jsonb AS item
  FROM dynamopg.item_query(@table_id::bigint, @index_id::bigint, @hash::jsonb, @op::text,
                           sqlc.narg('v1')::jsonb, sqlc.narg('v2')::jsonb,
                           sqlc.narg('after')::jsonb, @forward::boolean, @max_items::int) AS q;

-- name: ItemScan :many
-- ItemScan reads one KeyHash segment of a table (@index_id 0) or index.
SELECT s.item::jsonb AS item
  FROM dynamopg.item_scan(@table_id::bigint, @index_id::bigint, @lo::bigint, @hi::bigint,
                          sqlc.narg('after')::jsonb, @max_items::int) AS s;

-- name: ItemGetMany :batchone
-- ItemGetMany is dynamopg.item_get pipelined: ItemGetMany reads its targets in one
-- round trip inside one snapshot.
SELECT dynamopg.item_get(@table_id::bigint, @key::jsonb)::jsonb AS item;

-- name: TxBegin :exec
-- TxBegin opens ItemWrite's transaction in the pipeline of its first
-- statement (item_lock), saving a round trip.
BEGIN;

-- name: TxCommit :exec
-- TxCommit ends ItemWrite's transaction in the pipeline of its write.
COMMIT;

-- name: TxRollback :exec
-- TxRollback ends a transaction ItemWrite abandons.
ROLLBACK;
