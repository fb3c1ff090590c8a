-- stream.sql: the DynamoDB Streams change log (dynamopg.stream_records,
-- migration 006; the deleted tables whose streams are still served,
-- migration 007). Writers record each change in their own transaction
-- with a statement built by stream_record_sql (pgstore prepares it per
-- table: item_write_sql's record_sql, and inside its blind put and
-- remove), so a change and its record commit together or not at all.

-- stream_lock_class is the first key of the tables' stream advisory locks
-- (pg_advisory_xact_lock(class, table id)); "ds" in ASCII.
CREATE OR REPLACE FUNCTION dynamopg.stream_lock_class()
RETURNS int
LANGUAGE sql IMMUTABLE AS $$
    SELECT 25715
$$;

-- stream_record_sql is the text of the INSERT that records one change of
-- one item of table p_def in its stream, from SQL expressions: p_label the
-- stream's label, p_event the event name (INSERT, MODIFY or REMOVE),
-- p_keys the item's key, p_old and p_new its images (NULL: none), p_ttl
-- whether the TTL sweeper deleted it. p_src, when not NULL, is the one
-- relation of the statement (a CTE) those expressions read: the record is
-- written once per row of it, and the lock below is taken after the row is
-- read. pgstore decides whether to record at all (the stream enabled in the
-- description the write's version check proved current) and with which
-- label, as it decides the rest of the write.
--
-- Ordering. Readers page by seq (seq > last seen), so a record must never
-- become visible after another record of its table with a higher seq: a
-- bare nextval() in two concurrent transactions can commit in the opposite
-- order, and a reader between the commits would skip the lower seq for
-- good. So the seq is taken under a transaction-level advisory lock of the
-- table (the subquery l, evaluated before the row's nextval): a second
-- writer of the table waits at the lock until the first commits
-- (PostgreSQL makes a commit visible before it releases the transaction's
-- locks), then takes a higher seq. Writes of one table with streams enabled
-- therefore serialize from their first record to their commit; the record
-- is written after the item's row change, so the wait is short.
-- Transactions write their targets in (table id, key) order
-- (pgstore.lockOrder), so they take these locks in table id order and
-- cannot deadlock on them among themselves; the rare cycle with an insert
-- waiting on a concurrent insert of the same key ends in a deadlock error,
-- which pgstore retries.
CREATE OR REPLACE FUNCTION dynamopg.stream_record_sql(p_def jsonb, p_label text, p_event text, p_keys text,
                                                      p_old text, p_new text, p_ttl text, p_src text)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT format('INSERT INTO dynamopg.stream_records '
                  '(table_id, label, seq, event_name, keys, old_image, new_image, ttl) '
                  'SELECT %s, %s, nextval(''dynamopg.stream_seq''), %s, %s, %s, %s, %s FROM %s',
                  (p_def->>'id')::bigint, p_label, p_event, p_keys, p_old, p_new, p_ttl,
                  CASE WHEN p_src IS NULL
                       THEN format('(SELECT pg_advisory_xact_lock(%s, %s) OFFSET 0) l',
                                   dynamopg.stream_lock_class(), ((p_def->>'id')::bigint & 2147483647)::int)
                       -- LATERAL, naming the row: the lock after it, and none without one.
                       ELSE format('%1$s CROSS JOIN LATERAL (SELECT pg_advisory_xact_lock(%2$s, %3$s), %1$s.item OFFSET 0) l',
                                   p_src, dynamopg.stream_lock_class(), ((p_def->>'id')::bigint & 2147483647)::int)
                  END)
$$;

-- stream_trim deletes the records created before p_before, and the
-- deleted tables (migration 007) deleted before it, whose streams have no
-- records left; it returns how many records it deleted.
CREATE OR REPLACE FUNCTION dynamopg.stream_trim(p_before timestamptz)
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    v_n bigint;
BEGIN
    DELETE FROM dynamopg.stream_records WHERE created_at < p_before;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    DELETE FROM dynamopg.deleted_tables WHERE deleted_at < p_before;
    RETURN v_n;
END;
$$;

-- ttl_expired_keys lists up to p_limit keys of items of table p_table whose
-- attribute p_attr (NUL-escaped, as in the items) is a Number in
-- [p_lo, p_hi) (epoch seconds: the TTL sweeper's candidates; the sweeper
-- re-checks each under the item's row lock before deleting it).
CREATE OR REPLACE FUNCTION dynamopg.ttl_expired_keys(p_table bigint, p_attr text,
                                                     p_lo numeric, p_hi numeric, p_limit int)
RETURNS SETOF jsonb
LANGUAGE plpgsql AS $$
DECLARE
    v_def jsonb := dynamopg.table_def(p_table, false);
BEGIN
    RETURN QUERY EXECUTE format(
        'SELECT dynamopg.queue_key($1::jsonb, item) FROM dynamopg_data.%I '
        'WHERE jsonb_typeof(item->$2->''N'') = ''string'' '
        'AND dynamopg.ttl_number(item->$2->>''N'') >= $3 '
        'AND dynamopg.ttl_number(item->$2->>''N'') < $4 LIMIT $5',
        't_' || p_table)
      USING v_def, p_attr, p_lo, p_hi, p_limit;
END;
$$;

-- ttl_number is a Number attribute's text as numeric, NULL when it is not
-- a decimal literal (numbers are validated on write, so it always is).
CREATE OR REPLACE FUNCTION dynamopg.ttl_number(p_n text)
RETURNS numeric
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN p_n ~ '^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$'
        THEN p_n::numeric END
$$;
