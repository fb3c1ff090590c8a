-- name: StreamRecordInsert :exec
-- StreamRecordInsert appends one change to a table's stream.
INSERT INTO stream_records (table_id, label, event_name, keys, old_image, new_image, created_at, ttl)
VALUES (@table_id, @label, @event_name, @keys, @old_image, @new_image, @created_at, @ttl);

-- name: StreamRead :many
-- StreamRead reads up to @max_records records of one stream of a table
-- with seq > @after, in seq order.
SELECT seq, label, event_name, keys, old_image, new_image, created_at, ttl
  FROM stream_records
 WHERE table_id = @table_id AND label = @label AND seq > @after
 ORDER BY seq
 LIMIT @max_records;

-- name: StreamBounds :one
-- StreamBounds is the lowest and highest seq of one stream (0, 0 when empty).
SELECT CAST(coalesce(min(seq), 0) AS INTEGER) AS first_seq,
       CAST(coalesce(max(seq), 0) AS INTEGER) AS last_seq
  FROM stream_records
 WHERE table_id = @table_id AND label = @label;

-- name: StreamTrim :exec
-- StreamTrim deletes the records created before @before.
DELETE FROM stream_records
 WHERE created_at < @before;
