-- 005_deleted_tables: deleted tables that had a stream. TableDelete copies
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

-- DeletedTableGet and DeletedTableList: by name, the latest deletion first.
CREATE INDEX IF NOT EXISTS deleted_tables_name ON deleted_tables (name, deleted_at);
