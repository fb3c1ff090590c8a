-- name: QueueRun :one
-- QueueRun is one worker step (dynamopg.queue_run): claim a batch of one
-- partition and apply it, in one transaction. Part is -1 when nothing was
-- claimable.
SELECT coalesce(r.part, -1)::int AS part, r.claimed::int AS claimed,
       r.applied::int AS applied, r.passed::int AS passed
  FROM dynamopg.queue_run(@worker::text) AS r;

-- name: QueueListen :exec
-- QueueListen subscribes the session to the writers' notifications.
LISTEN dynamopg_index_queue;

-- name: QueuePending :one
-- QueuePending counts the queued rows of one table (passed over included).
SELECT count(*)::bigint AS pending
  FROM dynamopg.index_queue
 WHERE table_id = @table_id::bigint;

-- name: QueueDepth :one
-- QueueDepth counts the queued rows of all tables.
SELECT count(*)::bigint AS depth
  FROM dynamopg.index_queue;

-- name: QueueEnqueueKey :exec
-- QueueEnqueueKey is dynamopg.queue_enqueue for a prepared write (pgstore's
-- prepared.go), which knows that its table has async indexes and has built the
-- item's queue key in Go (its key attributes only, as queue_key builds
-- them): it queues the item and notifies the workers (at commit).
WITH queued AS (
    INSERT INTO dynamopg.index_queue (table_id, part, key)
    VALUES (@table_id::bigint, dynamopg.queue_partition(@table_id::bigint, @key::jsonb), @key::jsonb)
)
SELECT pg_notify('dynamopg_index_queue', dynamopg.queue_partition(@table_id::bigint, @key::jsonb)::text);
