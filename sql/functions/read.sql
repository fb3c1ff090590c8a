-- read.sql: Query (one partition, key order) and Scan (hash-range segments,
-- (hk, key) order) on a table (p_index 0) or an index. The statements are
-- built by *_sql functions, which pgstore reads once per shape and
-- prepares (tests EXPLAIN exactly what runs). A statement types every
-- parameter (the CTE params, never read), so that it can be prepared
-- whichever its shape leaves unused, and checks the catalog as table_def
-- and index_def do (read_gate_sql), which also holds dynamopg.tables
-- ACCESS SHARE for DeleteTable's barrier.

-- read_refused raises what table_def and index_def raise for a read of
-- table p_table (or its index p_index, 0 for none) that is gone: the table
-- DELETING or absent, or the index no longer in its description. STABLE,
-- so that read_gate_sql's condition is evaluated once per statement.
CREATE OR REPLACE FUNCTION dynamopg.read_refused(p_table bigint, p_index bigint)
RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_def jsonb := dynamopg.table_def(p_table, false); -- raises for the table
BEGIN
    IF p_index <> 0 THEN
        PERFORM dynamopg.index_def(v_def, p_index);    -- and for the index
    END IF;
    -- Both there now: the catalog changed since the statement's check.
    RAISE EXCEPTION 'dynamopg: table % not found (or DELETING)', p_table
        USING ERRCODE = 'undefined_table';
END;
$$;

-- read_gate_sql is the condition of a read statement of table p_id (or its
-- index p_index, 0 for none): true while the table is not DELETING and
-- its description still lists the index, else read_refused raises. It
-- holds no Vars and nothing volatile, so the planner makes it a one-time
-- filter over an InitPlan: the statement's rows, in their order, or the
-- error, whether or not the partition has rows.
CREATE OR REPLACE FUNCTION dynamopg.read_gate_sql(p_id bigint, p_index bigint)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT format('CASE WHEN EXISTS (SELECT FROM dynamopg.tables t WHERE t.id = %s AND t.status <> ''DELETING''%s) '
                  'THEN true ELSE dynamopg.read_refused(%s, %s) END',
                  p_id,
                  CASE WHEN p_index <> 0 THEN format(' AND EXISTS (SELECT FROM jsonb_array_elements(t.def->''indexes'') e '
                                                     'WHERE (e->>''id'')::bigint = %s)', p_index) ELSE '' END,
                  p_id, p_index)
$$;

-- item_query_sql builds the Query statement. Its parameters: $1 the
-- partition key value (p_eq 1) or, for an index with a multi-attribute key,
-- the jsonb array of the p_eq values its first p_eq key columns equal (every
-- partition attribute, then a prefix of the sort attributes); $2 and $3 the
-- bounds of the sort key condition, on the next key column; $4 the exclusive
-- start key (when p_after), $5 the limit (NULL for none). p_op is '' (no
-- sort key condition), EQ, LT, LE, GT, GE, BETWEEN or BEGINS_WITH ($3 then
-- holds the prefix's exclusive upper bound, computed by pgstore,
-- prefix.go; GE when it has none).
CREATE OR REPLACE FUNCTION dynamopg.item_query_sql(
    p_def jsonb, p_index bigint, p_op text, p_forward boolean, p_after boolean, p_eq int DEFAULT 1)
RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_layout record := dynamopg.target_layout(p_def, p_index);
    v_dir    text := CASE WHEN p_forward THEN 'ASC' ELSE 'DESC' END;
    v_nkey   int := 1;   -- the target's key columns (an index's own)
    v_nhash  int := 1;   -- of which partition columns
    v_where  text;
    v_sk     text;
    v_lo     text;
    v_hi     text;
    v_vals   text[] := '{}';
    v_order  text[] := '{}';
    v_i      int;
BEGIN
    IF p_index = 0 THEN
        v_nkey := array_length(v_layout.cols, 1);
    ELSE
        v_nkey := jsonb_array_length(dynamopg.index_key_attrs(dynamopg.index_def(p_def, p_index)));
        v_nhash := dynamopg.index_hash_count(dynamopg.index_def(p_def, p_index));
    END IF;
    IF p_eq < v_nhash OR p_eq > v_nkey OR (p_op <> '' AND p_eq >= v_nkey) THEN
        RAISE EXCEPTION 'dynamopg: % equalities (and operator %) on % of % key columns', p_eq, p_op, v_layout.rel, v_nkey
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF p_eq = 1 THEN
        v_where := format('%I = %s', v_layout.cols[1],
                          dynamopg.key_value_sql(v_layout.types[1], '$1::jsonb'));
    ELSE
        SELECT string_agg(format('%I = %s', v_layout.cols[i],
                                 dynamopg.key_value_sql(v_layout.types[i], format('($1::jsonb->%s)', i - 1))),
                          ' AND ' ORDER BY i)
          INTO v_where
          FROM generate_series(1, p_eq) i;
    END IF;
    IF p_op <> '' THEN
        IF NOT v_layout.sorted THEN
            RAISE EXCEPTION 'dynamopg: % has no sort key', v_layout.rel
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        v_sk := quote_ident(v_layout.cols[p_eq + 1]);
        v_lo := dynamopg.key_value_sql(v_layout.types[p_eq + 1], '$2::jsonb');
        v_hi := dynamopg.key_value_sql(v_layout.types[p_eq + 1], '$3::jsonb');
        CASE p_op
            WHEN 'EQ' THEN v_where := v_where || format(' AND %s = %s', v_sk, v_lo);
            WHEN 'LT' THEN v_where := v_where || format(' AND %s < %s', v_sk, v_lo);
            WHEN 'LE' THEN v_where := v_where || format(' AND %s <= %s', v_sk, v_lo);
            WHEN 'GT' THEN v_where := v_where || format(' AND %s > %s', v_sk, v_lo);
            WHEN 'GE' THEN v_where := v_where || format(' AND %s >= %s', v_sk, v_lo);
            WHEN 'BETWEEN' THEN
                v_where := v_where || format(' AND %s >= %s AND %s <= %s', v_sk, v_lo, v_sk, v_hi);
            WHEN 'BEGINS_WITH' THEN
                v_where := v_where || format(' AND %s >= %s AND %s < %s', v_sk, v_lo, v_sk, v_hi);
            ELSE
                RAISE EXCEPTION 'dynamopg: unknown sort key operator %', p_op
                    USING ERRCODE = 'invalid_parameter_value';
        END CASE;
    END IF;
    FOR v_i IN 1 .. array_length(v_layout.cols, 1) LOOP
        v_vals := v_vals || dynamopg.key_value_sql(v_layout.types[v_i],
                                                   format('$4::jsonb->%L', v_layout.names[v_i]));
        v_order := v_order || format('%I %s', v_layout.cols[v_i], v_dir);
    END LOOP;
    IF p_after THEN
        v_where := v_where || format(' AND (%s) %s (%s)',
            array_to_string(v_layout.cols, ', '),
            CASE WHEN p_forward THEN '>' ELSE '<' END,
            array_to_string(v_vals, ', '));
    END IF;
    RETURN format('WITH params AS (SELECT $2::jsonb, $3::jsonb, $4::jsonb) '
                  'SELECT item FROM dynamopg_data.%I WHERE %s AND %s ORDER BY %s LIMIT $5::int',
                  v_layout.rel, v_where, dynamopg.read_gate_sql((p_def->>'id')::bigint, p_index),
                  array_to_string(v_order, ', '));
END;
$$;

-- item_scan_sql builds the Scan statement. Its parameters: $1 and $2 the
-- segment's KeyHash range [lo, hi), $3 the exclusive start key (when
-- p_after), $4 the limit (NULL for none).
CREATE OR REPLACE FUNCTION dynamopg.item_scan_sql(p_def jsonb, p_index bigint, p_after boolean)
RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_layout record := dynamopg.target_layout(p_def, p_index);
    v_where  text := 'hk >= $1::bigint AND hk < $2::bigint';
    v_vals   text[];
    v_i      int;
BEGIN
    IF p_after THEN
        v_vals := ARRAY[format('dynamopg.key_hash($3::jsonb->%L)', v_layout.names[1])];
        FOR v_i IN 1 .. array_length(v_layout.cols, 1) LOOP
            v_vals := v_vals || dynamopg.key_value_sql(v_layout.types[v_i],
                                                       format('$3::jsonb->%L', v_layout.names[v_i]));
        END LOOP;
        v_where := v_where || format(' AND (hk, %s) > (%s)',
            array_to_string(v_layout.cols, ', '), array_to_string(v_vals, ', '));
    END IF;
    RETURN format('WITH params AS (SELECT $3::jsonb) '
                  'SELECT item FROM dynamopg_data.%I WHERE %s AND %s ORDER BY hk, %s LIMIT $4::int',
                  v_layout.rel, v_where, dynamopg.read_gate_sql((p_def->>'id')::bigint, p_index),
                  array_to_string(v_layout.cols, ', '));
END;
$$;
