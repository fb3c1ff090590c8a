-- storage.sql: creating and dropping the data tables of a DynamoDB table
-- (dynamopg_data.t_<id>) and of its secondary indexes (dynamopg_data.i_<id>).

-- table_storage_create creates t_<id> for a catalog row, and the storage of
-- each index the row lists.
CREATE OR REPLACE FUNCTION dynamopg.table_storage_create(p_table bigint)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_def  jsonb := dynamopg.table_def(p_table, false);
    v_rel  text := 't_' || p_table;
    v_sk   text := '';
    v_keys text := 'pk';
    v_ix   jsonb;
BEGIN
    IF dynamopg.has_range(v_def) THEN
        v_sk := format('sk %s NOT NULL,', dynamopg.key_column_type((v_def->'range'->>'type')::int));
        v_keys := 'pk, sk';
    END IF;
    EXECUTE format(
        'CREATE TABLE dynamopg_data.%I ('
        '  hk bigint NOT NULL,'
        '  pk %s NOT NULL,'
        '  %s'
        '  item jsonb NOT NULL,'
        '  size int NOT NULL,'
        '  PRIMARY KEY (%s)'
        ') WITH (fillfactor = 90)',
        v_rel, dynamopg.key_column_type((v_def->'hash'->>'type')::int), v_sk, v_keys);
    EXECUTE format('CREATE INDEX %I ON dynamopg_data.%I (hk, %s)', v_rel || '_scan', v_rel, v_keys);
    FOR v_ix IN SELECT jsonb_array_elements(coalesce(v_def->'indexes', '[]')) LOOP
        PERFORM dynamopg.index_storage_create(p_table, (v_ix->>'id')::bigint);
    END LOOP;
END;
$$;

-- index_storage_create creates i_<id> for an index listed in the catalog row:
-- primary key (index key, table key) orders Query, (hk, …) orders Scan, and
-- the table key alone serves index maintenance.
CREATE OR REPLACE FUNCTION dynamopg.index_storage_create(p_table bigint, p_index bigint)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_def    jsonb := dynamopg.table_def(p_table, false);
    v_layout record := dynamopg.target_layout(v_def, p_index);
    v_rel    text := v_layout.rel;
    v_cols   text := '';
    v_base   text := 'pk';
    v_i      int;
BEGIN
    FOR v_i IN 1 .. array_length(v_layout.cols, 1) LOOP
        v_cols := v_cols || format('%I %s NOT NULL, ', v_layout.cols[v_i],
                                   dynamopg.key_column_type(v_layout.types[v_i]));
    END LOOP;
    IF dynamopg.has_range(v_def) THEN
        v_base := 'pk, sk';
    END IF;
    EXECUTE format(
        'CREATE TABLE dynamopg_data.%I (hk bigint NOT NULL, %s item jsonb NOT NULL, PRIMARY KEY (%s))',
        v_rel, v_cols, array_to_string(v_layout.cols, ', '));
    EXECUTE format('CREATE INDEX %I ON dynamopg_data.%I (hk, %s)',
                   v_rel || '_scan', v_rel, array_to_string(v_layout.cols, ', '));
    EXECUTE format('CREATE INDEX %I ON dynamopg_data.%I (%s)', v_rel || '_base', v_rel, v_base);
END;
$$;

-- index_storage_drop drops i_<id>, if it exists.
CREATE OR REPLACE FUNCTION dynamopg.index_storage_drop(p_index bigint)
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('DROP TABLE IF EXISTS dynamopg_data.%I', 'i_' || p_index);
END;
$$;

-- table_storage_drop drops t_<id> and its indexes' storage, given the
-- catalog JSON the table had (its row is already deleted).
CREATE OR REPLACE FUNCTION dynamopg.table_storage_drop(p_def jsonb)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_ix jsonb;
BEGIN
    EXECUTE format('DROP TABLE IF EXISTS dynamopg_data.%I', 't_' || (p_def->>'id')::bigint);
    FOR v_ix IN SELECT jsonb_array_elements(coalesce(p_def->'indexes', '[]')) LOOP
        PERFORM dynamopg.index_storage_drop((v_ix->>'id')::bigint);
    END LOOP;
END;
$$;

-- table_stats counts a table's items and sums their sizes (0 and 0 for a
-- DELETING table, whose storage may be going).
CREATE OR REPLACE FUNCTION dynamopg.table_stats(p_table bigint, OUT items bigint, OUT bytes bigint)
LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT t.status FROM dynamopg.tables t WHERE t.id = p_table) = 'DELETING' THEN
        items := 0;
        bytes := 0;
        RETURN;
    END IF;
    PERFORM dynamopg.table_def(p_table, false);
    EXECUTE format('SELECT count(*), coalesce(sum(size), 0)::bigint FROM dynamopg_data.%I',
                   't_' || p_table)
       INTO items, bytes;
END;
$$;
