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
DROP FUNCTION IF EXISTS dynamopg.table_def(bigint, boolean);
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
-- tells whether the target has a sort key (cols[2]).
CREATE OR REPLACE FUNCTION dynamopg.target_layout(
    p_def jsonb, p_index bigint,
    OUT rel text, OUT cols text[], OUT names text[], OUT types int[], OUT sorted boolean)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_ix jsonb;
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
    IF sorted THEN
        cols := ARRAY['ipk', 'isk'] || cols;
        names := ARRAY[v_ix->'hash'->>'name', v_ix->'range'->>'name'] || names;
        types := ARRAY[(v_ix->'hash'->>'type')::int, (v_ix->'range'->>'type')::int] || types;
    ELSE
        cols := ARRAY['ipk'] || cols;
        names := ARRAY[v_ix->'hash'->>'name'] || names;
        types := ARRAY[(v_ix->'hash'->>'type')::int] || types;
    END IF;
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

-- index_indexable is store.Index.Indexable: the item has the index's key
-- attributes with their declared types.
CREATE OR REPLACE FUNCTION dynamopg.index_indexable(p_ix jsonb, p_item jsonb)
RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(p_item->(p_ix->'hash'->>'name')
                    ? dynamopg.key_letter((p_ix->'hash'->>'type')::int), false)
       AND (NOT dynamopg.has_range(p_ix)
            OR coalesce(p_item->(p_ix->'range'->>'name')
                        ? dynamopg.key_letter((p_ix->'range'->>'type')::int), false))
$$;

-- index_project_attrs is the projection of a KEYS_ONLY or INCLUDE index:
-- those of the item's attributes that are the table key, the index key or
-- INCLUDE attributes.
CREATE OR REPLACE FUNCTION dynamopg.index_project_attrs(p_def jsonb, p_ix jsonb, p_item jsonb)
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_out  jsonb := '{}';
    v_name text;
BEGIN
    FOR v_name IN SELECT unnest(ARRAY[p_def->'hash'->>'name', p_def->'range'->>'name',
                                      p_ix->'hash'->>'name', p_ix->'range'->>'name'])
                  UNION ALL
                  SELECT jsonb_array_elements_text(coalesce(p_ix->'projection'->'nonKeyAttributes', '[]')) LOOP
        IF v_name IS NOT NULL AND p_item ? v_name THEN
            v_out := v_out || jsonb_build_object(v_name, p_item->v_name);
        END IF;
    END LOOP;
    RETURN v_out;
END;
$$;

-- index_project is store.Index.Project: the whole item for ALL, otherwise the
-- table key, the index key and the INCLUDE attributes
-- (index_project_attrs). It stays a plain CASE so that the planner inlines
-- it, and folds it to the item for an ALL index named by a constant (a
-- backfill page's INSERT): a SQL function with a subquery is not inlined,
-- and called per row it cost a backfill 20 us a row.
CREATE OR REPLACE FUNCTION dynamopg.index_project(p_def jsonb, p_ix jsonb, p_item jsonb)
RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN p_ix->'projection'->>'type' = 'ALL' THEN p_item
                ELSE dynamopg.index_project_attrs(p_def, p_ix, p_item) END
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
