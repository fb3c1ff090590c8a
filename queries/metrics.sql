-- GET /metrics (pgstore/ops_stats.go): numbers not already read for
-- `dynamopg status` (status.sql), whose queries the metrics reuse.

-- name: StreamRecordsWritten :one
-- StreamRecordsWritten is the last value taken from dynamopg.stream_seq,
-- which numbers every stream record (006_stream_records): records written
-- since the database was created, 0 before the first. pg_sequences shows
-- NULL both before the first value and to a role without privilege on the
-- sequence; the latter, or a missing sequence, gives -1 (unknown).
SELECT coalesce((SELECT CASE WHEN s.last_value IS NOT NULL THEN s.last_value
                             WHEN has_sequence_privilege('dynamopg.stream_seq', 'SELECT') THEN 0
                             ELSE -1 END
                   FROM pg_catalog.pg_sequences s
                  WHERE s.schemaname = 'dynamopg' AND s.sequencename = 'stream_seq'), -1)::bigint AS written;
