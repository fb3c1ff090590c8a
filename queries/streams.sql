-- name: StreamRead :many
-- StreamRead reads up to @max_records records of one stream of a table
-- with seq > @after, in seq order.
SELECT r.seq, r.label, r.event_name, r.keys, r.old_image, r.new_image, r.created_at, r.ttl
  FROM dynamopg.stream_records r
 WHERE r.table_id = @table_id::bigint AND r.label = @label::text AND r.seq > @after::bigint
 ORDER BY r.seq
 LIMIT @max_records::int;

-- name: StreamBounds :one
-- StreamBounds is the lowest and highest seq of one stream (0, 0 when empty).
SELECT coalesce(min(r.seq), 0)::bigint AS first_seq, coalesce(max(r.seq), 0)::bigint AS last_seq
  FROM dynamopg.stream_records r
 WHERE r.table_id = @table_id::bigint AND r.label = @label::text;

-- name: StreamTrim :one
-- StreamTrim deletes the records created before @before.
SELECT dynamopg.stream_trim(@before::timestamptz)::bigint AS deleted;

-- name: TTLExpiredKeys :many
-- TTLExpiredKeys lists keys of items whose TTL attribute is in [@lo, @hi).
SELECT k::jsonb AS key
  FROM dynamopg.ttl_expired_keys(@table_id::bigint, @attr_name::text, @lo::numeric,
                                 @hi::numeric, @max_items::int) AS k;

-- name: DeletedTableRecord :exec
-- DeletedTableRecord keeps the catalog JSON of a table DeleteTable is
-- marking DELETING (in the same transaction), for its streams.
INSERT INTO dynamopg.deleted_tables (table_id, name, labels, def)
VALUES (@table_id, @name, @labels::text[], @def)
ON CONFLICT (table_id) DO NOTHING;

-- name: DeletedTableGet :one
-- DeletedTableGet reads the latest deleted table named @name that had the
-- stream @label.
SELECT d.def, d.deleted_at
  FROM dynamopg.deleted_tables d
 WHERE d.name = @name AND @label::text = ANY (d.labels)
 ORDER BY d.deleted_at DESC
 LIMIT 1;

-- name: DeletedTableList :many
-- DeletedTableList lists the deleted tables kept (those named @name, or
-- all when it is empty), in name order, the latest deletion first.
SELECT d.def, d.deleted_at
  FROM dynamopg.deleted_tables d
 WHERE @name::text = '' OR d.name = @name::text
 ORDER BY d.name, d.deleted_at DESC;
