-- 003_stream_records: the DynamoDB Streams change log. One row per change
-- of an item of a table whose stream is enabled, written by apply
-- (write.go) in the change's transaction. seq is AUTOINCREMENT: increasing,
-- never reused (even after the trim empties the table), and, SQLite having
-- one writer, committed in increasing order, so readers paging by seq miss
-- nothing. keys, old_image and new_image are items in the wire form;
-- created_at is Unix nanoseconds; ttl marks the TTL sweeper's deletions.
-- table_id is not a foreign key: a dropped table's stream stays readable
-- until trimmed.
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

-- GetRecords: one stream of a table, by seq.
CREATE INDEX IF NOT EXISTS stream_records_read ON stream_records (table_id, label, seq);

-- The trim: records by age.
CREATE INDEX IF NOT EXISTS stream_records_created ON stream_records (created_at);
