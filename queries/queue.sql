-- name: QueueClaimBatch :one
-- QueueClaimBatch is a worker step's claim (dynamopg.queue_claim_batch):
-- rows of every partition no other worker holds, up to queue_batch_size,
-- held to the end of the transaction. Part is -1 when nothing was
-- claimable.
SELECT coalesce(b.part, -1)::int AS part, b.ids::bigint[] AS ids,
       b.tables::bigint[] AS tables, b.keys::jsonb[] AS keys
  FROM dynamopg.queue_claim_batch(@worker::text) AS b;

-- name: QueueApplyRest :one
-- QueueApplyRest is a worker step's last part (dynamopg.queue_apply_rest):
-- the claimed rows the set-based pass left, one item at a time.
SELECT r.applied::int AS applied, r.passed::int AS passed
  FROM dynamopg.queue_apply_rest(@ids::bigint[], @tables::bigint[], @keys::jsonb[], @holding::boolean) AS r;

-- name: QueueRowsDelete :exec
-- QueueRowsDelete deletes queued rows by id.
DELETE FROM dynamopg.index_queue q
 WHERE q.id = ANY (@ids::bigint[]);

-- name: QueueTableDef :one
-- QueueTableDef is the set-based pass's catalog read of one table
-- (dynamopg.queue_table_def): NULL when it is gone or being deleted.
SELECT dynamopg.queue_table_def(@table_id::bigint)::jsonb AS def;

-- name: QueueApplySQL :one
-- QueueApplySQL is the statement texts pgstore prepares for the set-based
-- pass over a table's items (dynamopg.queue_apply_sql).
SELECT a.lock_sql::text AS lock_sql, a.absent_sql::text AS absent_sql
  FROM dynamopg.queue_apply_sql(dynamopg.table_def(@table_id::bigint, false)) AS a;

-- name: QueueListen :exec
-- QueueListen subscribes the session to the writers' notifications.
LISTEN dynamopg_index_queue;

-- name: QueueBatchSize :one
-- QueueBatchSize is the most rows a worker step claims (queue_settings).
SELECT (dynamopg.queue_settings()).batch::int AS batch;

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
-- QueueEnqueueKey queues an item for the async indexes of its table in the
-- writer's transaction (pgstore's prepared.go, which knows that the table
-- has some and has built the item's queue key in Go: its key attributes
-- only, as queue_key builds them) and notifies the workers (at commit).
WITH queued AS (
    INSERT INTO dynamopg.index_queue (table_id, part, key)
    VALUES (@table_id::bigint, dynamopg.queue_partition(@table_id::bigint, @key::jsonb), @key::jsonb)
)
SELECT pg_notify('dynamopg_index_queue', dynamopg.queue_partition(@table_id::bigint, @key::jsonb)::text);

-- name: QueueEnqueueKeyLocal :exec
-- QueueEnqueueKeyLocal is QueueEnqueueKey without the notification, for a
-- process whose own workers the writer wakes after its commit (pgstore
-- worker.go): a NOTIFY wakes every listening backend of the database, and
-- the workers' client side, on every write.
INSERT INTO dynamopg.index_queue (table_id, part, key)
VALUES (@table_id::bigint, dynamopg.queue_partition(@table_id::bigint, @key::jsonb), @key::jsonb);

-- name: QueueSetSavepoint :exec
-- QueueSetSavepoint opens the set-based pass over one table of a worker
-- step, so that its failure leaves the claim (pgstore queue_apply.go).
SAVEPOINT queue_set;

-- name: QueueSetRelease :exec
-- QueueSetRelease keeps that pass.
RELEASE SAVEPOINT queue_set;

-- name: QueueSetRollback :exec
-- QueueSetRollback undoes that pass.
ROLLBACK TO SAVEPOINT queue_set;
