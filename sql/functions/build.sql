-- build.sql: the online build of a global secondary index added to a live
-- table (docs/index-build.md). TableUpdate commits the index as CREATING
-- with its storage under the catalog row's FOR NO KEY UPDATE lock (which
-- writers' FOR KEY SHARE does not conflict with: it commits at once); every
-- write that reads the catalog after that commit maintains the index.
-- pgstore's builder (build.go) then calls, on its own connection holding
-- the index's advisory lock:
--
--   index_build_claim      phase barrier, attempts + 1, the resume point
--   catalog_lockers /      the barrier (catalog.sql): waits, blocking
--   catalog_lockers_left   nobody, until every transaction that held a lock
--                          on dynamopg.tables when it started has ended
--   index_build_barrier_done  barrier_ms
--   index_build_backfilling Backfilling true in the catalog, phase backfill
--   index_build_keys_sql   the text of the page key reads, which the
--                          builder runs on a second connection in one
--                          REPEATABLE READ transaction begun after the
--                          barrier: the backfill's snapshot
--   index_build_page       one page of those keys (one transaction)
--   index_build_item       one row a writer held during its page
--   index_build_progress   the page is done: current_key, rows_done
--   index_build_sweep      index rows whose item is gone
--   index_build_activate   ACTIVE, if still CREATING
--
-- and on a permanent failure index_build_remove. Every function that writes
-- index rows locks the catalog row FOR KEY SHARE and reads the index
-- definition in its own transaction, as writes do, and stops (gone) when the
-- index is no longer CREATING.

-- build_lock_key is the advisory lock (bigint form) owning an index's build;
-- "db" in the high 16 bits.
CREATE OR REPLACE FUNCTION dynamopg.build_lock_key(p_index bigint)
RETURNS bigint
LANGUAGE sql IMMUTABLE AS $$
    SELECT (x'6462'::bigint << 48) | p_index
$$;

-- build_index returns the index p_index of a table JSON while it is
-- CREATING, else NULL. PL/pgSQL, not SQL: every page calls it in a
-- transaction of its own, and a SQL function with a FROM is parsed and
-- planned again in each, where PL/pgSQL keeps its plan for the session.
CREATE OR REPLACE FUNCTION dynamopg.build_index(p_def jsonb, p_index bigint)
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN (SELECT e FROM jsonb_array_elements(coalesce(p_def->'indexes', '[]')) e
             WHERE (e->>'id')::bigint = p_index AND e->>'status' = 'CREATING');
END;
$$;

-- build_only is a table JSON listing only the index p_ix: index_rows_write
-- then maintains just that index.
CREATE OR REPLACE FUNCTION dynamopg.build_only(p_def jsonb, p_ix jsonb)
RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_set(p_def, '{indexes}', jsonb_build_array(p_ix))
$$;

-- build_key_cols is the base key column list ("pk" or "pk, sk").
CREATE OR REPLACE FUNCTION dynamopg.build_key_cols(p_def jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN dynamopg.has_range(p_def) THEN 'pk, sk' ELSE 'pk' END
$$;

-- build_key_vals is the base key values read from the jsonb expression p_src.
CREATE OR REPLACE FUNCTION dynamopg.build_key_vals(p_def jsonb, p_src text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_sql text;
BEGIN
    v_sql := dynamopg.key_value_sql((p_def->'hash'->>'type')::int,
                                    format('%s->%L', p_src, p_def->'hash'->>'name'));
    IF dynamopg.has_range(p_def) THEN
        v_sql := v_sql || ', ' || dynamopg.key_value_sql((p_def->'range'->>'type')::int,
                                                        format('%s->%L', p_src, p_def->'range'->>'name'));
    END IF;
    RETURN v_sql;
END;
$$;

-- The backfill's own keys (index_build_keys_sql, index_build_page,
-- index_build_item, index_builds.current_key) are in column form: a JSON
-- array of a row's base key column values, [pk] or [pk, sk], an S as its
-- stored text, an N as a JSON number, a B as bytea's text ("\\x…"). They
-- are read from the key columns alone, so a page's keys never touch the
-- items (jsonb_build_object of each item's key attributes cost the quiet
-- backfill a fifth of its time; migration 016).

-- build_row_key_sql is the column-form key of the row whose columns the
-- prefix p_rel qualifies ('' or 'p.').
CREATE OR REPLACE FUNCTION dynamopg.build_row_key_sql(p_def jsonb, p_rel text)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN dynamopg.has_range(p_def)
        THEN format('jsonb_build_array(%1$spk, %1$ssk)', p_rel)
        ELSE format('jsonb_build_array(%spk)', p_rel)
    END
$$;

-- build_key_of_sql is the base key column values of the column-form key
-- the jsonb expression p_src holds, typed as the columns are.
CREATE OR REPLACE FUNCTION dynamopg.build_key_of_sql(p_def jsonb, p_src text)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT format('(%s->>0)::%s', p_src, dynamopg.key_column_type((p_def->'hash'->>'type')::int))
        || CASE WHEN dynamopg.has_range(p_def)
                THEN format(', (%s->>1)::%s', p_src, dynamopg.key_column_type((p_def->'range'->>'type')::int))
                ELSE '' END
$$;

-- build_keys_in_sql is the condition "the row's base key is one of the
-- column-form keys of the jsonb array expression p_keys" (pk = ANY for the
-- plan, as in keys_in_sql).
CREATE OR REPLACE FUNCTION dynamopg.build_keys_in_sql(p_def jsonb, p_keys text)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT format('pk = ANY (ARRAY(SELECT (k->>0)::%s FROM jsonb_array_elements(%s) k)) '
                  'AND (%s) IN (SELECT %s FROM jsonb_array_elements(%s) k)',
                  dynamopg.key_column_type((p_def->'hash'->>'type')::int), p_keys,
                  dynamopg.build_key_cols(p_def), dynamopg.build_key_of_sql(p_def, 'k'), p_keys)
$$;

-- keys_in_sql is the condition "the row's base key is one of the keys (or
-- items) of the jsonb[] expression p_array", on the base key columns of a
-- table or of one of its index tables. pk = ANY (...) is there for the
-- plan: an index table being built is new and growing, so its statistics
-- are stale, and on the IN alone the planner hashes the keys and scans the
-- whole table, every call.
CREATE OR REPLACE FUNCTION dynamopg.keys_in_sql(p_def jsonb, p_array text)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT format('pk = ANY (ARRAY(SELECT %s FROM unnest(%s) u(item))) '
                  'AND (%s) IN (SELECT %s FROM unnest(%s) u(item))',
                  dynamopg.key_value_sql((p_def->'hash'->>'type')::int,
                                         format('u.item->%L', p_def->'hash'->>'name')),
                  p_array, dynamopg.build_key_cols(p_def), dynamopg.build_key_vals(p_def, 'u.item'), p_array)
$$;

-- build_write writes one item's current state into one index (p_one is
-- build_only): delete its rows by base key, insert its row when it is
-- indexable (index_rows_write). The item is locked by the caller.
CREATE OR REPLACE FUNCTION dynamopg.build_write(p_one jsonb, p_item jsonb)
RETURNS void
LANGUAGE sql AS $$
    SELECT dynamopg.index_rows_write(p_one, p_item, p_item, dynamopg.index_async(p_one->'indexes'->0))
$$;

-- build_write_page rewrites the index rows of the column-form keys p_keys
-- of table p_table (p_def), which the caller holds locked, in the index
-- p_ix being built: one DELETE of the keys' index rows, then one INSERT …
-- SELECT of the rows' index rows (index_row_sql) read from the table. It
-- is index_build_page's path when index rows besides its own lie in the
-- page's key range (writers or the queue wrote them during the build).
CREATE OR REPLACE FUNCTION dynamopg.build_write_page(p_def jsonb, p_ix jsonb, p_table bigint, p_keys jsonb)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_row record := dynamopg.index_row_sql(p_def, (p_ix->>'id')::bigint, 'u.item', NULL);
BEGIN
    EXECUTE format('DELETE FROM dynamopg_data.%I WHERE %s', v_row.rel, dynamopg.build_keys_in_sql(p_def, '$1'))
      USING p_keys;
    EXECUTE format('INSERT INTO dynamopg_data.%I (%s) SELECT %s FROM dynamopg_data.%I u WHERE %s AND %s',
                   v_row.rel, v_row.cols, v_row.vals, 't_' || p_table,
                   dynamopg.build_keys_in_sql(p_def, '$1'), v_row.test)
      USING p_keys;
END;
$$;

-- index_build_claim starts a build attempt of the builder p_owner (which
-- holds the index's advisory lock): phase barrier, attempts + 1. It returns
-- the resume point (NULL: from the start) and the rows done so far; gone is
-- true when the index is not CREATING (nothing to do).
CREATE OR REPLACE FUNCTION dynamopg.index_build_claim(p_table bigint, p_index bigint, p_owner text,
    OUT gone boolean, OUT resume_key jsonb, OUT rows_done bigint)
LANGUAGE plpgsql AS $$
DECLARE
    v_def jsonb;
    v_ix  jsonb;
BEGIN
    SELECT t.def INTO v_def FROM dynamopg.tables t WHERE t.id = p_table AND t.status <> 'DELETING';
    v_ix := dynamopg.build_index(v_def, p_index);
    gone := v_ix IS NULL;
    rows_done := 0;
    IF gone THEN
        UPDATE dynamopg.index_builds b
           SET phase = 'failed', finished_at = coalesce(b.finished_at, now()),
               last_error = coalesce(b.last_error, 'index no longer CREATING (deleted, cancelled or done)')
         WHERE b.index_id = p_index AND b.phase NOT IN ('active', 'failed');
        RETURN;
    END IF;
    INSERT INTO dynamopg.index_builds AS b (index_id, table_id, index_name, phase, owner,
                                            started_at, heartbeat_at, attempts)
    VALUES (p_index, p_table, v_ix->>'name', 'barrier', p_owner, now(), now(), 1)
    ON CONFLICT (index_id) DO UPDATE
       SET phase = 'barrier', owner = p_owner, started_at = now(), heartbeat_at = now(),
           attempts = b.attempts + 1, finished_at = NULL
    RETURNING b.current_key, b.rows_done INTO resume_key, rows_done;
END;
$$;

-- index_build_backfilling marks the index Backfilling in the catalog (a
-- non-key UPDATE: it neither waits for writers nor makes them wait) and
-- sets phase backfill; false when the index is no longer CREATING (or the
-- table is DELETING). The builder calls it after the barrier
-- (docs/index-build.md).
CREATE OR REPLACE FUNCTION dynamopg.index_build_backfilling(p_table bigint, p_index bigint)
RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE dynamopg.tables t
       SET def = jsonb_set(t.def, '{indexes}',
                 (SELECT jsonb_agg(CASE WHEN (e->>'id')::bigint = p_index
                                        THEN e || '{"backfilling": true}' ELSE e END ORDER BY n)
                    FROM jsonb_array_elements(t.def->'indexes') WITH ORDINALITY AS x(e, n)))
     WHERE t.id = p_table AND t.status <> 'DELETING' AND dynamopg.build_index(t.def, p_index) IS NOT NULL;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    UPDATE dynamopg.index_builds b SET phase = 'backfill', heartbeat_at = now()
     WHERE b.index_id = p_index;
    RETURN true;
END;
$$;

-- index_build_keys_sql is the text of the statements that read the keys of
-- a backfill's pages from table p_table, in base key order: first_sql the
-- first keys ($1 how many: pgstore reads eight pages at a time), next_sql
-- the next ($1 how many, $2 the last key read before). Each returns a JSON array of
-- column-form keys, empty at the end, read from the key columns alone (an
-- index-only scan of the primary key where the visibility map allows). The
-- builder runs them in a REPEATABLE READ transaction of its own begun
-- after the catalog barrier, so the pages hold the rows of that snapshot
-- only: a row not in it was written by a transaction that read the catalog
-- with the index CREATING, which maintained the index itself, so the
-- backfill never walks the rows writers add during the build
-- (docs/index-build.md). The texts read no catalog table: that transaction
-- holds no lock the catalog barrier of another build would wait for.
CREATE OR REPLACE FUNCTION dynamopg.index_build_keys_sql(p_table bigint,
    OUT first_sql text, OUT next_sql text)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_def  jsonb := dynamopg.table_def(p_table, false);
    v_cols text;
    v_sel  text;
BEGIN
    IF v_def IS NULL THEN
        RETURN;
    END IF;
    v_cols := dynamopg.build_key_cols(v_def);
    -- json, not jsonb (build_row_key_sql): the builder only cuts the array
    -- into pages, and json_agg of 2,048 keys costs two thirds of jsonb_agg.
    v_sel := format('SELECT coalesce(json_agg(json_build_array(%s) ORDER BY %s), ''[]'') '
                    'FROM (SELECT %s FROM dynamopg_data.%I ',
                    CASE WHEN dynamopg.has_range(v_def) THEN 'p.pk, p.sk' ELSE 'p.pk' END,
                    v_cols, v_cols, 't_' || p_table);
    first_sql := v_sel || format('ORDER BY %s LIMIT $1) p', v_cols);
    next_sql := v_sel || format('WHERE (%s) > (%s) ORDER BY %s LIMIT $1) p',
                                v_cols, dynamopg.build_key_of_sql(v_def, '$2::jsonb'), v_cols);
END;
$$;

-- build_page_prepare prepares, once per session, the statements of a quiet
-- page of the build of index p_index of table p_table (p_def), and returns
-- their names' prefix. index_build_page runs them with EXECUTE: a dynamic
-- statement built, parsed and planned on every page cost a quiet backfill
-- of 20,000 rows about a tenth of its time. The statements depend only on
-- the table's key schema and the index's definition, which never change
-- for an index id. For the range (after, last] of keys (prefix _next_;
-- _first_ for the first page, (-inf, last]), each taking (after jsonb,
-- last jsonb, limit int):
--   _probe:   whether the index holds a row in the range (the first one
--             after after in base key order);
--   _lock:    the ctids of the range's rows, locked FOR SHARE NOWAIT, at
--             most limit of them;
--   _recount: how many index rows the range holds, at most limit;
-- and _insert (tids tid[]): the index rows of those table rows inserted,
-- returning how many (a utility EXECUTE sets no ROW_COUNT).
-- ORDER BY and LIMIT have the planner walk the base key index: a range
-- condition alone is estimated to match a third of the rows, and was
-- planned as a sequential scan. Once all seven are prepared, the session
-- setting dynamopg.<prefix> says so (reading pg_prepared_statements to
-- know cost a page 0.1 ms). PREPARE is not transactional and setting a
-- setting is: when the transaction that prepared them aborts, the
-- statements stay and the setting does not, and the next call deallocates
-- whatever the session holds under the prefix and prepares all seven
-- again; an error between two PREPAREs leaves the setting unset too.
CREATE OR REPLACE FUNCTION dynamopg.build_page_prepare(p_def jsonb, p_table bigint, p_index bigint)
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    v_name  text := 'dynamopg_build_' || p_index;
    v_cols  text;
    v_upper text;
    v_row   record;
    v_old   text;
    v_form  record;
BEGIN
    IF current_setting('dynamopg.' || v_name, true) = 'prepared' THEN
        RETURN v_name;
    END IF;
    FOR v_old IN SELECT name FROM pg_prepared_statements WHERE starts_with(name, v_name || '_') LOOP
        EXECUTE format('DEALLOCATE %I', v_old);
    END LOOP;
    v_cols := dynamopg.build_key_cols(p_def);
    v_upper := format('(%s) <= (%s)', v_cols, dynamopg.build_key_of_sql(p_def, '$2::jsonb'));
    v_row := dynamopg.index_row_sql(p_def, p_index, 'u.item', NULL);
    FOR v_form IN SELECT * FROM (VALUES
            ('_first', ''),
            ('_next', format('(%s) > (%s) AND ', v_cols, dynamopg.build_key_of_sql(p_def, '$1::jsonb'))))
            AS f(suffix, lower) LOOP
        EXECUTE format('PREPARE %I (jsonb, jsonb, int) AS '
                       'SELECT %s FROM dynamopg_data.%I WHERE %s true ORDER BY %s LIMIT 1',
                       v_name || v_form.suffix || '_probe', v_upper, v_row.rel, v_form.lower, v_cols);
        EXECUTE format('PREPARE %I (jsonb, jsonb, int) AS '
                       'SELECT array_agg(ctid) FROM (SELECT ctid FROM dynamopg_data.%I WHERE %s%s '
                       'ORDER BY %s LIMIT $3 FOR SHARE NOWAIT) l',
                       v_name || v_form.suffix || '_lock', 't_' || p_table, v_form.lower, v_upper, v_cols);
        EXECUTE format('PREPARE %I (jsonb, jsonb, int) AS '
                       'SELECT count(*) FROM (SELECT FROM dynamopg_data.%I WHERE %s%s ORDER BY %s LIMIT $3) s',
                       v_name || v_form.suffix || '_recount', v_row.rel, v_form.lower, v_upper, v_cols);
    END LOOP;
    EXECUTE format('PREPARE %I (tid[]) AS WITH w AS (INSERT INTO dynamopg_data.%I (%s) SELECT %s '
                   'FROM dynamopg_data.%I u WHERE u.ctid = ANY ($1) AND %s RETURNING 1) SELECT count(*) FROM w',
                   v_name || '_insert', v_row.rel, v_row.cols, v_row.vals, 't_' || p_table, v_row.test);
    PERFORM set_config('dynamopg.' || v_name, 'prepared', false);
    RETURN v_name;
END;
$$;

-- index_build_page writes one page into the index, in the caller's
-- transaction: the rows of the column-form keys p_keys (a JSON array, in
-- base key order, read by index_build_keys_sql's statements; p_after is the
-- last key of the page before, NULL for the first). The rows of the page's
-- keys it can lock FOR SHARE SKIP LOCKED get their current state
-- written; the keys of p_keys it did not lock (held by a writer, or deleted since) are returned
-- in skipped, for index_build_item after this transaction commits, so that
-- a page never holds row locks while it waits for one. gone is true when
-- the index is no longer CREATING.
--
-- A locked row is its latest version (READ COMMITTED re-reads a row
-- updated since the statement's snapshot) and stays so until the
-- transaction ends, and nobody else writes its index rows meanwhile
-- (writers and the queue lock the item first). When the page's key range
-- holds no index row (a quiet build: no writer added or changed a row of
-- it since the build began), the page locks the range's rows, read as a
-- range (a lookup per key cost a fifth of a quiet page), and inserts their
-- index rows read by ctid; n is then the rows of the range. Otherwise, or
-- when an index row turned up meanwhile or a writer holds a row of the
-- range, it locks the rows of p_keys key by key and rewrites their index
-- rows (build_write_page): the range may hold many rows writers added
-- since the snapshot, which they maintain themselves.
CREATE OR REPLACE FUNCTION dynamopg.index_build_page(p_table bigint, p_index bigint, p_after jsonb,
    p_keys jsonb, OUT n int, OUT last_key jsonb, OUT skipped jsonb, OUT gone boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_def     jsonb := dynamopg.table_def(p_table, true);
    v_ix      jsonb := dynamopg.build_index(v_def, p_index);
    v_cols    text := dynamopg.build_key_cols(v_def);
    v_stmt    text; -- build_page_prepare's prefix
    v_form    text; -- the prefix of this page's form, _first or _next
    v_done    jsonb;
    v_any     boolean;
    v_written bigint;
    v_seen    bigint;
    v_tids    tid[];
BEGIN
    n := 0;
    skipped := '[]';
    gone := v_ix IS NULL;
    IF gone OR jsonb_array_length(p_keys) = 0 THEN
        RETURN;
    END IF;
    last_key := p_keys->-1;
    v_stmt := dynamopg.build_page_prepare(v_def, p_table, p_index);
    v_form := v_stmt || CASE WHEN p_after IS NULL THEN '_first' ELSE '_next' END;
    -- Any index row in the range? (build_page_prepare's probe.)
    EXECUTE format('EXECUTE %I(%L, %L, 0)', v_form || '_probe', p_after, last_key) INTO v_any;
    IF NOT coalesce(v_any, false) THEN
        BEGIN
            -- The range's rows locked (NOWAIT: a row a writer holds sends
            -- the page down the key by key path), up to one more than the
            -- page's keys (more: writers added rows to the range, the key
            -- by key path again; the LIMIT also has the planner walk the
            -- base key index, where a range condition alone is estimated
            -- to match a third of the rows). Their ctids stay theirs while
            -- the lock is held, and a later statement reads the index rows
            -- from them, seeing the versions locked (a row updated since
            -- this statement's snapshot is locked in its latest version).
            -- One statement locking and inserting, through a CTE holding
            -- the items, cost a quiet page a quarter more.
            EXECUTE format('EXECUTE %I(%L, %L, %s)', v_form || '_lock', p_after, last_key,
                           jsonb_array_length(p_keys) + 1)
               INTO v_tids;
            IF coalesce(cardinality(v_tids), 0) <= jsonb_array_length(p_keys) THEN
                EXECUTE format('EXECUTE %I(%L)', v_stmt || '_insert', v_tids) INTO v_written;
                -- An index row a writer or the queue committed in the
                -- range after the probe (the queue's may be of an older
                -- version): the locked rows' index rows rewritten.
                EXECUTE format('EXECUTE %I(%L, %L, %s)', v_form || '_recount', p_after, last_key, v_written + 1)
                   INTO v_seen;
                IF v_seen > v_written THEN
                    EXECUTE format('SELECT jsonb_agg(%s ORDER BY %s) FROM dynamopg_data.%I l WHERE l.ctid = ANY ($1)',
                                   dynamopg.build_row_key_sql(v_def, 'l.'), v_cols, 't_' || p_table)
                       INTO v_done USING v_tids;
                    PERFORM dynamopg.build_write_page(v_def, v_ix, p_table, v_done);
                END IF;
                -- Every row of the range is locked: none skipped.
                n := coalesce(cardinality(v_tids), 0);
                RETURN;
            END IF;
        EXCEPTION WHEN unique_violation OR lock_not_available THEN
            -- A sync writer's row of a row locked here, committed after
            -- the probe, or a row a writer holds: the block is undone,
            -- its row locks with it.
            NULL;
        END;
    END IF;
    -- Key by key: the range may hold many rows writers added since the
    -- snapshot, which they maintain themselves.
    EXECUTE format('SELECT jsonb_agg(%1$s ORDER BY %2$s) FROM (SELECT %2$s FROM dynamopg_data.%3$I '
                   'WHERE %4$s ORDER BY %2$s FOR SHARE SKIP LOCKED) l',
                   dynamopg.build_row_key_sql(v_def, 'l.'), v_cols, 't_' || p_table,
                   dynamopg.build_keys_in_sql(v_def, '$1'))
       INTO v_done USING p_keys;
    IF v_done IS NOT NULL THEN
        PERFORM dynamopg.build_write_page(v_def, v_ix, p_table, v_done);
    END IF;
    IF v_done = p_keys THEN
        n := jsonb_array_length(p_keys);
    ELSE
        -- The page's keys it did not lock: a hashed EXCEPT (NOT = ANY per
        -- key is quadratic, 5 ms a page of 256).
        SELECT coalesce(jsonb_agg(k), '[]') INTO skipped
          FROM (SELECT jsonb_array_elements(p_keys)
                EXCEPT SELECT jsonb_array_elements(coalesce(v_done, '[]'))) s(k);
        n := jsonb_array_length(p_keys) - jsonb_array_length(skipped);
    END IF;
END;
$$;

-- index_build_item writes the current state of one item a page skipped
-- (its column-form key p_key), waiting for its row lock (up to
-- build_row_lock_timeout_ms). It reports whether it wrote (false: the item
-- is gone, its writer maintained the index). gone: the index is no longer
-- CREATING.
CREATE OR REPLACE FUNCTION dynamopg.index_build_item(p_table bigint, p_index bigint, p_key jsonb,
    OUT written boolean, OUT gone boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_def  jsonb := dynamopg.table_def(p_table, true);
    v_ix   jsonb := dynamopg.build_index(v_def, p_index);
    v_item jsonb;
BEGIN
    written := false;
    gone := v_ix IS NULL;
    IF gone THEN
        RETURN;
    END IF;
    PERFORM set_config('lock_timeout', dynamopg.setting_int('build_row_lock_timeout_ms', 10000) || 'ms', true);
    EXECUTE format('SELECT item FROM dynamopg_data.%I WHERE (%s) = (%s) FOR SHARE',
                   't_' || p_table, dynamopg.build_key_cols(v_def), dynamopg.build_key_of_sql(v_def, '$1::jsonb'))
       INTO v_item USING p_key;
    IF v_item IS NOT NULL THEN
        PERFORM dynamopg.build_write(dynamopg.build_only(v_def, v_ix), v_item);
        written := true;
    END IF;
END;
$$;

-- index_build_progress records a finished page (and its skipped rows).
-- PL/pgSQL so that its UPDATE is planned once per session, not once per
-- page (build_index).
CREATE OR REPLACE FUNCTION dynamopg.index_build_progress(p_index bigint, p_key jsonb, p_rows int, p_retries int)
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE dynamopg.index_builds b
       SET current_key = coalesce(p_key, b.current_key), rows_done = b.rows_done + p_rows,
           pages = b.pages + 1, retries = b.retries + p_retries, heartbeat_at = now()
     WHERE b.index_id = p_index;
END;
$$;

-- index_build_sweep removes the index rows whose item no longer exists: it
-- locks them first, then (a later statement, so a fresh snapshot) deletes
-- exactly those rows by ctid, checking again that the item is absent. A
-- writer re-creating the item meanwhile writes a new index row (a new ctid),
-- which stays. Phase sweep. gone: the index is no longer CREATING.
CREATE OR REPLACE FUNCTION dynamopg.index_build_sweep(p_table bigint, p_index bigint,
    OUT removed int, OUT gone boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_def   jsonb := dynamopg.table_def(p_table, true);
    v_ix    jsonb := dynamopg.build_index(v_def, p_index);
    v_match text := 't.pk = i.pk';
    v_ctids tid[];
BEGIN
    removed := 0;
    gone := v_ix IS NULL;
    IF gone THEN
        RETURN;
    END IF;
    UPDATE dynamopg.index_builds b SET phase = 'sweep', heartbeat_at = now() WHERE b.index_id = p_index;
    IF dynamopg.has_range(v_def) THEN
        v_match := v_match || ' AND t.sk = i.sk';
    END IF;
    EXECUTE format('SELECT array_agg(o.ctid) FROM (SELECT i.ctid FROM dynamopg_data.%I i '
                   'WHERE NOT EXISTS (SELECT 1 FROM dynamopg_data.%I t WHERE %s) FOR UPDATE OF i) o',
                   'i_' || p_index, 't_' || p_table, v_match)
       INTO v_ctids;
    IF v_ctids IS NULL THEN
        RETURN;
    END IF;
    EXECUTE format('DELETE FROM dynamopg_data.%I i WHERE i.ctid = ANY ($1) '
                   'AND NOT EXISTS (SELECT 1 FROM dynamopg_data.%I t WHERE %s)',
                   'i_' || p_index, 't_' || p_table, v_match)
      USING v_ctids;
    GET DIAGNOSTICS removed = ROW_COUNT;
END;
$$;

-- index_build_activate flips the index to ACTIVE (and clears Backfilling)
-- if it is still CREATING, with a non-key UPDATE of the catalog row; phase
-- active. It reports whether it did.
CREATE OR REPLACE FUNCTION dynamopg.index_build_activate(p_table bigint, p_index bigint)
RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE dynamopg.tables t
       SET def = jsonb_set(t.def, '{indexes}',
                 (SELECT jsonb_agg(CASE WHEN (e->>'id')::bigint = p_index
                                        THEN (e - 'backfilling') || '{"status": "ACTIVE"}' ELSE e END ORDER BY n)
                    FROM jsonb_array_elements(t.def->'indexes') WITH ORDINALITY AS x(e, n)))
     WHERE t.id = p_table AND t.status <> 'DELETING' AND dynamopg.build_index(t.def, p_index) IS NOT NULL;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    UPDATE dynamopg.index_builds b
       SET phase = 'active', finished_at = now(), heartbeat_at = now(), last_error = NULL
     WHERE b.index_id = p_index;
    RETURN true;
END;
$$;

-- index_build_remove removes the index from the catalog, only while it is
-- still CREATING (an index a build published stays) and the table is not
-- DELETING, pruning the attribute definitions no key uses any more; phase
-- failed with p_reason. It takes the catalog row FOR NO KEY UPDATE, as
-- TableUpdate does (catalog_lock_timeout_ms). It does not drop i_<id>: a
-- write that read the old definition may still be about to write to it.
-- The caller drops it after the catalog barrier (pgstore's deferred drop),
-- or the sweeper does. It reports whether it removed.
CREATE OR REPLACE FUNCTION dynamopg.index_build_remove(p_table bigint, p_index bigint, p_reason text)
RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    v_def  jsonb;
    v_ixs  jsonb;
    v_used text[];
    v_name text;
BEGIN
    PERFORM set_config('lock_timeout', dynamopg.setting_int('catalog_lock_timeout_ms', 5000) || 'ms', true);
    SELECT t.def INTO v_def FROM dynamopg.tables t
     WHERE t.id = p_table AND t.status <> 'DELETING' FOR NO KEY UPDATE;
    v_name := dynamopg.build_index(v_def, p_index)->>'name';
    IF v_name IS NULL THEN
        RETURN false;
    END IF;
    SELECT coalesce(jsonb_agg(e ORDER BY n), '[]') INTO v_ixs
      FROM jsonb_array_elements(v_def->'indexes') WITH ORDINALITY AS x(e, n)
     WHERE (e->>'id')::bigint <> p_index;
    SELECT array_agg(k) INTO v_used FROM (
        SELECT v_def->'hash'->>'name' AS k
        UNION SELECT v_def->'range'->>'name'
        UNION SELECT k->>'name' FROM jsonb_array_elements(v_ixs) e,
                     jsonb_array_elements(dynamopg.index_key_attrs(e)) k) u
     WHERE k IS NOT NULL;
    v_def := jsonb_set(v_def, '{indexes}', v_ixs);
    v_def := jsonb_set(v_def, '{attributeDefinitions}',
        (SELECT coalesce(jsonb_agg(d ORDER BY n), '[]')
           FROM jsonb_array_elements(coalesce(v_def->'attributeDefinitions', '[]')) WITH ORDINALITY AS x(d, n)
          WHERE d->>'name' = ANY (v_used)));
    IF jsonb_array_length(v_ixs) = 0 THEN
        v_def := v_def - 'indexes';
    END IF;
    UPDATE dynamopg.tables t SET def = v_def WHERE t.id = p_table;
    UPDATE dynamopg.index_builds b
       SET phase = 'failed', finished_at = now(), last_error = p_reason
     WHERE b.index_id = p_index;
    RAISE LOG 'dynamopg: index % (id %) of table % removed: %', v_name, p_index, p_table, p_reason;
    RETURN true;
END;
$$;

-- index_build_cancel (for DBAs) removes a CREATING index by table and index
-- name; its builder stops at its next page, and the sweeper drops its
-- storage (after the catalog barrier). It reports whether it removed.
CREATE OR REPLACE FUNCTION dynamopg.index_build_cancel(p_table_name text, p_index_name text)
RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    v_def jsonb;
    v_ix  jsonb;
BEGIN
    SELECT t.def INTO v_def FROM dynamopg.tables t WHERE t.name = p_table_name;
    SELECT e INTO v_ix FROM jsonb_array_elements(coalesce(v_def->'indexes', '[]')) e
     WHERE e->>'name' = p_index_name AND e->>'status' = 'CREATING';
    IF v_ix IS NULL THEN
        RETURN false;
    END IF;
    RETURN dynamopg.index_build_remove((v_def->>'id')::bigint, (v_ix->>'id')::bigint,
                                       'cancelled by index_build_cancel (' || session_user || ')');
END;
$$;

-- index_build_barrier_done records the barrier's wait of a build attempt.
CREATE OR REPLACE FUNCTION dynamopg.index_build_barrier_done(p_index bigint, p_ms int)
RETURNS void
LANGUAGE sql AS $$
    UPDATE dynamopg.index_builds b SET barrier_ms = p_ms, heartbeat_at = now()
     WHERE b.index_id = p_index
$$;

-- index_build_barrier_timeout counts a barrier that waited longer than
-- build_barrier_wait_ms (barrier_retries); the attempt then fails
-- transiently and recovery retries it.
CREATE OR REPLACE FUNCTION dynamopg.index_build_barrier_timeout(p_index bigint, p_ms int)
RETURNS void
LANGUAGE sql AS $$
    UPDATE dynamopg.index_builds b
       SET barrier_ms = p_ms, barrier_retries = b.barrier_retries + 1, heartbeat_at = now()
     WHERE b.index_id = p_index
$$;

-- index_build_failed records a transient failure: the index stays CREATING
-- and the recovery worker retries it after p_backoff_ms, or (p_backoff_ms
-- negative) after 2^(attempts-1) seconds, at most recovery_interval_ms.
CREATE OR REPLACE FUNCTION dynamopg.index_build_failed(p_index bigint, p_error text, p_backoff_ms int)
RETURNS void
LANGUAGE sql AS $$
    UPDATE dynamopg.index_builds b
       SET last_error = p_error, heartbeat_at = now(),
           next_attempt_at = clock_timestamp() + make_interval(secs => (CASE
               WHEN p_backoff_ms >= 0 THEN p_backoff_ms
               ELSE least(1000 * power(2, least(greatest(b.attempts, 1), 30) - 1),
                          dynamopg.setting_int('recovery_interval_ms', 60000))
           END) / 1000.0)
     WHERE b.index_id = p_index AND b.phase NOT IN ('active', 'failed')
$$;

-- index_recovery_due lists the CREATING indexes of every table whose build
-- is due (no build row, or its next_attempt_at has passed) and whose
-- advisory lock no session holds, with their attempts so far.
CREATE OR REPLACE FUNCTION dynamopg.index_recovery_due()
RETURNS TABLE (table_id bigint, table_name text, index_id bigint, index_name text, attempts int)
LANGUAGE sql STABLE AS $$
    SELECT t.id, t.name, (e->>'id')::bigint, e->>'name', coalesce(b.attempts, 0)
      FROM dynamopg.tables t
     CROSS JOIN LATERAL jsonb_array_elements(coalesce(t.def->'indexes', '[]')) e
      LEFT JOIN dynamopg.index_builds b ON b.index_id = (e->>'id')::bigint
     WHERE e->>'status' = 'CREATING'
       AND (b.next_attempt_at IS NULL OR b.next_attempt_at <= clock_timestamp())
       AND NOT EXISTS (
           SELECT 1 FROM pg_locks l
            WHERE l.locktype = 'advisory' AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND l.objsubid = 1 AND l.granted
              AND ((l.classid::bigint << 32) | l.objid::bigint) = dynamopg.build_lock_key((e->>'id')::bigint))
     ORDER BY t.id, (e->>'id')::bigint
$$;

-- index_recovery_run (for DBAs): make every CREATING index's build due now
-- and wake the recovery workers of every server process. It returns the
-- number of CREATING indexes.
CREATE OR REPLACE FUNCTION dynamopg.index_recovery_run()
RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
    v_n int;
BEGIN
    INSERT INTO dynamopg.index_builds AS b (index_id, table_id, index_name)
    SELECT (e->>'id')::bigint, t.id, e->>'name'
      FROM dynamopg.tables t
     CROSS JOIN LATERAL jsonb_array_elements(coalesce(t.def->'indexes', '[]')) e
     WHERE e->>'status' = 'CREATING'
    ON CONFLICT (index_id) DO UPDATE SET next_attempt_at = now();
    GET DIAGNOSTICS v_n = ROW_COUNT;
    PERFORM pg_notify('dynamopg_index_build', 'recovery');
    RETURN v_n;
END;
$$;

-- index_builds_purge forgets finished builds older than p_days days.
CREATE OR REPLACE FUNCTION dynamopg.index_builds_purge(p_days int)
RETURNS void
LANGUAGE sql AS $$
    DELETE FROM dynamopg.index_builds b
     WHERE b.phase IN ('active', 'failed') AND b.finished_at < now() - make_interval(days => p_days)
$$;
