-- queue.sql: the asynchronous index propagation queue (table
-- dynamopg.index_queue, migration 002). Writers enqueue one row per changed
-- item in their own transaction (queue_enqueue); workers call queue_run,
-- which claims a batch of one partition and applies each item.
--
-- Correctness does not depend on order: applying a row writes the item's
-- CURRENT state (read under its row lock) to the async indexes, never an
-- image the row carried. So rows applied late, twice, or out of order all
-- converge. What must hold is that a row is deleted only by an apply that
-- read the item after the row's writer committed: queue_apply collects the
-- item's rows in one statement *before* it reads the item in a later one
-- (READ COMMITTED gives each statement a newer snapshot), and deletes only
-- those. Two applies of one item never overlap: all of an item's rows are in
-- one partition, and a partition is worked by one transaction at a time.

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

-- queue_enqueue queues one item of a table (its catalog JSON p_def) when the
-- table has async indexes, and notifies the workers (delivered at commit).
CREATE OR REPLACE FUNCTION dynamopg.queue_enqueue(p_def jsonb, p_item jsonb)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_table bigint := (p_def->>'id')::bigint;
    v_key   jsonb;
    v_part  int;
BEGIN
    IF NOT dynamopg.has_async_index(p_def) THEN
        RETURN;
    END IF;
    v_key := dynamopg.queue_key(p_def, p_item);
    v_part := dynamopg.queue_partition(v_table, v_key);
    INSERT INTO dynamopg.index_queue (table_id, part, key) VALUES (v_table, v_part, v_key);
    PERFORM pg_notify('dynamopg_index_queue', v_part::text);
END;
$$;

-- queue_claim claims up to p_limit rows of partition p_part that are not
-- passed over, oldest first, skipping rows another transaction holds, and
-- stamps them with the worker's name. The claim lasts the caller's
-- transaction: the caller applies and deletes the rows before committing.
CREATE OR REPLACE FUNCTION dynamopg.queue_claim(p_worker text, p_part int, p_limit int)
RETURNS TABLE (id bigint, table_id bigint, key jsonb)
LANGUAGE sql AS $$
    WITH cte AS (
        SELECT q.id
          FROM dynamopg.index_queue q
         WHERE q.part = p_part
           AND (q.pass_over_until IS NULL OR q.pass_over_until < now())
         ORDER BY q.id
         LIMIT p_limit
           FOR UPDATE SKIP LOCKED
    )
    UPDATE dynamopg.index_queue q
       SET claimed_by = p_worker, claimed_at = now(), attempts = q.attempts + 1
      FROM cte
     WHERE q.id = cte.id
    RETURNING q.id, q.table_id, q.key
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
    PERFORM dynamopg.index_rows_write(v_def, p_key, v_item, false, true);
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

-- queue_run is one worker step, one transaction: it takes the advisory lock
-- of a partition that has claimable rows (trying them from a random one, so
-- workers spread) and applies up to queue_batch_size of its rows in id
-- order. The first item may wait queue_lock_timeout_ms for its row lock;
-- when it cannot get it, it and all its rows are passed over for
-- queue_pass_over_ms, and the batch goes on. Later items wait only
-- queue_lock_try_ms, and a blocked one ends the batch (committing what is
-- done) so that a batch never holds many item locks while it waits; the next
-- run meets that item first. Any other error passes the item over too, so
-- one bad row cannot stall its partition. part is NULL when nothing was
-- claimable.
CREATE OR REPLACE FUNCTION dynamopg.queue_run(p_worker text,
    OUT part int, OUT claimed int, OUT applied int, OUT passed int)
LANGUAGE plpgsql AS $$
DECLARE
    v_wait_ms int := dynamopg.setting_int('queue_lock_timeout_ms', 2000);
    v_try_ms  int := dynamopg.setting_int('queue_lock_try_ms', 20);
    v_pass_ms int := dynamopg.setting_int('queue_pass_over_ms', 2000);
    v_batch   int := dynamopg.setting_int('queue_batch_size', 64);
    v_n       int := dynamopg.queue_partitions();
    v_start   int := floor(random() * dynamopg.queue_partitions())::int;
    v_first   boolean := true;
    v_part    int;
    v_row     record;
BEGIN
    claimed := 0;
    applied := 0;
    passed := 0;
    FOR v_i IN 0 .. v_n - 1 LOOP
        v_part := (v_start + v_i) % v_n;
        CONTINUE WHEN NOT EXISTS (
            SELECT 1 FROM dynamopg.index_queue q
             WHERE q.part = v_part AND (q.pass_over_until IS NULL OR q.pass_over_until < now()));
        IF pg_try_advisory_xact_lock(dynamopg.queue_lock_class(), v_part) THEN
            part := v_part;
            EXIT;
        END IF;
    END LOOP;
    IF part IS NULL THEN
        RETURN;
    END IF;
    FOR v_row IN SELECT c.id, c.table_id, c.key FROM dynamopg.queue_claim(p_worker, part, v_batch) c ORDER BY c.id LOOP
        claimed := claimed + 1;
        -- Already satisfied by an earlier apply of its item, or passed over, in this batch.
        CONTINUE WHEN NOT EXISTS (
            SELECT 1 FROM dynamopg.index_queue q
             WHERE q.id = v_row.id AND (q.pass_over_until IS NULL OR q.pass_over_until < now()));
        PERFORM set_config('lock_timeout', (CASE WHEN v_first THEN v_wait_ms ELSE v_try_ms END) || 'ms', true);
        BEGIN
            IF dynamopg.queue_apply(v_row.table_id, v_row.key) THEN
                applied := applied + 1;
            END IF;
        EXCEPTION
            WHEN lock_not_available OR deadlock_detected THEN
                IF NOT v_first THEN
                    EXIT; -- commit what is done; the next run waits for this item first
                END IF;
                passed := passed + 1;
                PERFORM dynamopg.queue_pass_over(v_row.table_id, v_row.key, v_pass_ms, SQLERRM);
            WHEN OTHERS THEN
                RAISE WARNING 'dynamopg: queue: item % of table % failed: % (%)',
                    v_row.key, v_row.table_id, SQLERRM, SQLSTATE;
                passed := passed + 1;
                PERFORM dynamopg.queue_pass_over(v_row.table_id, v_row.key, v_pass_ms, SQLSTATE || ': ' || SQLERRM);
        END;
        v_first := false;
    END LOOP;
END;
$$;
