-- 006_stream_records: the DynamoDB Streams change log. Every write of an
-- item of a table whose stream is enabled inserts one row here in its own
-- transaction (dynamopg.stream_record_sql, sql/functions/stream.sql); the API
-- serves them per (table_id, label) in seq order. Rows outlive their table
-- (no foreign key): a dropped table's stream stays readable until its
-- records are trimmed (24 hours, pgstore's trim loop).

-- stream_seq numbers the records of every table. A record's seq is taken
-- under the table's stream advisory lock (held to commit), so the seqs of
-- one table become visible in increasing order (see stream.sql).
CREATE SEQUENCE dynamopg.stream_seq AS bigint;

-- keys, old_image and new_image are jsonb in the wire form, NUL-escaped
-- like the items (sql/README.md). ttl marks the TTL sweeper's deletions.
CREATE TABLE dynamopg.stream_records (
    table_id   bigint NOT NULL,
    label      text COLLATE "C" NOT NULL,
    seq        bigint NOT NULL,
    event_name text NOT NULL,
    keys       jsonb NOT NULL,
    old_image  jsonb,
    new_image  jsonb,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    ttl        boolean NOT NULL DEFAULT false,
    PRIMARY KEY (table_id, label, seq)
);

-- The trim: records older than the retention, oldest first.
CREATE INDEX stream_records_created ON dynamopg.stream_records (created_at);

---- create above / drop below ----

DROP TABLE dynamopg.stream_records;
DROP SEQUENCE dynamopg.stream_seq;
