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
