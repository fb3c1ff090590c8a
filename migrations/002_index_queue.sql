-- 002_index_queue: the asynchronous index propagation queue. A write to a
-- table with async indexes inserts one row naming the item here, in its own
-- transaction; workers (pgstore's worker steps, sql/functions/queue.sql)
-- write the item's current state to those indexes and delete the row.

-- index_queue holds one row per pending change of an item. part is
-- dynamopg.queue_partition(table_id, key): all rows of one item share it, and
-- a partition is worked by one worker at a time (an advisory lock), in id
-- order. key is the item's primary key as jsonb (wire form, NUL-escaped),
-- built by dynamopg.queue_key so that equal keys are equal jsonb.
CREATE TABLE dynamopg.index_queue (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    table_id        bigint NOT NULL,
    part            int NOT NULL,
    key             jsonb NOT NULL,
    enqueued_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- The worker (and when) that last claimed the row; a claim lasts one
    -- transaction, so these are diagnostics, not leases.
    claimed_by      text,
    claimed_at      timestamptz,
    attempts        int NOT NULL DEFAULT 0,
    -- A row whose item could not be locked (or failed) is passed over, with
    -- every other row of its item, until this time.
    pass_over_until timestamptz,
    last_error      text
) WITH (fillfactor = 80);

-- Claims: one partition's rows in id order.
CREATE INDEX index_queue_part ON dynamopg.index_queue (part, id);

-- Applies, pass-overs and QueueWait: the rows of one item, of one table.
CREATE INDEX index_queue_item ON dynamopg.index_queue (table_id, key);

-- The queue's tunables, read by the queue functions on every run.
INSERT INTO dynamopg.settings (key, value) VALUES
    ('queue_lock_timeout_ms', '2000'),
    ('queue_lock_try_ms', '20'),
    ('queue_pass_over_ms', '2000'),
    ('queue_batch_size', '64')
ON CONFLICT (key) DO NOTHING;

---- create above / drop below ----

DELETE FROM dynamopg.settings WHERE key LIKE 'queue\_%';
DROP TABLE dynamopg.index_queue;
