-- name: TableGet :one
-- TableGet reads a table's catalog JSON and its version (0 for a table
-- without one, which item writes then check by reading the JSON) by name.
SELECT t.def, COALESCE(v.version, 0) AS version
  FROM tables AS t
  LEFT JOIN table_versions AS v ON v.table_id = t.id
 WHERE t.name = @name;

-- name: TableGetByID :one
-- TableGetByID reads a table's catalog JSON and version by id: the current
-- definition of the table a possibly stale description names.
SELECT t.def, COALESCE(v.version, 0) AS version
  FROM tables AS t
  LEFT JOIN table_versions AS v ON v.table_id = t.id
 WHERE t.id = @id;

-- name: TableVersionGet :one
-- TableVersionGet reads a table's catalog version: an item write's check
-- of the description it was given (no row: the table is gone).
SELECT version
  FROM table_versions
 WHERE table_id = @table_id;

-- name: TableVersionBump :one
-- TableVersionBump advances a table's catalog version (1 for a new table)
-- in the transaction that changes its description, and returns it.
INSERT INTO table_versions (table_id, version)
VALUES (@table_id, 1)
    ON CONFLICT (table_id) DO UPDATE
   SET version = version + 1
RETURNING version;

-- name: TableVersionDelete :exec
-- TableVersionDelete removes a dropped table's version row.
DELETE FROM table_versions
 WHERE table_id = @table_id;

-- name: TableDefs :many
-- TableDefs reads every catalog entry in name order (Open resumes their
-- index builds; Status reports them).
SELECT def
  FROM tables
 ORDER BY name;

-- name: TableInsert :one
-- TableInsert adds a catalog row with a placeholder def and returns its id
-- (which names t_<id>); the UNIQUE name refuses a taken name.
INSERT INTO tables (name, def)
VALUES (@name, '{}')
RETURNING id;

-- name: TableUpdateDef :exec
-- TableUpdateDef stores a table's description (and its name, which the
-- UNIQUE constraint keeps unique).
UPDATE tables
   SET name = @name, def = @def
 WHERE id = @id;

-- name: TableDeleteRow :exec
-- TableDeleteRow removes a catalog row.
DELETE FROM tables
 WHERE id = @id;

-- name: TableList :many
-- TableList lists table names in byte order (TEXT with BINARY collation),
-- strictly after @after, at most @max_names of them (-1: all).
SELECT name
  FROM tables
 WHERE name > @after
 ORDER BY name
 LIMIT @max_names;

-- name: IndexIDNext :one
-- IndexIDNext allocates the id (and storage name i_<id>) of a new index of
-- table @table_id.
INSERT INTO index_ids (table_id)
VALUES (@table_id)
RETURNING id;

-- name: Ping :one
-- Ping answers when the connection does.
SELECT 1;

-- name: CatalogEpochBump :exec
-- CatalogEpochBump advances the catalog's epoch, in the transaction of a
-- change of the catalog.
UPDATE catalog_epoch
   SET epoch = epoch + 1
 WHERE id = 1;

-- name: CatalogEpochGet :one
-- CatalogEpochGet reads the catalog's epoch (the table cache's poller).
SELECT epoch
  FROM catalog_epoch
 WHERE id = 1;
