-- items.sql: the statements of single-item reads and writes on t_<id>.
-- Items and keys are jsonb in the wire form, strings NUL-escaped. pgstore
-- prepares these texts once per table (and index) and connection and runs
-- every item write through them (server/store/pgstore/prepared.go): the
-- data row's statement, which checks the catalog version of the caller's
-- description (table_def), then the index rows of the sync indexes
-- (index_write_sql), the queue row for the async ones, and the stream
-- record (stream_record_sql), pipelined in one transaction.

-- item_get_sql is the text of a statement reading one item of table p_def by
-- key: $1 is the key (jsonb, wire form), the one row it returns holds the
-- item (NULL: absent), and no row means the table is gone or DELETING.
-- pgstore's ItemGet and ItemGetMany run it as a prepared statement
-- (planned once per table and connection, where a PL/pgSQL function would
-- plan an EXECUTE on every call); the text depends only on the table's id
-- and key schema, which never change.
CREATE OR REPLACE FUNCTION dynamopg.item_get_sql(p_def jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT format('SELECT (SELECT d.item FROM dynamopg_data.%I d WHERE %s) AS item '
                  'FROM dynamopg.tables t WHERE t.id = %s AND t.status <> ''DELETING''',
                  't_' || (p_def->>'id'),
                  dynamopg.key_where_sql(p_def, '$1::jsonb'),
                  (p_def->>'id')::bigint)
$$;

-- item_get_many_sql is the text of a statement reading several items of
-- table p_def in one statement: $1 is the keys (jsonb[], wire form), the
-- one row it returns holds the items in the keys' order (jsonb[], NULL where
-- absent), and no row means the table is gone or DELETING. pgstore's
-- ItemGetMany runs it once per table of the call, prepared, in its snapshot's
-- pipeline: one statement's start, plan and snapshot for all of a table's
-- keys (BatchGetItem's 25 or 100, TransactGetItems'), each key one index
-- lookup.
CREATE OR REPLACE FUNCTION dynamopg.item_get_many_sql(p_def jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT format('SELECT array_agg((SELECT d.item FROM dynamopg_data.%I d WHERE %s) ORDER BY k.n) AS items '
                  'FROM dynamopg.tables t CROSS JOIN unnest($1::jsonb[]) WITH ORDINALITY AS k(key_json, n) '
                  'WHERE t.id = %s AND t.status <> ''DELETING'' GROUP BY t.id',
                  't_' || (p_def->>'id'),
                  dynamopg.key_where_sql(p_def, 'k.key_json'),
                  (p_def->>'id')::bigint)
$$;

-- collection_items_sql is the text of a statement reading the items of one
-- partition of table p_def: $1 is the partition key value (jsonb, wire
-- form). pgstore runs it once per item collection that has no counter yet
-- (migration 010), inside the transaction that creates the counter, and
-- sums the items' sizes in Go (store.CollectionEntrySize: the service's
-- rules, with the projections of the local indexes).
CREATE OR REPLACE FUNCTION dynamopg.collection_items_sql(p_def jsonb)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT format('SELECT d.item FROM dynamopg_data.%I d WHERE d.pk = %s',
                  't_' || (p_def->>'id'),
                  dynamopg.key_value_sql((p_def->'hash'->>'type')::int, '$1::jsonb'))
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

-- item_canonical is item p_item (an item, or the value of a map attribute)
-- with the members of every set, at any depth, in one order: two items
-- are equal as the service compares them (store.StreamChanged and
-- attr.EqualItems: numbers by value, which their canonical text makes a
-- text comparison; sets whatever their members' order; lists in order)
-- exactly when their canonical forms are equal jsonb. PL/pgSQL: the two
-- functions call each other.
CREATE OR REPLACE FUNCTION dynamopg.item_canonical(p_item jsonb)
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
    RETURN (SELECT coalesce(jsonb_object_agg(e.k, dynamopg.attr_canonical(e.v)), '{}'::jsonb)
              FROM jsonb_each(p_item) AS e(k, v));
END;
$$;

-- attr_canonical is item_canonical of one attribute value.
CREATE OR REPLACE FUNCTION dynamopg.attr_canonical(p_value jsonb)
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    v_type text := (SELECT k FROM jsonb_object_keys(p_value) AS k LIMIT 1);
BEGIN
    CASE v_type
        WHEN 'SS', 'NS', 'BS' THEN
            RETURN jsonb_build_object(v_type, (SELECT jsonb_agg(m ORDER BY m)
                                                 FROM jsonb_array_elements(p_value->v_type) AS m));
        WHEN 'M' THEN
            RETURN jsonb_build_object('M', dynamopg.item_canonical(p_value->'M'));
        WHEN 'L' THEN
            RETURN jsonb_build_object('L', (SELECT coalesce(jsonb_agg(dynamopg.attr_canonical(l.e) ORDER BY l.i), '[]'::jsonb)
                                              FROM jsonb_array_elements(p_value->'L') WITH ORDINALITY AS l(e, i)));
        ELSE
            RETURN p_value;
    END CASE;
END;
$$;

-- item_same reports whether items p_a and p_b are equal as the service
-- compares them: the blind put's test of a write that changes nothing,
-- which writes no stream record. Equal jsonb is the same item (pgstore
-- encodes both, numbers canonical); otherwise, only when p_sets (p_b holds
-- a set somewhere, which pgstore knows) can they still be equal, with
-- their sets' members in other orders, and item_canonical decides.
CREATE OR REPLACE FUNCTION dynamopg.item_same(p_a jsonb, p_b jsonb, p_sets boolean)
RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT p_a = p_b OR (p_sets AND dynamopg.item_canonical(p_a) = dynamopg.item_canonical(p_b))
$$;

-- item_write_sql is the text of the statements that write the data row of
-- one item of table p_def, and its stream record. pgstore prepares them per
-- table and connection, as it does item_get_sql, and pipelines each write
-- with index_write_sql's statements for the sync indexes, the queue row for
-- the async ones and, when the table's stream is enabled, the record, in
-- one transaction. Each statement that opens a write reads the catalog row
-- first (CTE c), and gates the item's row lock on its version being the
-- caller's; a different version, or no row (the table gone or DELETING), is
-- raised by catalog_refused (DPG01, undefined_table), which runs only then,
-- so the statement writes nothing. The catalog read is part of the
-- statement rather than a table_def call (no PL/pgSQL on the write path):
-- PostgreSQL takes a statement's relation locks (here ACCESS SHARE on
-- dynamopg.tables) when it binds the plan, before it takes the statement's
-- snapshot, and holds them to the end of the transaction, which is what the
-- catalog barrier relies on (docs/index-build.md), also for DeleteTable's
-- wait for the writes in flight (pgstore dropStorage). The catalog row is
-- not locked: every writer of a table locking the one row made it a
-- MultiXact under concurrent writers, its page dirtied and WAL-logged at
-- every write (~28k instructions a write at one client). The texts depend only on the
-- table's id and key schema, which never change; a table whose indexes or
-- stream change is a new catalog version, which the version check refuses.
--
--   lock_sql     $1 key, $2 version: the item FOR UPDATE (NULL: absent);
--                ItemWrite's and ItemTransact's first statement
--   put_sql      $1 item, $2 size, $3 key hash (store.KeyHash), $4 version:
--                the blind put, one upsert; the item replaced (NULL: none),
--                or 40001 when the insert lost to a concurrent inserter
--                (nothing written)
--   remove_sql   $1 key, $2 version: the blind delete; the item deleted
--   insert_sql   $1 item, $2 size, $3 key hash: an insert after lock_sql in
--                the transaction; 40001 when the key is taken
--   replace_sql  $1 item, $2 size: a replace after lock_sql; 40001 when the
--                item is absent (it is locked: cannot happen)
--   delete_sql   $1 key: a delete after lock_sql; 40001 when absent
--   record_sql   $1 label, $2 event name, $3 keys, $4 old image, $5 new
--                image, $6 ttl: the stream record of a write after
--                lock_sql, which knows both images (stream_record_sql)
--   put_stream_sql     put_sql that also records the change: $5 keys,
--                      $6 label, $7 whether the item holds a set
--                      (item_same); the old image and the event come from
--                      the row it locked, and a put that leaves the item as
--                      it was records nothing
--   remove_stream_sql  remove_sql that also records the deletion, when it
--                      deleted: $3 keys, $4 label
--   upsert_sql   put_sql's arguments: the blind put of a caller that does
--                not want the item it replaces (store.OldUnneeded), on a
--                table without a stream: one INSERT … ON CONFLICT DO
--                UPDATE whose source row is the catalog check
--                (catalog_gate_sql), as pgbench's floor, without put_sql's
--                locked read of the old item in CTEs; its one row is NULL
--                (the old item, not read)
CREATE OR REPLACE FUNCTION dynamopg.item_write_sql(p_def jsonb,
    OUT lock_sql text, OUT put_sql text, OUT remove_sql text,
    OUT insert_sql text, OUT replace_sql text, OUT delete_sql text,
    OUT record_sql text, OUT put_stream_sql text, OUT remove_stream_sql text,
    OUT upsert_sql text)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_id    bigint := (p_def->>'id')::bigint;
    v_rel   text := format('dynamopg_data.%I', 't_' || v_id);
    v_cols  text := dynamopg.build_key_cols(p_def);
    v_cat   text := format('c AS MATERIALIZED (SELECT t.version FROM dynamopg.tables t '
                           'WHERE t.id = %s AND t.status <> ''DELETING'')', v_id);
    v_where text := dynamopg.key_where_sql(p_def, '$1::jsonb');
    v_put   text;
    v_putr  text;
    v_rm    text;
    v_rmr   text;
BEGIN
    lock_sql := format(
        'WITH %s SELECT CASE WHEN c.version = $2::bigint '
        'THEN (SELECT d.item FROM %s d WHERE %s FOR UPDATE) '
        'ELSE dynamopg.catalog_refused(%s, $2::bigint) END AS item '
        'FROM (SELECT) one LEFT JOIN c ON true',
        v_cat, v_rel, v_where, v_id);
    -- The blind put's CTEs and its result; put_stream_sql adds CTEs. One
    -- upsert: it inserts when the locked read found no item and updates
    -- only an item it locked (the WHERE), so an insert that lost to a
    -- concurrent inserter writes nothing and raises 40001; the record of
    -- such a put is undone with the rest.
    v_put := format(
        'WITH %s, '
        'old AS MATERIALIZED (SELECT (SELECT d.item FROM %s d WHERE %s FOR UPDATE) AS item '
                'FROM c WHERE c.version = $4::bigint), '
        'up AS (INSERT INTO %s AS d (hk, %s, item, size) SELECT $3::bigint, %s, $1::jsonb, $2::int FROM old '
                'ON CONFLICT (%s) DO UPDATE SET item = excluded.item, size = excluded.size '
                'WHERE (SELECT o.item FROM old o) IS NOT NULL RETURNING 1)',
        v_cat, v_rel, v_where, v_rel, v_cols, dynamopg.build_key_vals(p_def, '$1::jsonb'), v_cols);
    v_putr := format(
        ' SELECT CASE WHEN NOT EXISTS (SELECT FROM old) THEN dynamopg.catalog_refused(%s, $4::bigint) '
        'WHEN EXISTS (SELECT FROM up) THEN (SELECT item FROM old) '
        'ELSE dynamopg.item_lost_insert() END AS old', v_id);
    put_sql := v_put || v_putr;
    put_stream_sql := v_put ||
        ', chg AS (SELECT old.item FROM old '
                  'WHERE old.item IS NULL OR NOT dynamopg.item_same(old.item, $1::jsonb, $7::boolean))' ||
        format(', rec AS (%s)',
        dynamopg.stream_record_sql(p_def, '$6::text',
            'CASE WHEN chg.item IS NULL THEN ''INSERT'' ELSE ''MODIFY'' END',
            '$5::jsonb', 'chg.item', '$1::jsonb', 'false', 'chg')) || v_putr;
    v_rm := format(
        'WITH %s, '
        'del AS (DELETE FROM %s d WHERE %s AND EXISTS (SELECT FROM c WHERE c.version = $2::bigint) '
                'RETURNING d.item)',
        v_cat, v_rel, v_where);
    v_rmr := format(
        ' SELECT CASE WHEN c.version = $2::bigint THEN (SELECT item FROM del) '
        'ELSE dynamopg.catalog_refused(%s, $2::bigint) END AS old '
        'FROM (SELECT) one LEFT JOIN c ON true', v_id);
    remove_sql := v_rm || v_rmr;
    remove_stream_sql := v_rm || format(', rec AS (%s)',
        dynamopg.stream_record_sql(p_def, '$4::text', '''REMOVE''', '$3::jsonb', 'del.item',
                                   'NULL::jsonb', 'false', 'del')) || v_rmr;
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
        v_rel, v_where);
    delete_sql := format(
        'WITH del AS (DELETE FROM %s WHERE %s RETURNING 1) '
        'SELECT CASE WHEN EXISTS (SELECT FROM del) THEN true ELSE dynamopg.item_lost_insert() IS NULL END AS deleted',
        v_rel, v_where);
    record_sql := dynamopg.stream_record_sql(p_def, '$1::text', '$2::text', '$3::jsonb',
                                             '$4::jsonb', '$5::jsonb', '$6::boolean', NULL);
    upsert_sql := format(
        'INSERT INTO %s AS d (hk, %s, item, size) SELECT $3::bigint, %s, $1::jsonb, $2::int %s '
        'ON CONFLICT (%s) DO UPDATE SET item = excluded.item, size = excluded.size RETURNING NULL::jsonb AS old',
        v_rel, v_cols, dynamopg.build_key_vals(p_def, '$1::jsonb'),
        dynamopg.catalog_gate_sql(v_id, '$4'), v_cols);
END;
$$;

-- catalog_gate_sql is the FROM and WHERE of an INSERT … SELECT that writes
-- only while table p_id's catalog row is at the version in parameter
-- p_version (an item write's check, as item_write_sql's CTE c): one row
-- when it is (dynamopg.tables ACCESS SHARE from when the statement is
-- bound, before its snapshot, as the catalog barrier needs); otherwise
-- catalog_refused raises, so the statement and the rest of its pipeline's
-- transaction write nothing. One join of a one-row relation and an index
-- scan: far cheaper to start than the CTEs it replaces (plan start-up is
-- most of a small statement's cost).
CREATE OR REPLACE FUNCTION dynamopg.catalog_gate_sql(p_id bigint, p_version text)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT format('FROM (SELECT) one LEFT JOIN (SELECT t.version FROM dynamopg.tables t '
                  'WHERE t.id = %s AND t.status <> ''DELETING'') c ON true '
                  'WHERE CASE WHEN c.version = %s::bigint THEN true '
                  'ELSE dynamopg.catalog_refused(%s, %s::bigint) IS NULL END',
                  p_id, p_version, p_id, p_version)
$$;

-- item_guard_sql is the text of the optimistic writes of one item of table
-- p_def (pgstore's ItemWrite on a table whose writes are the data row
-- alone: no index, no stream, no local index): one statement, one round
-- trip, no transaction held across round trips. The caller computed the
-- new item from the item it believes is there (read earlier, or absent);
-- each statement checks the catalog as item_write_sql's do, locks the row,
-- and writes only when the row holds exactly that item (equal jsonb), so
-- the write is exact whatever happened since; otherwise it returns the item
-- it found, and the caller computes again from it. One statement per case,
-- so that each plan holds only its own nodes (plan start-up is most of a
-- small statement's cost); the fourth case, "absent and stays absent", is
-- item_write_sql's lock_sql.
--
--   insert_sql  $1 the new item, $2 its size, $3 its key hash, $4 version:
--               insert where the row is absent; one INSERT … ON CONFLICT
--               DO NOTHING from the catalog check (catalog_gate_sql), which
--               returns cur NULL and applied true, or no row when the key
--               is taken: the caller reads the item (a second round trip,
--               only for a key this process believed absent)
--   update_sql  $1 key, $2 the item believed there, $3 the new item, $4 its
--               size, $5 version: replace where the row holds $2
--   update_version_sql  update_sql where the caller knows the row version
--               of the item it believes there (the version a statement
--               below returned): $2 its ctid, $6 its xmin (text), which
--               together name one row version; the update is a TID scan
--               gated by the catalog check (catalog_gate_sql), one
--               statement without CTEs; as that version holds exactly the
--               item believed, it takes the change instead of the new
--               item: $3 the top-level attributes set (a jsonb object),
--               $7 the names removed (text[]), so that PostgreSQL parses
--               a few bytes, not the ~1 KB item; it returns a row only
--               when it updated (a changed row: the caller reads the item)
--   delete_sql  $1 key, $2 the item believed there, $3 version: delete
--               where the row holds $2
--
-- update_sql and delete_sql return cur, the item they found (locked; NULL:
-- absent), and applied; insert_sql and update_version_sql return a row
-- only when they wrote (insert_sql: also not when the key was taken by a
-- concurrent inserter whose row is not in its snapshot: ON CONFLICT sees
-- it). insert_sql and both updates also return the ctid and xmin of the
-- row version they wrote (NULL: not applied): update_version_sql's $2 and
-- $6 for the next write of the item. A ctid and an xmin name one row
-- version: a slot is reused only after its tuple is pruned, which needs the
-- transaction that replaced it committed, and no transaction after that
-- has the first one's xid.
CREATE OR REPLACE FUNCTION dynamopg.item_guard_sql(p_def jsonb,
    OUT insert_sql text, OUT update_sql text, OUT delete_sql text,
    OUT update_version_sql text)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_id    bigint := (p_def->>'id')::bigint;
    v_rel   text := format('dynamopg_data.%I', 't_' || v_id);
    v_cat   text := format('c AS MATERIALIZED (SELECT t.version FROM dynamopg.tables t '
                           'WHERE t.id = %s AND t.status <> ''DELETING'')', v_id);
    v_old   text := 'old AS MATERIALIZED (SELECT (SELECT d.item FROM %s d WHERE %s FOR UPDATE) AS item '
                    'FROM c WHERE c.version = %s::bigint)';
    v_cur   text := 'SELECT CASE WHEN NOT EXISTS (SELECT FROM old) THEN dynamopg.catalog_refused(%s, %s::bigint) '
                    'ELSE (SELECT item FROM old) END AS cur, EXISTS (SELECT FROM w) AS applied';
    v_where text := dynamopg.key_where_sql(p_def, '$1::jsonb');
BEGIN
    insert_sql := format('INSERT INTO %s (hk, %s, item, size) SELECT $3::bigint, %s, $1::jsonb, $2::int %s '
        'ON CONFLICT DO NOTHING RETURNING NULL::jsonb AS cur, true AS applied, ctid::text, xmin::text',
        v_rel, dynamopg.build_key_cols(p_def), dynamopg.build_key_vals(p_def, '$1::jsonb'),
        dynamopg.catalog_gate_sql(v_id, '$4'));
    update_sql := format('WITH %s, %s, '
        'w AS (UPDATE %s d SET item = $3::jsonb, size = $4::int FROM old '
              'WHERE old.item = $2::jsonb AND %s RETURNING d.ctid, d.xmin) %s, '
        '(SELECT w.ctid::text FROM w) AS ctid, (SELECT w.xmin::text FROM w) AS xmin',
        v_cat, format(v_old, v_rel, v_where, '$5'), v_rel, v_where, format(v_cur, v_id, '$5'));
    update_version_sql := format('UPDATE %s d SET item = (d.item - $7::text[]) || $3::jsonb, size = $4::int %s '
        'AND d.ctid = $2::text::tid AND d.xmin = $6::text::xid AND %s '
        'RETURNING NULL::jsonb AS cur, true AS applied, d.ctid::text, d.xmin::text',
        v_rel, dynamopg.catalog_gate_sql(v_id, '$5'), v_where);
    delete_sql := format('WITH %s, %s, '
        'w AS (DELETE FROM %s d USING old WHERE old.item = $2::jsonb AND %s RETURNING 1) %s',
        v_cat, format(v_old, v_rel, v_where, '$3'), v_rel, v_where, format(v_cur, v_id, '$3'));
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

-- index_rows_write keeps the sync indexes (p_async false) or the async
-- indexes (p_async true: queue_apply) of a table in step with one item, in
-- the caller's transaction, through index_write_sql's statements: it
-- deletes the index rows of the base key p_key and inserts the row of
-- p_item where it is indexable (p_item NULL: the item was deleted). The
-- caller holds the item's row lock.
CREATE OR REPLACE FUNCTION dynamopg.index_rows_write(p_def jsonb, p_key jsonb, p_item jsonb, p_async boolean)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_ix  jsonb;
    v_sql record;
BEGIN
    FOR v_ix IN SELECT e FROM jsonb_array_elements(coalesce(p_def->'indexes', '[]')) e
                 WHERE dynamopg.index_async(e) = p_async LOOP
        v_sql := dynamopg.index_write_sql(p_def, (v_ix->>'id')::bigint);
        EXECUTE v_sql.delete_sql USING p_key;
        IF p_item IS NOT NULL THEN
            EXECUTE v_sql.insert_sql USING p_item, dynamopg.key_hash(p_item->(v_ix->'hash'->>'name'));
        END IF;
    END LOOP;
END;
$$;
