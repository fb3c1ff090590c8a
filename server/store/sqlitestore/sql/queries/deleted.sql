-- name: DeletedTableRecord :exec
-- DeletedTableRecord keeps the catalog JSON of a table TableDelete drops
-- (in the same transaction), for its streams; @labels is a JSON array.
INSERT INTO deleted_tables (table_id, name, labels, def, deleted_at)
VALUES (@table_id, @name, @labels, @def, @deleted_at)
    ON CONFLICT (table_id) DO NOTHING;

-- name: DeletedTableGetByName :many
-- DeletedTableGetByName reads the deleted tables named @name, the latest
-- deletion first, with their stream labels (a JSON array): the caller picks
-- the first that had the label it wants. (sqlc cannot type json_each, and a
-- name has few deletions within the stream retention.)
SELECT def, labels, deleted_at
  FROM deleted_tables
 WHERE name = @name
 ORDER BY deleted_at DESC;

-- name: DeletedTableList :many
-- DeletedTableList lists the deleted tables kept (those named @name, or
-- all when it is empty), in name order, the latest deletion first.
SELECT def, deleted_at
  FROM deleted_tables
 WHERE name = @name OR @name = ''
 ORDER BY name, deleted_at DESC;

-- name: DeletedTableTrim :exec
-- DeletedTableTrim forgets the tables deleted before @before (their stream
-- records go with the same trim).
DELETE FROM deleted_tables
 WHERE deleted_at < @before;
