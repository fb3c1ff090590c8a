-- stream.sql: the DynamoDB Streams change log (dynamopg.stream_records,
-- migration 006; the deleted tables whose streams are still served,
-- migration 007). item_insert, item_replace and item_delete (items.sql)
-- call stream_write in the writer's transaction with the catalog JSON they
-- already read, so a change and its record commit together or not at all.

-- stream_lock_class is the first key of the tables' stream advisory locks
-- (pg_advisory_xact_lock(class, table id)); "ds" in ASCII.
CREATE OR REPLACE FUNCTION dynamopg.stream_lock_class()
RETURNS int
LANGUAGE sql IMMUTABLE AS $$
    SELECT 25715
$$;

-- stream_spec is a table's stream specification (store.StreamSpec) from its
-- catalog JSON: Table.Options is a map of raw JSON byte strings, which
-- encoding/json writes as base64. NULL when the table has none.
CREATE OR REPLACE FUNCTION dynamopg.stream_spec(p_def jsonb)
RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN jsonb_typeof(p_def->'options'->'stream') = 'string'
        THEN convert_from(decode(p_def->'options'->>'stream', 'base64'), 'UTF8')::jsonb
    END
$$;

-- stream_enabled reports whether writes to the table write stream records.
CREATE OR REPLACE FUNCTION dynamopg.stream_enabled(p_def jsonb)
RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce((dynamopg.stream_spec(p_def)->>'enabled')::boolean, false)
$$;

-- stream_write records one change of one item of the table p_def: p_old is
-- the item before (NULL: INSERT), p_new after (NULL: REMOVE), p_ttl marks a
-- deletion by the TTL sweeper. Nothing when the stream is disabled, or when
-- neither image exists.
--
-- Ordering. Readers page by seq (seq > last seen), so a record must never
-- become visible after another record of its table with a higher seq: a
-- bare nextval() in two concurrent transactions can commit in the opposite
-- order, and a reader between the commits would skip the lower seq for
-- good. So the seq is taken under a transaction-level advisory lock of the
-- table: a second writer of the table waits at the lock until the first
-- commits (PostgreSQL makes a commit visible before it releases the
-- transaction's locks), then takes a higher seq. Writes of one table with
-- streams enabled therefore serialize from their first record to their
-- commit; the lock is taken after the item's row change, so the wait is
-- short. Transactions write their targets in (table id, key) order
-- (pgstore.lockOrder), so they take these locks in table id order and
-- cannot deadlock on them among themselves; the rare cycle with an insert
-- waiting on a concurrent insert of the same key ends in a deadlock error,
-- which pgstore retries.
CREATE OR REPLACE FUNCTION dynamopg.stream_write(p_def jsonb, p_old jsonb, p_new jsonb, p_ttl boolean)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_spec  jsonb := dynamopg.stream_spec(p_def);
    v_table bigint := (p_def->>'id')::bigint;
    v_event text;
BEGIN
    IF v_spec IS NULL OR NOT coalesce((v_spec->>'enabled')::boolean, false)
       OR (p_old IS NULL AND p_new IS NULL) THEN
        RETURN;
    END IF;
    v_event := CASE WHEN p_old IS NULL THEN 'INSERT'
                    WHEN p_new IS NULL THEN 'REMOVE'
                    ELSE 'MODIFY' END;
    PERFORM pg_advisory_xact_lock(dynamopg.stream_lock_class(), (v_table & 2147483647)::int);
    INSERT INTO dynamopg.stream_records
           (table_id, label, seq, event_name, keys, old_image, new_image, ttl)
    VALUES (v_table, coalesce(v_spec->>'label', ''), nextval('dynamopg.stream_seq'), v_event,
            dynamopg.queue_key(p_def, coalesce(p_new, p_old)), p_old, p_new,
            coalesce(p_ttl, false) AND p_new IS NULL);
END;
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
