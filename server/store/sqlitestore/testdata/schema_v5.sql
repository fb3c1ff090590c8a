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
-- rows of a dropped table are consumed by the worker. enqueued_at (schema
-- version 4, Unix nanoseconds; NULL in rows queued by an older version) is
-- when the item's oldest unapplied write was queued: the queue's lag.
CREATE TABLE IF NOT EXISTS index_queue (
    seq         INTEGER PRIMARY KEY,
    table_id    INTEGER NOT NULL,
    pk          BLOB    NOT NULL,
    sk          BLOB    NOT NULL,
    enqueued_at INTEGER,
    UNIQUE (table_id, pk, sk)
);

-- The DynamoDB Streams change log (schema version 3): one row per change of
-- an item of a table whose stream is enabled, written by apply (write.go) in
-- the change's transaction. seq is AUTOINCREMENT: increasing, never reused
-- (even after the trim empties the table), and, SQLite having one writer,
-- committed in increasing order, so readers paging by seq miss nothing.
-- keys, old_image and new_image are items in the wire form; created_at is
-- Unix nanoseconds; ttl marks the TTL sweeper's deletions. table_id is not
-- a foreign key: a dropped table's stream stays readable until trimmed.
CREATE TABLE IF NOT EXISTS stream_records (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id   INTEGER NOT NULL,
    label      TEXT    NOT NULL,
    event_name TEXT    NOT NULL,
    keys       BLOB    NOT NULL,
    old_image  BLOB,
    new_image  BLOB,
    created_at INTEGER NOT NULL,
    ttl        INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS stream_records_read ON stream_records (table_id, label, seq);
CREATE INDEX IF NOT EXISTS stream_records_created ON stream_records (created_at);

-- Deleted tables that had a stream (schema version 5): TableDelete copies
-- the catalog entry here in its transaction, so that DescribeStream and
-- GetRecords keep serving the table's streams (DISABLED) until their
-- records expire; the trim deletes the rows with the records. labels is a
-- JSON array of the table's stream labels (store.StreamLabels); deleted_at
-- is Unix nanoseconds.
CREATE TABLE IF NOT EXISTS deleted_tables (
    table_id   INTEGER PRIMARY KEY,
    name       TEXT    NOT NULL,
    labels     TEXT    NOT NULL,
    def        TEXT    NOT NULL,
    deleted_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS deleted_tables_name ON deleted_tables (name, deleted_at);
