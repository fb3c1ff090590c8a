-- items.sql: single-item reads and writes on t_<id>, each write keeping the
-- table's index tables in step. Items and keys are jsonb in the wire form,
-- strings NUL-escaped. Index definitions come from the catalog row, read
-- (and locked FOR KEY SHARE) inside the caller's transaction. Writes keep
-- the sync indexes in their transaction and enqueue the item for the async
-- ones (queue_enqueue, queue.sql), and record the change in the table's
-- stream when it is enabled (stream_write, stream.sql). A definition with
-- no "indexes" key (none) or no stream option skips those calls: a plain
-- key test is far cheaper than the calls that would find nothing to do.

-- index_rows_write gained p_async (which indexes to maintain).
DROP FUNCTION IF EXISTS dynamopg.index_rows_write(jsonb, jsonb, jsonb, boolean);
-- item_delete gained p_ttl (a call without it still resolves, to the default).
DROP FUNCTION IF EXISTS dynamopg.item_delete(bigint, jsonb);
-- item_lock, item_put and item_remove gained p_version (table_def).
DROP FUNCTION IF EXISTS dynamopg.item_lock(bigint, jsonb);
DROP FUNCTION IF EXISTS dynamopg.item_put(bigint, jsonb, int);
DROP FUNCTION IF EXISTS dynamopg.item_remove(bigint, jsonb);

-- item_get_sql is the text of a statement reading one item of table p_def by
-- key: $1 is the key (jsonb, wire form), the one row it returns holds the
-- item (NULL: absent), and no row means the table is gone or DELETING.
-- pgstore's ItemGet runs it as a prepared statement (planned once per table
-- and connection, where item_get plans its EXECUTE on every call); the
-- text depends only on the table's id and key schema, which never change.
CREATE OR REPLACE FUNCTION dynamopg.item_get_sql(p_def jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT format('SELECT (SELECT d.item FROM dynamopg_data.%I d WHERE %s) AS item '
                  'FROM dynamopg.tables t WHERE t.id = %s AND t.status <> ''DELETING''',
                  't_' || (p_def->>'id'),
                  dynamopg.key_where_sql(p_def, '$1::jsonb'),
                  (p_def->>'id')::bigint)
$$;

-- item_lost_insert raises serialization_failure (SQLSTATE 40001, which
-- pgstore retries): an insert found its key taken by a concurrent inserter
-- and wrote nothing. Raising ends the statement and its transaction, so a
-- pipeline of such statements is undone whole.
CREATE OR REPLACE FUNCTION dynamopg.item_lost_insert()
RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RAISE EXCEPTION 'dynamopg: item key created concurrently'
        USING ERRCODE = 'serialization_failure';
END;
$$;

-- item_write_sql is the text of the statements that write the data row of
-- one item of table p_def. pgstore prepares them per table and connection,
-- as it does item_get_sql, where item_lock and item_put plan their
-- EXECUTEs on every call, for a table with no async index and no stream:
-- it pipelines each write with index_write_sql's statements for the sync
-- indexes, in one transaction; for other tables it calls the functions.
-- Each statement that opens a write reads the catalog first through
-- table_def (its own ROW SHARE statement, the row FOR KEY SHARE, the
-- version check), gating the item's row lock on it. The texts depend only
-- on the table's id and key schema, which never change; a table whose
-- indexes or stream change is a new catalog version, which the statements'
-- version check refuses (DPG01).
--
--   lock_sql     $1 key, $2 version: the item FOR UPDATE (NULL: absent), as
--                item_lock
--   put_sql      $1 item, $2 size, $3 key hash (store.KeyHash), $4 version:
--                item_put; the item replaced (NULL: none), or 40001 when the
--                insert lost to a concurrent inserter (nothing written)
--   remove_sql   $1 key, $2 version: item_remove; the item deleted
--   insert_sql   $1 item, $2 size, $3 key hash: item_insert after lock_sql
--                in the transaction; 40001 when the key is taken
--   replace_sql  $1 item, $2 size: item_replace after lock_sql; 40001 when
--                the item is absent (it is locked: cannot happen)
--   delete_sql   $1 key: item_delete after lock_sql; 40001 when absent
CREATE OR REPLACE FUNCTION dynamopg.item_write_sql(p_def jsonb,
    OUT lock_sql text, OUT put_sql text, OUT remove_sql text,
    OUT insert_sql text, OUT replace_sql text, OUT delete_sql text)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_id   bigint := (p_def->>'id')::bigint;
    v_rel  text := format('dynamopg_data.%I', 't_' || v_id);
    v_cols text := dynamopg.build_key_cols(p_def);
    v_def  text := format('dynamopg.table_def(%s, true, %%s::bigint)', v_id);
BEGIN
    lock_sql := format(
        'SELECT (SELECT d.item FROM %s d WHERE %s FOR UPDATE) AS item '
        'FROM (SELECT %s AS def) c',
        v_rel, dynamopg.key_where_sql(p_def, '$1::jsonb'), format(v_def, '$2'));
    put_sql := format(
        'WITH c AS MATERIALIZED (SELECT %s AS def), '
        'old AS MATERIALIZED (SELECT (SELECT d.item FROM %s d WHERE %s FOR UPDATE) AS item FROM c), '
        'upd AS (UPDATE %s d SET item = $1::jsonb, size = $2::int FROM old '
                'WHERE old.item IS NOT NULL AND %s RETURNING 1), '
        'ins AS (INSERT INTO %s (hk, %s, item, size) SELECT $3::bigint, %s, $1::jsonb, $2::int '
                'FROM old WHERE old.item IS NULL ON CONFLICT DO NOTHING RETURNING 1) '
        'SELECT CASE WHEN EXISTS (SELECT FROM upd) OR EXISTS (SELECT FROM ins) THEN old.item '
        'ELSE dynamopg.item_lost_insert() END AS old FROM old',
        format(v_def, '$4'),
        v_rel, dynamopg.key_where_sql(p_def, '$1::jsonb'),
        v_rel, dynamopg.key_where_sql(p_def, '$1::jsonb'),
        v_rel, v_cols, dynamopg.build_key_vals(p_def, '$1::jsonb'));
    remove_sql := format(
        'WITH c AS MATERIALIZED (SELECT %s AS def), '
        'del AS (DELETE FROM %s d WHERE %s AND EXISTS (SELECT FROM c) RETURNING d.item) '
        'SELECT (SELECT item FROM del) AS old FROM c',
        format(v_def, '$2'), v_rel, dynamopg.key_where_sql(p_def, '$1::jsonb'));
    -- These three raise 40001 rather than report a write that did not take
    -- effect, so that the index statements pipelined after them never run
    -- on a key another writer owns.
    insert_sql := format(
        'WITH ins AS (INSERT INTO %s (hk, %s, item, size) VALUES ($3::bigint, %s, $1::jsonb, $2::int) '
        'ON CONFLICT DO NOTHING RETURNING 1) '
        'SELECT CASE WHEN EXISTS (SELECT FROM ins) THEN true ELSE dynamopg.item_lost_insert() IS NULL END AS inserted',
        v_rel, v_cols, dynamopg.build_key_vals(p_def, '$1::jsonb'));
    replace_sql := format(
        'WITH upd AS (UPDATE %s SET item = $1::jsonb, size = $2::int WHERE %s RETURNING 1) '
        'SELECT CASE WHEN EXISTS (SELECT FROM upd) THEN true ELSE dynamopg.item_lost_insert() IS NULL END AS replaced',
        v_rel, dynamopg.key_where_sql(p_def, '$1::jsonb'));
    delete_sql := format(
        'WITH del AS (DELETE FROM %s WHERE %s RETURNING 1) '
        'SELECT CASE WHEN EXISTS (SELECT FROM del) THEN true ELSE dynamopg.item_lost_insert() IS NULL END AS deleted',
        v_rel, dynamopg.key_where_sql(p_def, '$1::jsonb'));
END;
$$;

-- index_write_sql is the text of the statements that keep index p_index of
-- table p_def in step with one item, run after item_write_sql's statement
-- wrote its data row, in the same transaction (and by the queue's pass
-- once it locked the item):
--
--   delete_sql  $1 the item or its key: delete the index rows of its base key
--   insert_sql  $1 the item, $2 the key hash of its index partition key
--               (store.KeyHash; any value when the item lacks it): insert
--               its index row (index_row_sql) when it is indexable
--
-- The texts depend only on the index's id and key schema and the table's,
-- which never change.
CREATE OR REPLACE FUNCTION dynamopg.index_write_sql(p_def jsonb, p_index bigint,
    OUT delete_sql text, OUT insert_sql text)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_row record := dynamopg.index_row_sql(p_def, p_index, '$1::jsonb', '$2::bigint');
BEGIN
    delete_sql := format('DELETE FROM dynamopg_data.%I WHERE %s',
                         v_row.rel, dynamopg.key_where_sql(p_def, '$1::jsonb'));
    insert_sql := format('INSERT INTO dynamopg_data.%I (%s) SELECT %s WHERE %s',
                         v_row.rel, v_row.cols, v_row.vals, v_row.test);
END;
$$;

-- item_get returns the item with the key attributes of p_key, or NULL.
CREATE OR REPLACE FUNCTION dynamopg.item_get(p_table bigint, p_key jsonb)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    v_def  jsonb := dynamopg.table_def(p_table, false);
    v_item jsonb;
BEGIN
    EXECUTE dynamopg.item_get_sql(v_def) INTO v_item USING p_key;
    RETURN v_item;
END;
$$;

-- item_lock_def is item_lock on a table definition the caller read (and
-- locked) with table_def in this transaction.
CREATE OR REPLACE FUNCTION dynamopg.item_lock_def(p_def jsonb, p_key jsonb)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    v_item jsonb;
BEGIN
    EXECUTE format('SELECT item FROM dynamopg_data.%I WHERE %s FOR UPDATE',
                   't_' || (p_def->>'id'), dynamopg.key_where_sql(p_def, '$1::jsonb'))
       INTO v_item USING p_key;
    RETURN v_item;
END;
$$;

-- item_lock returns the item with the key of p_key locked FOR UPDATE, or
-- NULL (nothing locked) when absent; it also locks the catalog row. A
-- p_version other than the catalog's raises DPG01 (table_def).
CREATE OR REPLACE FUNCTION dynamopg.item_lock(p_table bigint, p_key jsonb,
                                             p_version bigint DEFAULT NULL)
RETURNS jsonb
LANGUAGE sql AS $$
    SELECT dynamopg.item_lock_def(dynamopg.table_def(p_table, true, p_version), p_key)
$$;

-- index_rows_write keeps the sync indexes (p_async false: writers) or the
-- async indexes (p_async true: queue_apply) of a table in step with one
-- item, through index_write_sql's statements: it deletes the index rows of
-- the base key p_key (unless p_fresh: the item was just inserted) and
-- inserts the row of p_item where it is indexable (p_item NULL: the item
-- was deleted).
CREATE OR REPLACE FUNCTION dynamopg.index_rows_write(p_def jsonb, p_key jsonb, p_item jsonb,
                                                     p_fresh boolean, p_async boolean)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_ix  jsonb;
    v_sql record;
BEGIN
    FOR v_ix IN SELECT e FROM jsonb_array_elements(coalesce(p_def->'indexes', '[]')) e
                 WHERE dynamopg.index_async(e) = p_async LOOP
        v_sql := dynamopg.index_write_sql(p_def, (v_ix->>'id')::bigint);
        IF NOT p_fresh THEN
            EXECUTE v_sql.delete_sql USING p_key;
        END IF;
        IF p_item IS NOT NULL THEN
            EXECUTE v_sql.insert_sql USING p_item, dynamopg.key_hash(p_item->(v_ix->'hash'->>'name'));
        END IF;
    END LOOP;
END;
$$;

-- item_insert_def is item_insert on a table definition the caller read (and
-- locked) with table_def in this transaction.
CREATE OR REPLACE FUNCTION dynamopg.item_insert_def(p_def jsonb, p_item jsonb, p_size int)
RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    v_cols text := 'pk';
    v_vals text;
    v_n    bigint;
BEGIN
    v_vals := dynamopg.key_value_sql((p_def->'hash'->>'type')::int,
                                     format('$1::jsonb->%L', p_def->'hash'->>'name'));
    IF dynamopg.has_range(p_def) THEN
        v_cols := 'pk, sk';
        v_vals := v_vals || ', ' || dynamopg.key_value_sql((p_def->'range'->>'type')::int,
                                                          format('$1::jsonb->%L', p_def->'range'->>'name'));
    END IF;
    EXECUTE format(
        'INSERT INTO dynamopg_data.%I (hk, %s, item, size) '
        'VALUES (dynamopg.key_hash($1::jsonb->%L), %s, $1::jsonb, $2::int) '
        'ON CONFLICT DO NOTHING',
        't_' || (p_def->>'id'), v_cols, p_def->'hash'->>'name', v_vals)
      USING p_item, p_size;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    IF v_n = 0 THEN
        RETURN false;
    END IF;
    IF p_def ? 'indexes' THEN
        PERFORM dynamopg.index_rows_write(p_def, p_item, p_item, true, false);
        PERFORM dynamopg.queue_enqueue(p_def, p_item);
    END IF;
    IF p_def->'options' ? 'stream' THEN
        PERFORM dynamopg.stream_write(p_def, NULL, p_item, false);
    END IF;
    RETURN true;
END;
$$;

-- item_insert inserts an item unless its key exists (ON CONFLICT DO NOTHING,
-- waiting for a concurrent inserter) and reports whether it inserted.
CREATE OR REPLACE FUNCTION dynamopg.item_insert(p_table bigint, p_item jsonb, p_size int)
RETURNS boolean
LANGUAGE sql AS $$
    SELECT dynamopg.item_insert_def(dynamopg.table_def(p_table, true), p_item, p_size)
$$;

-- item_replace_def is item_replace on a table definition the caller read (and
-- locked) with table_def in this transaction.
CREATE OR REPLACE FUNCTION dynamopg.item_replace_def(p_def jsonb, p_item jsonb, p_size int)
RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    v_n      bigint;
    v_stream boolean := p_def->'options' ? 'stream' AND dynamopg.stream_enabled(p_def);
    v_old    jsonb;
BEGIN
    IF v_stream THEN
        -- The old image: the writers hold the row FOR UPDATE (item_lock).
        EXECUTE format('SELECT item FROM dynamopg_data.%I WHERE %s FOR UPDATE',
                       't_' || (p_def->>'id'), dynamopg.key_where_sql(p_def, '$1::jsonb'))
           INTO v_old USING p_item;
    END IF;
    EXECUTE format('UPDATE dynamopg_data.%I SET item = $1::jsonb, size = $2::int WHERE %s',
                   't_' || (p_def->>'id'), dynamopg.key_where_sql(p_def, '$1::jsonb'))
      USING p_item, p_size;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    IF v_n = 0 THEN
        RETURN false;
    END IF;
    IF p_def ? 'indexes' THEN
        PERFORM dynamopg.index_rows_write(p_def, p_item, p_item, false, false);
        PERFORM dynamopg.queue_enqueue(p_def, p_item);
    END IF;
    IF v_stream THEN
        PERFORM dynamopg.stream_write(p_def, v_old, p_item, false);
    END IF;
    RETURN true;
END;
$$;

-- item_replace overwrites an existing item and reports whether it existed.
CREATE OR REPLACE FUNCTION dynamopg.item_replace(p_table bigint, p_item jsonb, p_size int)
RETURNS boolean
LANGUAGE sql AS $$
    SELECT dynamopg.item_replace_def(dynamopg.table_def(p_table, true), p_item, p_size)
$$;

-- item_delete_def is item_delete on a table definition the caller read (and
-- locked) with table_def in this transaction.
CREATE OR REPLACE FUNCTION dynamopg.item_delete_def(p_def jsonb, p_key jsonb, p_ttl boolean)
RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    v_n   bigint;
    v_old jsonb;
BEGIN
    EXECUTE format('DELETE FROM dynamopg_data.%I WHERE %s RETURNING item',
                   't_' || (p_def->>'id'), dynamopg.key_where_sql(p_def, '$1::jsonb'))
       INTO v_old USING p_key;
    GET DIAGNOSTICS v_n = ROW_COUNT;
    IF v_n = 0 THEN
        RETURN false;
    END IF;
    IF p_def ? 'indexes' THEN
        PERFORM dynamopg.index_rows_write(p_def, p_key, NULL, false, false);
        PERFORM dynamopg.queue_enqueue(p_def, p_key);
    END IF;
    IF p_def->'options' ? 'stream' THEN
        PERFORM dynamopg.stream_write(p_def, v_old, NULL, p_ttl);
    END IF;
    RETURN true;
END;
$$;

-- item_delete deletes the item with the key of p_key and its sync index rows
-- (enqueueing it for the async ones), and reports whether it existed. p_ttl
-- marks a deletion by the TTL sweeper (store.WithTTLDelete) in its stream
-- record.
CREATE OR REPLACE FUNCTION dynamopg.item_delete(p_table bigint, p_key jsonb,
                                               p_ttl boolean DEFAULT false)
RETURNS boolean
LANGUAGE sql AS $$
    SELECT dynamopg.item_delete_def(dynamopg.table_def(p_table, true), p_key, p_ttl)
$$;

-- item_put writes an item whole, unconditionally, in the caller's statement
-- (one round trip for a PutItem without a condition): it replaces the item
-- when its key exists and inserts it otherwise, with the index, queue and
-- stream work of item_replace and item_insert, and returns the item it
-- replaced (NULL: none). An insert that loses to a concurrent inserter
-- locks the winner's row and replaces it, as ItemWrite's retry would.
-- A p_version other than the catalog's raises DPG01 (table_def).
CREATE OR REPLACE FUNCTION dynamopg.item_put(p_table bigint, p_item jsonb, p_size int,
                                            p_version bigint DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    v_def jsonb := dynamopg.table_def(p_table, true, p_version);
    v_old jsonb;
BEGIN
    LOOP
        v_old := dynamopg.item_lock_def(v_def, p_item);
        IF v_old IS NOT NULL THEN
            PERFORM dynamopg.item_replace_def(v_def, p_item, p_size);
            RETURN v_old;
        END IF;
        IF dynamopg.item_insert_def(v_def, p_item, p_size) THEN
            RETURN NULL;
        END IF;
    END LOOP;
END;
$$;

-- item_remove deletes an item unconditionally in the caller's statement
-- (one round trip for a DeleteItem without a condition), with the work of
-- item_delete, and returns the item it deleted (NULL: none). A p_version
-- other than the catalog's raises DPG01 (table_def).
CREATE OR REPLACE FUNCTION dynamopg.item_remove(p_table bigint, p_key jsonb,
                                               p_version bigint DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    v_def jsonb := dynamopg.table_def(p_table, true, p_version);
    v_old jsonb := dynamopg.item_lock_def(v_def, p_key);
BEGIN
    IF v_old IS NOT NULL THEN
        PERFORM dynamopg.item_delete_def(v_def, p_key, false);
    END IF;
    RETURN v_old;
END;
$$;
