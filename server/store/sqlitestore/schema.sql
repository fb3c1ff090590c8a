-- The catalog of the SQLite store. Applied at every Open: every statement is
-- idempotent. Per-table storage (t_<id>, i_<id>) is created by ddl.go.

-- One row per DynamoDB table. def is the whole store.Table as JSON; name is
-- unique so that TableCreate of a taken name fails with a UNIQUE constraint.
-- AUTOINCREMENT: a dropped table's id is never reused, so a stale
-- *store.Table can never reach another table's storage.
CREATE TABLE IF NOT EXISTS tables (
    id   INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT    NOT NULL UNIQUE,
    def  TEXT    NOT NULL
);

-- Allocator of index ids (they name i_<id> storage), never reused either.
CREATE TABLE IF NOT EXISTS index_ids (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id INTEGER NOT NULL
);

-- The asynchronous index queue (schema version 2): one row per item whose
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
