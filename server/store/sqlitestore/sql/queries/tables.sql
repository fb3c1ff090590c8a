-- name: TableGet :one
-- TableGet reads a table's catalog JSON by name.
SELECT def
  FROM tables
 WHERE name = @name;

-- name: TableGetByID :one
-- TableGetByID reads a table's catalog JSON by id: the current definition
-- of the table a possibly stale description names.
SELECT def
  FROM tables
 WHERE id = @id;

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
