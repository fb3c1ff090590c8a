-- drop.sql: dropping a deleted table's storage (DeleteTable's second step,
-- and the sweeper's passes; pgstore drop.go).
--
-- DeleteTable first marks the catalog row DELETING (status column and def)
-- in a short transaction of its own. From that commit on, table_def
-- (catalog.sql) treats the table as gone for every item operation (readers,
-- writers, transactions: undefined_table, which pgstore maps to
-- store.ErrTableNotFound), and queue_apply (queue.sql) consumes the table's
-- queued rows without touching its data tables. That is the queue's stop
-- marker. drop_table_storage then removes the storage in three
-- transactions, each bounded by a lock timeout:
--
--   1. wait out the writers in flight: pgstore first waits out the item
--      writes with the catalog barrier (they do not lock the catalog row,
--      but hold a lock on dynamopg.tables from before their snapshot:
--      pgstore dropStorage); here FOR UPDATE on the catalog row waits for
--      the queue's and the build's steps that read the catalog before the
--      mark (they hold it FOR KEY SHARE); later ones do not lock a DELETING
--      row.
--   2. delete the table's queued rows under the advisory locks of their
--      partitions (taken in ascending order), which waits out the worker
--      batch in flight on each partition. Workers only try those locks, so
--      they never wait on the drop; and with the batch gone, no claim holds a
--      row the DELETE needs. (Deleting the rows without the partition locks
--      could deadlock: a worker consuming a claimed row deletes the other
--      rows of its item, which the drop may already have deleted.)
--   3. drop t_<id> and the i_<id> of every index the row lists, and delete
--      the catalog row, in one transaction: the storage and the row go
--      together or not at all. The table's item collection counters
--      (migration 010) go with the row (ON DELETE CASCADE), here and for a
--      row deleted any other way, so the orphan sweep has none to find.
--
-- A lock timeout (lock_not_available) in any step leaves the row DELETING
-- for the next sweeper pass; every step is idempotent. The order matters:
-- the catalog row goes last, so a crash anywhere leaves a DELETING row the
-- sweeper finds, and the data tables go after the queue rows, so no worker
-- holds a claim while it waits for a data table the drop has locked (the
-- deadlock of the reference implementation).

-- drop_table_storage finishes the deletion of a DELETING table (see above).
-- It is a procedure because it commits between its steps: CALL it outside a
-- transaction block. It does nothing when the table is already gone, and
-- raises object_not_in_prerequisite_state when it is not DELETING.
CREATE OR REPLACE PROCEDURE dynamopg.drop_table_storage(p_table bigint, p_lock_timeout text)
LANGUAGE plpgsql AS $$
DECLARE
    v_status text;
    v_def    jsonb;
    v_parts  int[];
    v_part   int;
    v_rels   text[];
BEGIN
    -- 1. Writers in flight.
    PERFORM set_config('lock_timeout', p_lock_timeout, true);
    PERFORM set_config('application_name', 'dynamopg-drop', true);
    SELECT t.status INTO v_status FROM dynamopg.tables t WHERE t.id = p_table FOR UPDATE;
    IF v_status IS NULL THEN
        RETURN;
    END IF;
    IF v_status <> 'DELETING' THEN
        RAISE EXCEPTION 'dynamopg: table % is %, not DELETING', p_table, v_status
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    COMMIT;

    -- 2. The queue. No row of the table can be added any more.
    PERFORM set_config('lock_timeout', p_lock_timeout, true);
    PERFORM set_config('application_name', 'dynamopg-drop', true);
    SELECT array_agg(DISTINCT q.part ORDER BY q.part) INTO v_parts
      FROM dynamopg.index_queue q
     WHERE q.table_id = p_table;
    FOREACH v_part IN ARRAY coalesce(v_parts, '{}') LOOP
        PERFORM pg_advisory_xact_lock(dynamopg.queue_lock_class(), v_part);
    END LOOP;
    DELETE FROM dynamopg.index_queue q WHERE q.table_id = p_table;
    COMMIT;

    -- 3. The data tables and the catalog row.
    PERFORM set_config('lock_timeout', p_lock_timeout, true);
    PERFORM set_config('application_name', 'dynamopg-drop', true);
    SELECT t.def INTO v_def FROM dynamopg.tables t
     WHERE t.id = p_table AND t.status = 'DELETING' FOR UPDATE;
    IF v_def IS NULL THEN
        RETURN;
    END IF;
    SELECT array_agg(format('dynamopg_data.%I', r)) INTO v_rels
      FROM (SELECT 't_' || p_table AS r
            UNION ALL
            SELECT 'i_' || (e->>'id')::bigint
              FROM jsonb_array_elements(coalesce(v_def->'indexes', '[]')) e) x;
    EXECUTE 'DROP TABLE IF EXISTS ' || array_to_string(v_rels, ', ');
    DELETE FROM dynamopg.tables t WHERE t.id = p_table;
    COMMIT;
END;
$$;

-- storage_orphans lists the data tables no catalog row owns:
--   t_<id> with no catalog row of that id (a deletion interrupted between
--   the catalog and the storage by an older version, or a row deleted by
--   hand), and
--   i_<id> that no catalog row lists among its indexes.
-- A table being created is never listed: TableCreate creates the storage and
-- the catalog row in one transaction, so both become visible at once. The id
-- bound only excludes names that did not come from the sequences. An i_<id>
-- may be created apart from the row that will list it (an index build), so
-- pgstore drops one only when two passes, an interval apart, found it
-- orphaned (drop.go).
CREATE OR REPLACE FUNCTION dynamopg.storage_orphans()
RETURNS TABLE (rel text, is_index boolean)
LANGUAGE sql STABLE AS $$
    SELECT c.relname::text, left(c.relname, 2) = 'i_'
      FROM pg_class c
     WHERE c.relnamespace = 'dynamopg_data'::regnamespace
       AND c.relkind IN ('r', 'p')
       AND ((c.relname ~ '^t_[0-9]{1,18}$'
             AND substr(c.relname, 3)::bigint <= coalesce(pg_sequence_last_value(
                     pg_get_serial_sequence('dynamopg.tables', 'id')::regclass), 0)
             AND NOT EXISTS (SELECT 1 FROM dynamopg.tables t
                              WHERE t.id = substr(c.relname, 3)::bigint))
         OR (c.relname ~ '^i_[0-9]{1,18}$'
             AND NOT EXISTS (SELECT 1
                               FROM dynamopg.tables t,
                                    jsonb_array_elements(coalesce(t.def->'indexes', '[]')) e
                              WHERE (e->>'id')::bigint = substr(c.relname, 3)::bigint)))
     ORDER BY c.relname
$$;

-- drop_orphan_storage drops one data table storage_orphans listed, if it is
-- still an orphan once locked (ACCESS EXCLUSIVE, bounded by p_lock_timeout),
-- and reports whether it dropped it.
CREATE OR REPLACE FUNCTION dynamopg.drop_orphan_storage(p_rel text, p_lock_timeout text)
RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    IF p_rel !~ '^[ti]_[0-9]{1,18}$' THEN
        RAISE EXCEPTION 'dynamopg: % is not a data table', p_rel
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM set_config('lock_timeout', p_lock_timeout, true);
    IF to_regclass(format('dynamopg_data.%I', p_rel)) IS NULL THEN
        RETURN false;
    END IF;
    EXECUTE format('LOCK TABLE dynamopg_data.%I IN ACCESS EXCLUSIVE MODE', p_rel);
    IF NOT EXISTS (SELECT 1 FROM dynamopg.storage_orphans() o WHERE o.rel = p_rel) THEN
        RETURN false;
    END IF;
    EXECUTE format('DROP TABLE dynamopg_data.%I', p_rel);
    RETURN true;
END;
$$;
