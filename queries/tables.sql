-- name: TableIDNext :one
-- TableIDNext reserves the id (and storage name t_<id>) of a new table.
SELECT nextval(pg_get_serial_sequence('dynamopg.tables', 'id'))::bigint AS id;

-- name: IndexIDNext :one
-- IndexIDNext reserves the id (and storage name i_<id>) of a new index.
SELECT nextval('dynamopg.index_ids')::bigint AS id;

-- name: TableInsert :one
-- TableInsert adds a catalog row (tables_name_key refuses a taken name) and
-- returns its catalog version.
INSERT INTO dynamopg.tables (id, name, status, def)
VALUES (@id, @name, @status, @def)
RETURNING version;

-- name: TableGet :one
-- TableGet reads a table's catalog JSON and its catalog version by name.
SELECT def, version
  FROM dynamopg.tables
 WHERE name = @name;

-- name: TableGetForUpdate :one
-- TableGetForUpdate reads a table's catalog JSON and locks the row FOR NO
-- KEY UPDATE: it waits for other catalog changes (TableUpdate, DeleteTable's
-- mark, a build's index removal), never for item writers (FOR KEY SHARE).
-- A DELETING table is not found.
SELECT def
  FROM dynamopg.tables
 WHERE name = @name AND status <> 'DELETING'
   FOR NO KEY UPDATE;

-- name: TableList :many
-- TableList lists table names in byte order, strictly after @after.
SELECT name
  FROM dynamopg.tables
 WHERE name > @after
 ORDER BY name
 LIMIT @max_names;

-- name: TableUpdateDef :one
-- TableUpdateDef stores a changed table description and returns its catalog
-- version (tables_version bumps it when the description or status changed).
UPDATE dynamopg.tables
   SET def = @def, status = @status
 WHERE id = @id
RETURNING version;

-- name: TableDeleteRow :one
-- TableDeleteRow removes a catalog row, returning the description it held.
DELETE FROM dynamopg.tables
 WHERE name = @name
RETURNING def;

-- name: TableStorageCreate :exec
-- TableStorageCreate creates t_<id> and its indexes' tables from the catalog row.
SELECT dynamopg.table_storage_create(@table_id::bigint);

-- name: TableStorageDrop :exec
-- TableStorageDrop drops the data tables of a deleted table's description.
SELECT dynamopg.table_storage_drop(@def::jsonb);

-- name: IndexStorageCreate :exec
-- IndexStorageCreate creates i_<id> for an index already in the catalog row.
SELECT dynamopg.index_storage_create(@table_id::bigint, @index_id::bigint);

-- name: IndexStorageDrop :exec
-- IndexStorageDrop drops i_<id>.
SELECT dynamopg.index_storage_drop(@index_id::bigint);

-- name: TableStats :one
-- TableStats counts a table's items and sums their sizes.
SELECT items::bigint AS items, bytes::bigint AS bytes
  FROM dynamopg.table_stats(@table_id::bigint);

-- name: LockTimeoutSet :exec
-- LockTimeoutSet sets lock_timeout for the rest of the transaction.
SELECT set_config('lock_timeout', @timeout::text, true);

-- name: CatalogListen :exec
-- CatalogListen subscribes the session to the catalog's change notices
-- (dynamopg.tables_notify: one per changed table, its name as payload).
LISTEN dynamopg_catalog;
