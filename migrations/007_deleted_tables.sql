-- 007_deleted_tables: the catalog entries of deleted tables that had a
-- stream. DeleteTable copies the entry here in the transaction that marks
-- the table DELETING (pgstore tables.go), so that DescribeStream,
-- GetShardIterator and GetRecords keep serving the table's streams
-- (DISABLED, read from stream_records by table_id) until their records
-- expire; dynamopg.stream_trim (sql/functions/stream.sql) deletes the rows
-- with the records, 24 hours after the deletion.

-- labels are the table's stream labels (store.StreamLabels), for the
-- lookup of a stream ARN (table name, label); def is the catalog JSON as it
-- was, NUL-escaped like dynamopg.tables.def.
CREATE TABLE dynamopg.deleted_tables (
    table_id   bigint PRIMARY KEY,
    name       text COLLATE "C" NOT NULL,
    labels     text[] NOT NULL,
    def        jsonb NOT NULL,
    deleted_at timestamptz NOT NULL DEFAULT now()
);

-- ListStreams and the lookup by name; the trim by deleted_at.
CREATE INDEX deleted_tables_name ON dynamopg.deleted_tables (name, deleted_at DESC);
CREATE INDEX deleted_tables_deleted ON dynamopg.deleted_tables (deleted_at);

---- create above / drop below ----

DROP TABLE dynamopg.deleted_tables;
