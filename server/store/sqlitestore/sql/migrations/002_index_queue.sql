-- 002_index_queue: the asynchronous index queue. One row per item whose
-- async indexes are behind, written in the same transaction as the item.
-- The worker (worker.go) rewrites the item's *current* state into those
-- indexes and deletes the row, so a row names an item, not a change: the
-- UNIQUE key coalesces the writes to one item while its row is pending, and
-- seq keeps first-in-first-out order. table_id is not a foreign key: the
-- rows of a dropped table are consumed by the worker.
CREATE TABLE IF NOT EXISTS index_queue (
    seq      INTEGER PRIMARY KEY,
    table_id INTEGER NOT NULL,
    pk       BLOB    NOT NULL,
    sk       BLOB    NOT NULL,
    UNIQUE (table_id, pk, sk)
);
