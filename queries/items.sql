-- name: ItemGetSQL :one
-- ItemGetSQL is the statement text ItemGet prepares for a table.
SELECT dynamopg.item_get_sql(dynamopg.table_def(@table_id::bigint, false))::text AS stmt;

-- name: ItemGetManySQL :one
-- ItemGetManySQL is the statement text ItemGetMany prepares for a table.
SELECT dynamopg.item_get_many_sql(dynamopg.table_def(@table_id::bigint, false))::text AS stmt;

-- name: ItemWriteSQL :one
-- ItemWriteSQL is the statement texts pgstore prepares for a table's writes
-- (dynamopg.item_write_sql).
SELECT w.lock_sql::text AS lock_sql, w.put_sql::text AS put_sql, w.remove_sql::text AS remove_sql,
       w.insert_sql::text AS insert_sql, w.replace_sql::text AS replace_sql,
       w.delete_sql::text AS delete_sql, w.record_sql::text AS record_sql,
       w.put_stream_sql::text AS put_stream_sql, w.remove_stream_sql::text AS remove_stream_sql,
       w.upsert_sql::text AS upsert_sql
  FROM dynamopg.item_write_sql(dynamopg.table_def(@table_id::bigint, false)) AS w;

-- name: ItemGuardSQL :one
-- ItemGuardSQL is the optimistic writes ItemWrite prepares for a table whose
-- writes are the data row alone (dynamopg.item_guard_sql).
SELECT g.insert_sql::text AS insert_sql, g.update_sql::text AS update_sql,
       g.delete_sql::text AS delete_sql, g.update_version_sql::text AS update_version_sql
  FROM dynamopg.item_guard_sql(dynamopg.table_def(@table_id::bigint, false)) AS g;

-- name: IndexWriteSQL :one
-- IndexWriteSQL is the statement texts pgstore prepares to keep an index in
-- step with a write (dynamopg.index_write_sql).
SELECT w.delete_sql::text AS delete_sql, w.insert_sql::text AS insert_sql
  FROM dynamopg.index_write_sql(dynamopg.table_def(@table_id::bigint, false), @index_id::bigint) AS w;

-- name: ItemQuerySQL :one
-- ItemQuerySQL is the text of the Query statement of one shape of table
-- @table_id (@index_id 0) or its index (dynamopg.item_query_sql), which
-- pgstore prepares.
SELECT dynamopg.item_query_sql(dynamopg.table_def(@table_id::bigint, false), @index_id::bigint,
                               @op::text, @forward::boolean, @after::boolean, @eq::int)::text AS stmt;

-- name: ItemScanSQL :one
-- ItemScanSQL is the text of the Scan statement of table @table_id
-- (@index_id 0) or its index, with or without a start key
-- (dynamopg.item_scan_sql), which pgstore prepares.
SELECT dynamopg.item_scan_sql(dynamopg.table_def(@table_id::bigint, false), @index_id::bigint,
                              @after::boolean)::text AS stmt;

-- name: TxBeginSnapshot :exec
-- TxBeginSnapshot opens ItemGetMany's read-only transaction, whose reads
-- all see one snapshot, in the pipeline of its reads.
BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;

-- name: TxBegin :exec
-- TxBegin opens ItemWrite's transaction in the pipeline of its first
-- statement (item_write_sql's lock_sql), saving a round trip.
BEGIN;

-- name: TxCommit :exec
-- TxCommit ends ItemWrite's transaction in the pipeline of its write.
COMMIT;

-- name: TxRollback :exec
-- TxRollback ends a transaction ItemWrite abandons.
ROLLBACK;
