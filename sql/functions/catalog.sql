-- catalog.sql: reading table and index definitions from the catalog JSON
-- (store.Table: {"id", "hash": {"name", "type"}, "range"?, "indexes"?: [...]}).

-- table_def returns a table's catalog JSON, locked FOR KEY SHARE when p_lock
-- (item writers: holds off DeleteTable's drop until they commit), or
-- raises undefined_table when the table is not in the catalog or is DELETING
-- (drop.sql): item operations never touch a table being dropped. The status
-- test comes before the lock, so a DELETING row is not locked (and the drop's
-- wait for writers in flight is not prolonged by writers that bounce off).
--
-- p_version, when not NULL, is the catalog version (dynamopg.tables.version)
-- of the description the caller validated the request against, from its
-- table cache; a different version raises SQLSTATE DPG01 (pgstore's
-- ErrStaleTable): the request is validated again on the current description
-- and rerun. Nothing was written: the exception ends the statement.
--
-- With p_lock it first takes ROW SHARE on dynamopg.tables in a statement of
-- its own (the lock FOR KEY SHARE takes anyway, so nothing new conflicts),
-- so that the snapshot of the SELECT below is taken after this writer holds
-- a lock on dynamopg.tables. The catalog barrier (catalog_lockers) relies on
-- that: a write it does not see holding such a lock reads the catalog with a
-- snapshot taken after the barrier started (docs/index-build.md). Without
-- the separate statement, PostgreSQL takes a statement's snapshot before it
-- locks the statement's relations.
CREATE OR REPLACE FUNCTION dynamopg.table_def(p_table bigint, p_lock boolean,
                                              p_version bigint DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    v_def     jsonb;
    v_version bigint;
BEGIN
    IF p_lock THEN
        LOCK TABLE dynamopg.tables IN ROW SHARE MODE;
        SELECT t.def, t.version INTO v_def, v_version FROM dynamopg.tables t
         WHERE t.id = p_table AND t.status <> 'DELETING' FOR KEY SHARE;
    ELSE
        SELECT t.def, t.version INTO v_def, v_version FROM dynamopg.tables t
         WHERE t.id = p_table AND t.status <> 'DELETING';
    END IF;
    IF v_def IS NULL THEN
        RAISE EXCEPTION 'dynamopg: table % not found (or DELETING)', p_table
            USING ERRCODE = 'undefined_table';
    END IF;
    IF p_version IS NOT NULL AND p_version <> v_version THEN
        RAISE EXCEPTION 'dynamopg: table % is at catalog version %, not %', p_table, v_version, p_version
            USING ERRCODE = 'DPG01';
    END IF;
    RETURN v_def;
END;
$$;

-- catalog_refused raises what an item write's statement (item_write_sql)
-- must raise when it found the catalog row of table p_table absent,
-- DELETING, or at a version other than p_version (the caller's
-- description): undefined_table, or DPG01 (pgstore's ErrStaleTable). The
-- statements call it only then: the write path runs no PL/pgSQL.
CREATE OR REPLACE FUNCTION dynamopg.catalog_refused(p_table bigint, p_version bigint)
RETURNS jsonb
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_version bigint;
BEGIN
    SELECT t.version INTO v_version FROM dynamopg.tables t
     WHERE t.id = p_table AND t.status <> 'DELETING';
    IF v_version IS NULL THEN
        RAISE EXCEPTION 'dynamopg: table % not found (or DELETING)', p_table
            USING ERRCODE = 'undefined_table';
    END IF;
    RAISE EXCEPTION 'dynamopg: table % is at catalog version %, not %', p_table, v_version, p_version
        USING ERRCODE = 'DPG01';
END;
$$;

-- tables_version counts the changes of a catalog row: a new description or
-- status is a new version (a trigger, so that every writer of the catalog,
-- Go or PL/pgSQL, counts).
CREATE OR REPLACE FUNCTION dynamopg.tables_version()
RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.def IS DISTINCT FROM OLD.def OR NEW.status IS DISTINCT FROM OLD.status THEN
        NEW.version := OLD.version + 1;
    END IF;
    RETURN NEW;
END;
$$;

-- tables_notify announces a changed, added or removed catalog row on channel
-- dynamopg_catalog with the table's name: every server process drops its
-- cached description (pgstore's table cache). Delivered at commit.
CREATE OR REPLACE FUNCTION dynamopg.tables_notify()
RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('dynamopg_catalog', CASE WHEN TG_OP = 'DELETE' THEN OLD.name ELSE NEW.name END);
    RETURN NULL;
END;
$$;

-- The triggers are created once, not replaced on every install: DROP TRIGGER
-- would lock dynamopg.tables against every item write of a serving process.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = 'dynamopg.tables'::regclass
                                              AND tgname = 'tables_version') THEN
        CREATE TRIGGER tables_version BEFORE UPDATE ON dynamopg.tables
            FOR EACH ROW EXECUTE FUNCTION dynamopg.tables_version();
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = 'dynamopg.tables'::regclass
                                              AND tgname = 'tables_notify') THEN
        CREATE TRIGGER tables_notify AFTER INSERT OR UPDATE OR DELETE ON dynamopg.tables
            FOR EACH ROW EXECUTE FUNCTION dynamopg.tables_notify();
    END IF;
END;
$$;

-- has_range reports whether a table or index JSON has a range key.
CREATE OR REPLACE FUNCTION dynamopg.has_range(p_def jsonb)
RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(jsonb_typeof(p_def->'range') = 'object', false)
$$;

-- index_key_attrs returns an index JSON's key attributes in KeySchema
-- order, a jsonb array of {"name", "type"}: "hash", then "moreHash" (the
-- further partition attributes of a multi-attribute key), then "range" and
-- "moreRange" (store.Index.KeyAttrs).
CREATE OR REPLACE FUNCTION dynamopg.index_key_attrs(p_ix jsonb)
RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_build_array(p_ix->'hash') || coalesce(p_ix->'moreHash', '[]')
        || CASE WHEN dynamopg.has_range(p_ix)
                THEN jsonb_build_array(p_ix->'range') || coalesce(p_ix->'moreRange', '[]')
                ELSE '[]' END
$$;

-- index_hash_count is the number of partition attributes of an index JSON.
CREATE OR REPLACE FUNCTION dynamopg.index_hash_count(p_ix jsonb)
RETURNS int
LANGUAGE sql IMMUTABLE AS $$
    SELECT 1 + jsonb_array_length(coalesce(p_ix->'moreHash', '[]'))
$$;

-- index_def returns the index with storage id p_index from a table's JSON,
-- or raises undefined_table when the table has no such index.
CREATE OR REPLACE FUNCTION dynamopg.index_def(p_def jsonb, p_index bigint)
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_ix jsonb;
BEGIN
    SELECT e INTO v_ix
      FROM jsonb_array_elements(coalesce(p_def->'indexes', '[]')) e
     WHERE (e->>'id')::bigint = p_index;
    IF v_ix IS NULL THEN
        RAISE EXCEPTION 'dynamopg: index % of table % not found', p_index, p_def->>'id'
            USING ERRCODE = 'undefined_table';
    END IF;
    RETURN v_ix;
END;
$$;

-- target_layout describes the storage a read or write targets: the table
-- (p_index 0) or one index. cols are the key columns in order (index key
-- then table key for an index), names and types their attributes; sorted
-- tells whether the target has a sort key. An index's key columns are ipk
-- and isk; a multi-attribute key has one column per attribute, ipk, ipk2
-- … ipk4 then isk, isk2 … isk4 (so a single-attribute index, whose
-- storage predates multi-attribute keys, keeps its shape).
CREATE OR REPLACE FUNCTION dynamopg.target_layout(
    p_def jsonb, p_index bigint,
    OUT rel text, OUT cols text[], OUT names text[], OUT types int[], OUT sorted boolean)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_ix    jsonb;
    v_keys  jsonb;
    v_nhash int;
    v_i     int;
BEGIN
    cols := ARRAY['pk'];
    names := ARRAY[p_def->'hash'->>'name'];
    types := ARRAY[(p_def->'hash'->>'type')::int];
    IF dynamopg.has_range(p_def) THEN
        cols := cols || 'sk'::text;
        names := names || (p_def->'range'->>'name');
        types := types || (p_def->'range'->>'type')::int;
    END IF;
    IF p_index = 0 THEN
        rel := 't_' || (p_def->>'id')::bigint;
        sorted := dynamopg.has_range(p_def);
        RETURN;
    END IF;
    v_ix := dynamopg.index_def(p_def, p_index);
    rel := 'i_' || p_index;
    sorted := dynamopg.has_range(v_ix);
    v_keys := dynamopg.index_key_attrs(v_ix);
    v_nhash := dynamopg.index_hash_count(v_ix);
    FOR v_i IN REVERSE jsonb_array_length(v_keys) - 1 .. 0 LOOP
        cols := CASE WHEN v_i < v_nhash THEN 'ipk' || CASE WHEN v_i > 0 THEN (v_i + 1)::text ELSE '' END
                     ELSE 'isk' || CASE WHEN v_i > v_nhash THEN (v_i - v_nhash + 1)::text ELSE '' END
                END || cols;
        names := (v_keys->v_i->>'name') || names;
        types := (v_keys->v_i->>'type')::int || types;
    END LOOP;
END;
$$;

-- key_where_sql is the condition "pk = … [AND sk = …]" on a table's key
-- columns, reading the key attributes from the jsonb item expression p_src.
CREATE OR REPLACE FUNCTION dynamopg.key_where_sql(p_def jsonb, p_src text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_sql text;
BEGIN
    v_sql := format('pk = %s', dynamopg.key_value_sql((p_def->'hash'->>'type')::int,
        format('%s->%L', p_src, p_def->'hash'->>'name')));
    IF dynamopg.has_range(p_def) THEN
        v_sql := v_sql || format(' AND sk = %s', dynamopg.key_value_sql((p_def->'range'->>'type')::int,
            format('%s->%L', p_src, p_def->'range'->>'name')));
    END IF;
    RETURN v_sql;
END;
$$;

-- index_row_sql is the one definition of an item's row in index p_index of
-- table p_def on PostgreSQL (SQLite's is store.Index.Indexable and
-- Project), as SQL over the jsonb item expression p_src. Every statement
-- that writes index rows is built from it: the writers' and the queue
-- pass's (index_write_sql), the per-item path of the queue and the build
-- (index_rows_write), and the backfill's pages (index_build_page, build_write_page).
--
--   rel   the index table (i_<id>)
--   cols  its columns: hk, the index key then the table key, item
--   vals  their values: hk is p_hash (an expression: the caller's
--         store.KeyHash) or, when p_hash is NULL, key_hash of the index
--         partition key; then the key columns; then the projection: p_src
--         itself for ALL, else only the table key, the index key and the
--         INCLUDE attributes, one jsonb_build_object of the item's values
--         whose absent attributes (JSON null) jsonb_strip_nulls drops.
--         JSON null occurs nowhere else in a stored item: the wire form has
--         none (NULL is {"NULL": true}) and attr.DecodeItem refuses it.
--   test  whether the item is indexable: it has every key attribute of the
--         index with its declared type, within the key size limits
--         (store.Index.Indexable: 2048 bytes for a partition attribute,
--         1024 for a sort attribute)
--
-- The texts depend only on the index's and the table's key schemas and the
-- projection, which never change.
CREATE OR REPLACE FUNCTION dynamopg.index_row_sql(p_def jsonb, p_index bigint, p_src text, p_hash text,
    OUT rel text, OUT cols text, OUT vals text, OUT test text)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_ix     jsonb := dynamopg.index_def(p_def, p_index);
    v_layout record := dynamopg.target_layout(p_def, p_index);
    v_names  text[];
    v_parts  text[] := '{}';
    v_i      int;
BEGIN
    rel := v_layout.rel;
    cols := 'hk, ' || array_to_string(v_layout.cols, ', ') || ', item';
    vals := coalesce(p_hash, format('dynamopg.key_hash(%s->%L)', p_src, v_layout.names[1]));
    FOR v_i IN 1 .. array_length(v_layout.cols, 1) LOOP
        vals := vals || ', ' || dynamopg.key_value_sql(v_layout.types[v_i],
            format('%s->%L', p_src, v_layout.names[v_i]));
    END LOOP;
    IF v_ix->'projection'->>'type' = 'ALL' THEN
        vals := vals || ', ' || p_src;
    ELSE
        -- The key attributes, then the INCLUDE ones, each once; at most 50
        -- pairs per jsonb_build_object (100 arguments).
        SELECT array_agg(n ORDER BY o) INTO v_names
          FROM (SELECT n, min(o) AS o
                  FROM unnest(v_layout.names
                              || ARRAY(SELECT jsonb_array_elements_text(
                                           coalesce(v_ix->'projection'->'nonKeyAttributes', '[]'))))
                       WITH ORDINALITY AS u(n, o)
                 GROUP BY n) k;
        FOR v_i IN 0 .. (array_length(v_names, 1) - 1) / 50 LOOP
            v_parts := v_parts || (SELECT format('jsonb_build_object(%s)',
                                                 string_agg(format('%L, %s->%L', n, p_src, n), ', ' ORDER BY o))
                                     FROM unnest(v_names[v_i * 50 + 1 : v_i * 50 + 50]) WITH ORDINALITY AS u(n, o));
        END LOOP;
        vals := vals || format(', jsonb_strip_nulls(%s)', array_to_string(v_parts, ' || '));
    END IF;
    -- Every key attribute, with its type and size (the sparse-index rule,
    -- per attribute of a multi-attribute key).
    SELECT string_agg(format('coalesce((%s->%L) ? %L, false)', p_src, k->>'name',
                             dynamopg.key_letter((k->>'type')::int))
                      || ' AND ' || dynamopg.key_size_test_sql((k->>'type')::int, format('%s->%L', p_src, k->>'name'),
                                                               CASE WHEN o <= dynamopg.index_hash_count(v_ix) THEN 2048 ELSE 1024 END),
                      ' AND ' ORDER BY o)
      INTO test
      FROM jsonb_array_elements(dynamopg.index_key_attrs(v_ix)) WITH ORDINALITY AS x(k, o);
END;
$$;

-- index_async reports whether an index JSON is maintained through the queue
-- (store.Index.Async: "propagation" is "async"; absent means sync).
CREATE OR REPLACE FUNCTION dynamopg.index_async(p_ix jsonb)
RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(p_ix->>'propagation', 'sync') = 'async'
$$;

-- has_async_index reports whether a table JSON has an async index.
CREATE OR REPLACE FUNCTION dynamopg.has_async_index(p_def jsonb)
RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT EXISTS (SELECT 1 FROM jsonb_array_elements(coalesce(p_def->'indexes', '[]')) e
                    WHERE dynamopg.index_async(e))
$$;

-- catalog_lockers is the first half of the catalog barrier
-- (docs/index-build.md): the virtual transaction ids of every transaction
-- other than the caller's that holds (or waits for) a lock on
-- dynamopg.tables. Every item write, queue apply and backfill page holds
-- one from before it reads the catalog until it ends. pg_locks lists
-- fast-path locks too; it reads them before the shared lock table, and a
-- fast-path lock only ever moves into the shared table, so a lock held
-- throughout the call is never missed. Taking no lock itself, it blocks
-- nobody.
CREATE OR REPLACE FUNCTION dynamopg.catalog_lockers()
RETURNS text[]
LANGUAGE sql VOLATILE AS $$
    SELECT coalesce(array_agg(DISTINCT l.virtualtransaction), '{}')
      FROM pg_locks l
     WHERE l.locktype = 'relation'
       AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND l.relation = 'dynamopg.tables'::regclass
       AND l.virtualtransaction IS NOT NULL
       AND l.pid IS DISTINCT FROM pg_backend_pid()
$$;

-- catalog_lockers_left is the second half: how many of the transactions
-- p_vxids (from catalog_lockers) are still running (hold any lock at all:
-- a running transaction always holds its own virtualxid lock). Virtual
-- transaction ids are never reused.
CREATE OR REPLACE FUNCTION dynamopg.catalog_lockers_left(p_vxids text[])
RETURNS int
LANGUAGE sql VOLATILE AS $$
    SELECT count(DISTINCT l.virtualtransaction)::int
      FROM pg_locks l
     WHERE l.virtualtransaction = ANY (p_vxids)
$$;
