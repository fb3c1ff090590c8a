-- queue.sql: the asynchronous index propagation queue (table
-- dynamopg.index_queue, migration 002). Writers queue one row per changed
-- item in their own transaction (pgstore's prepared writes, the
-- QueueEnqueueKey query); a worker step claims a batch (queue_claim_batch),
-- applies the items it can lock at once in a set-based pass (pgstore's
-- queue_apply.go, on the statements of queue_apply_sql and index_write_sql)
-- and the rows that pass left one item at a time (queue_apply_rest).
--
-- Correctness does not depend on order: applying a row writes the item's
-- CURRENT state (read under its row lock) to the async indexes, never an
-- image the row carried. So rows applied late, twice, or out of order all
-- converge. What must hold is that a row is deleted only by an apply that
-- read the item after the row's writer committed: queue_apply collects the
-- item's rows in one statement *before* it reads the item in a later one
-- (READ COMMITTED gives each statement a newer snapshot), and deletes only
-- those; the set-based pass deletes only rows it claimed, whose writers
-- committed before the claim. Two applies of one item never overlap: all
-- of an item's rows are in one partition, and a partition is worked by one
-- transaction at a time.

-- queue_partitions is the number of queue partitions. Changing it would
-- split an item's pending rows between two partitions: don't, while rows
-- are queued.
CREATE OR REPLACE FUNCTION dynamopg.queue_partitions()
RETURNS int
LANGUAGE sql IMMUTABLE AS $$
    SELECT 16
$$;

-- queue_lock_class is the first key of the partitions' advisory locks
-- (pg_try_advisory_xact_lock(class, part)); "dq" in ASCII.
CREATE OR REPLACE FUNCTION dynamopg.queue_lock_class()
RETURNS int
LANGUAGE sql IMMUTABLE AS $$
    SELECT 25713
$$;

-- setting_int reads an integer from dynamopg.settings, or p_default.
CREATE OR REPLACE FUNCTION dynamopg.setting_int(p_key text, p_default int)
RETURNS int
LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT (s.value #>> '{}')::int FROM dynamopg.settings s WHERE s.key = p_key),
                    p_default)
$$;

-- queue_key is the primary key of an item (or key) as the queue stores it:
-- just the table's key attributes, so that one item's rows have equal keys.
CREATE OR REPLACE FUNCTION dynamopg.queue_key(p_def jsonb, p_item jsonb)
RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN dynamopg.has_range(p_def)
        THEN jsonb_build_object(p_def->'hash'->>'name', p_item->(p_def->'hash'->>'name'),
                                p_def->'range'->>'name', p_item->(p_def->'range'->>'name'))
        ELSE jsonb_build_object(p_def->'hash'->>'name', p_item->(p_def->'hash'->>'name'))
    END
$$;

-- queue_partition places an item's rows: a hash of the table id and the
-- queue_key, modulo queue_partitions.
CREATE OR REPLACE FUNCTION dynamopg.queue_partition(p_table bigint, p_key jsonb)
RETURNS int
LANGUAGE sql IMMUTABLE AS $$
    SELECT (((hashtextextended(p_table::text || ':' || p_key::text, 0) % dynamopg.queue_partitions())
             + dynamopg.queue_partitions()) % dynamopg.queue_partitions())::int
$$;

-- queue_claim claims up to p_limit rows of partition p_part that are not
-- passed over, oldest first, skipping rows another transaction holds, and
-- stamps them with the worker's name. The claim lasts the caller's
-- transaction: the caller applies and deletes the rows before committing.
-- p_low, when given, is an id no claimable row is below (queue_claim_batch
-- reads it once per batch): the index scan then starts there rather than
-- stepping over the dead entries the partition's applied rows left, which
-- pile up between vacuums on a busy queue.
-- PL/pgSQL rather than SQL for its plan, which PL/pgSQL keeps for the
-- session: a SQL function called in FROM plans its UPDATE on every call.
CREATE OR REPLACE FUNCTION dynamopg.queue_claim(p_worker text, p_part int, p_limit int, p_low bigint DEFAULT 0)
RETURNS TABLE (id bigint, table_id bigint, key jsonb)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH cte AS (
        SELECT q.id
          FROM dynamopg.index_queue q
         WHERE q.part = p_part AND q.id >= p_low
           AND (q.pass_over_until IS NULL OR q.pass_over_until < now())
         ORDER BY q.id
         LIMIT p_limit
           FOR UPDATE SKIP LOCKED
    )
    UPDATE dynamopg.index_queue q
       SET claimed_by = p_worker, claimed_at = now(), attempts = q.attempts + 1
      FROM cte
     WHERE q.id = cte.id
    RETURNING q.id, q.table_id, q.key;
END;
$$;

-- queue_apply writes the current state of one item to the async indexes of
-- its table and deletes the item's queued rows that this satisfies. It
-- reports false when it only consumed them: the table is gone or has no
-- async index left. Locking the item can fail with lock_not_available
-- (lock_timeout, set by the caller); the caller passes the item over.
CREATE OR REPLACE FUNCTION dynamopg.queue_apply(p_table bigint, p_key jsonb)
RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    v_ids  bigint[];
    v_def  jsonb;
    v_item jsonb;
BEGIN
    -- First, in its own statement: the rows whose writers committed before
    -- the item is read below. Rows committed later stay for the next apply.
    SELECT array_agg(q.id) INTO v_ids
      FROM dynamopg.index_queue q
     WHERE q.table_id = p_table AND q.key = p_key;
    -- The index set, locked against TableDelete's drop. A DELETING
    -- table (drop.sql) counts as gone: its rows are consumed, its data
    -- tables not touched, and its catalog row not locked. The table lock
    -- first, in its own statement, as table_def does: the catalog barrier
    -- (catalog_lockers) then sees this transaction, or the SELECT's
    -- snapshot is newer than the barrier's start.
    LOCK TABLE dynamopg.tables IN ROW SHARE MODE;
    SELECT t.def INTO v_def FROM dynamopg.tables t
     WHERE t.id = p_table AND t.status <> 'DELETING' FOR KEY SHARE;
    IF v_def IS NULL OR NOT dynamopg.has_async_index(v_def) THEN
        DELETE FROM dynamopg.index_queue q WHERE q.id = ANY (v_ids);
        RETURN false;
    END IF;
    EXECUTE format('SELECT item FROM dynamopg_data.%I WHERE %s FOR UPDATE',
                   't_' || p_table, dynamopg.key_where_sql(v_def, '$1::jsonb'))
       INTO v_item USING p_key;
    PERFORM dynamopg.index_rows_write(v_def, p_key, v_item, true);
    DELETE FROM dynamopg.index_queue q WHERE q.id = ANY (v_ids);
    RETURN true;
END;
$$;

-- queue_pass_over sets aside every queued row of one item for p_ms
-- milliseconds from now (the clock, not the transaction start: the caller
-- may have waited for a lock), recording why.
CREATE OR REPLACE FUNCTION dynamopg.queue_pass_over(p_table bigint, p_key jsonb, p_ms int, p_error text)
RETURNS void
LANGUAGE sql AS $$
    UPDATE dynamopg.index_queue q
       SET pass_over_until = clock_timestamp() + make_interval(secs => p_ms / 1000.0), last_error = p_error
     WHERE q.table_id = p_table AND q.key = p_key
$$;

-- queue_settings reads the queue's four settings (dynamopg.settings) in one
-- statement.
CREATE OR REPLACE FUNCTION dynamopg.queue_settings(
    OUT wait_ms int, OUT try_ms int, OUT pass_ms int, OUT batch int)
LANGUAGE sql STABLE AS $$
    SELECT coalesce(max((s.value #>> '{}')::int) FILTER (WHERE s.key = 'queue_lock_timeout_ms'), 2000),
           coalesce(max((s.value #>> '{}')::int) FILTER (WHERE s.key = 'queue_lock_try_ms'), 20),
           coalesce(max((s.value #>> '{}')::int) FILTER (WHERE s.key = 'queue_pass_over_ms'), 2000),
           coalesce(max((s.value #>> '{}')::int) FILTER (WHERE s.key = 'queue_batch_size'), 64)
      FROM dynamopg.settings s
     WHERE s.key IN ('queue_lock_timeout_ms', 'queue_lock_try_ms', 'queue_pass_over_ms', 'queue_batch_size')
$$;

-- queue_claim_batch is the first part of a worker step: it takes the
-- advisory locks of the partitions that have claimable rows and that no
-- other worker holds (trying them from a random one, so workers spread) and
-- claims up to queue_batch_size rows of them in all, oldest first in each
-- (queue_claim). The locks and claims last the caller's transaction. part
-- is the first partition it took, NULL when nothing was claimable; ids,
-- tables and keys are the rows claimed, in id order within each partition.
CREATE OR REPLACE FUNCTION dynamopg.queue_claim_batch(p_worker text,
    OUT part int, OUT ids bigint[], OUT tables bigint[], OUT keys jsonb[])
LANGUAGE plpgsql AS $$
DECLARE
    v_batch int := (dynamopg.queue_settings()).batch;
    v_n     int := dynamopg.queue_partitions();
    v_start int := floor(random() * dynamopg.queue_partitions())::int;
    v_low   bigint;
    v_part  int;
BEGIN
    ids := '{}';
    tables := '{}';
    keys := '{}';
    -- The lowest claimable id, in one walk of the primary key over the
    -- dead entries below it; then the partitions with claimable rows from
    -- there, in one statement.
    SELECT min(q.id) INTO v_low FROM dynamopg.index_queue q
     WHERE q.pass_over_until IS NULL OR q.pass_over_until < now();
    IF v_low IS NULL THEN
        RETURN;
    END IF;
    FOR v_part IN SELECT (v_start + i) % v_n FROM generate_series(0, v_n - 1) i
                   WHERE EXISTS (SELECT 1 FROM dynamopg.index_queue q
                                  WHERE q.part = (v_start + i) % v_n AND q.id >= v_low
                                    AND (q.pass_over_until IS NULL OR q.pass_over_until < now()))
                   ORDER BY i LOOP
        EXIT WHEN cardinality(ids) >= v_batch;
        CONTINUE WHEN NOT pg_try_advisory_xact_lock(dynamopg.queue_lock_class(), v_part);
        part := coalesce(part, v_part);
        SELECT ids || array_agg(c.id ORDER BY c.id), tables || array_agg(c.table_id ORDER BY c.id),
               keys || array_agg(c.key ORDER BY c.id)
          INTO ids, tables, keys
          FROM dynamopg.queue_claim(p_worker, v_part, v_batch - cardinality(ids), v_low) c;
    END LOOP;
END;
$$;

-- queue_apply_rest is the last part of a worker step: the claimed rows the
-- set-based pass left, one item at a time in id order (queue_apply). There
-- the first item may wait queue_lock_timeout_ms for its row lock, unless
-- p_holding (the set-based pass applied something: the batch then holds
-- item locks, and must not hold them while it waits); when it cannot get
-- it, it and all its rows are passed over for queue_pass_over_ms, and the
-- batch goes on. Later items wait only queue_lock_try_ms, and a blocked one
-- ends the batch (committing what is done) so that a batch never holds many
-- item locks while it waits; the next run meets that item first. Any other
-- error passes the item over too, so one bad row cannot stall its
-- partition.
CREATE OR REPLACE FUNCTION dynamopg.queue_apply_rest(p_ids bigint[], p_tables bigint[], p_keys jsonb[],
    p_holding boolean, OUT applied int, OUT passed int)
LANGUAGE plpgsql AS $$
DECLARE
    v_set   record := dynamopg.queue_settings();
    v_first boolean := NOT p_holding;
    v_row   record;
BEGIN
    applied := 0;
    passed := 0;
    FOR v_row IN SELECT u.id, u.table_id, u.key FROM unnest(p_ids, p_tables, p_keys) u(id, table_id, key) ORDER BY u.id LOOP
        -- Already satisfied by an earlier apply of its item, or passed over, in this batch.
        CONTINUE WHEN NOT EXISTS (
            SELECT 1 FROM dynamopg.index_queue q
             WHERE q.id = v_row.id AND (q.pass_over_until IS NULL OR q.pass_over_until < now()));
        PERFORM set_config('lock_timeout', (CASE WHEN v_first THEN v_set.wait_ms ELSE v_set.try_ms END) || 'ms', true);
        BEGIN
            IF dynamopg.queue_apply(v_row.table_id, v_row.key) THEN
                applied := applied + 1;
            END IF;
        EXCEPTION
            WHEN lock_not_available OR deadlock_detected THEN
                IF NOT v_first THEN
                    EXIT; -- commit what is done; the next run meets this item again
                END IF;
                passed := passed + 1;
                PERFORM dynamopg.queue_pass_over(v_row.table_id, v_row.key, v_set.pass_ms, SQLERRM);
            WHEN OTHERS THEN
                RAISE WARNING 'dynamopg: queue: item % of table % failed: % (%)',
                    v_row.key, v_row.table_id, SQLERRM, SQLSTATE;
                passed := passed + 1;
                PERFORM dynamopg.queue_pass_over(v_row.table_id, v_row.key, v_set.pass_ms, SQLSTATE || ': ' || SQLERRM);
        END;
        v_first := false;
    END LOOP;
END;
$$;

-- queue_table_def is the set-based pass's catalog read for one table of a
-- batch (pgstore's queue_apply.go): the table lock first, in its own statement,
-- as table_def does, then the definition, the row locked FOR KEY SHARE
-- against TableDelete's drop. NULL when the table is gone or DELETING (its
-- rows are then consumed).
CREATE OR REPLACE FUNCTION dynamopg.queue_table_def(p_table bigint)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
    v_def jsonb;
BEGIN
    LOCK TABLE dynamopg.tables IN ROW SHARE MODE;
    SELECT t.def INTO v_def FROM dynamopg.tables t
     WHERE t.id = p_table AND t.status <> 'DELETING' FOR KEY SHARE;
    RETURN v_def;
END;
$$;

-- queue_apply_sql is the text of the statements pgstore prepares for the
-- set-based pass over the items of table p_def (queue_apply.go), the index
-- rows then written with index_write_sql's:
--
--   lock_sql    $1 keys (jsonb[]): the items nobody holds, locked FOR
--               UPDATE SKIP LOCKED
--   absent_sql  $1 keys (jsonb[]): those of the keys no item has, in a later
--               statement than lock_sql (a row it skipped because a writer
--               holds it exists, or is being inserted: its writer then
--               queues a row of its own)
--
-- The texts depend only on the table's id and key schema, which never
-- change.
CREATE OR REPLACE FUNCTION dynamopg.queue_apply_sql(p_def jsonb, OUT lock_sql text, OUT absent_sql text)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_rel text := format('dynamopg_data.%I', 't_' || (p_def->>'id'));
BEGIN
    lock_sql := format('SELECT item FROM %s WHERE %s FOR UPDATE SKIP LOCKED',
                       v_rel, dynamopg.keys_in_sql(p_def, '$1::jsonb[]'));
    absent_sql := format('SELECT u.item AS key FROM unnest($1::jsonb[]) u(item) '
                         'WHERE NOT EXISTS (SELECT 1 FROM %s d WHERE %s)',
                         v_rel, dynamopg.key_where_sql(p_def, 'u.item'));
END;
$$;
