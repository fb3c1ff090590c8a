-- name: TableMarkDeleting :one
-- TableMarkDeleting locks a table's catalog row (FOR NO KEY UPDATE: it waits
-- for TableUpdate, not for item writers) and returns its description and
-- status as they were; DeleteTable then marks it DELETING with
-- TableSetDeleting in the same short transaction.
SELECT id, status, def
  FROM dynamopg.tables
 WHERE name = @name
   FOR NO KEY UPDATE;

-- name: TableSetDeleting :exec
-- TableSetDeleting marks a table DELETING (the status column and the def's
-- copy): from its commit on, item operations see the table as gone.
UPDATE dynamopg.tables
   SET status = 'DELETING', def = jsonb_set(def, '{status}', '"DELETING"')
 WHERE id = @id;

-- name: DropTableStorage :exec
-- DropTableStorage finishes a DELETING table's deletion (queue rows, data
-- tables, catalog row; sql/functions/drop.sql). Outside a transaction only.
CALL dynamopg.drop_table_storage(@table_id::bigint, @lock_timeout::text);

-- name: TablesDeleting :many
-- TablesDeleting lists the tables left DELETING.
SELECT id
  FROM dynamopg.tables
 WHERE status = 'DELETING'
 ORDER BY id;

-- name: StorageOrphans :many
-- StorageOrphans lists the data tables no catalog row owns.
SELECT o.rel::text AS rel, o.is_index::boolean AS is_index
  FROM dynamopg.storage_orphans() AS o;

-- name: DropOrphanStorage :one
-- DropOrphanStorage drops one orphan data table if it still is one.
SELECT dynamopg.drop_orphan_storage(@rel::text, @lock_timeout::text)::boolean AS dropped;
