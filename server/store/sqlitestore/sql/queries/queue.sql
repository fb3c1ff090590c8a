-- name: QueueInsert :exec
-- QueueInsert names an item in the queue for its table's async indexes. A
-- row already pending for the item stands for this write too: it has not
-- been applied yet, and applying it reads the item's state as of then.
INSERT INTO index_queue (table_id, pk, sk, enqueued_at)
VALUES (@table_id, @pk, @sk, @enqueued_at)
    ON CONFLICT (table_id, pk, sk) DO NOTHING;

-- name: QueuePending :one
-- QueuePending reports whether a row of table @table_id is queued.
SELECT EXISTS (SELECT 1 FROM index_queue WHERE table_id = @table_id) AS pending;

-- name: QueueDepth :one
-- QueueDepth counts the queued rows of all tables.
SELECT count(*)
  FROM index_queue;

-- name: QueueByTable :many
-- QueueByTable is the queue per table, the deepest first: the rows pending
-- and when the oldest of them was queued (0 when unknown: enqueued_at is
-- NULL in rows queued before it existed).
SELECT table_id, count(*) AS depth,
       CAST(coalesce(min(enqueued_at), 0) AS INTEGER) AS oldest
  FROM index_queue
 GROUP BY table_id
 ORDER BY count(*) DESC;

-- name: QueueRead :many
-- QueueRead reads the oldest @max_rows rows, first in first out.
SELECT seq, table_id, pk, sk
  FROM index_queue
 ORDER BY seq
 LIMIT @max_rows;

-- name: QueueDelete :exec
-- QueueDelete consumes an applied row.
DELETE FROM index_queue
 WHERE seq = @seq;

-- name: QueueDeleteTable :exec
-- QueueDeleteTable consumes the rows of table @table_id, which TableDelete
-- drops in the same transaction: nothing is left to apply them to.
DELETE FROM index_queue
 WHERE table_id = @table_id;
