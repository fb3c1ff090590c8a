-- keys.sql: key types, key expressions, the scan hash and prefix bounds.
-- Key values travel as jsonb attribute values in the wire form ({"S": ...},
-- {"N": ...}, {"B": base64}) with strings NUL-escaped (sql/README.md).

-- key_letter maps the catalog's attr.Type number (1, 2, 3) to S, N or B.
CREATE OR REPLACE FUNCTION dynamopg.key_letter(p_type int)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
    CASE p_type
        WHEN 1 THEN RETURN 'S';
        WHEN 2 THEN RETURN 'N';
        WHEN 3 THEN RETURN 'B';
        ELSE RAISE EXCEPTION 'dynamopg: % is not a key type', p_type
            USING ERRCODE = 'invalid_parameter_value';
    END CASE;
END;
$$;

-- key_column_type is the column type that orders a key type as DynamoDB
-- does: S by UTF-8 bytes, N numerically, B by bytes.
CREATE OR REPLACE FUNCTION dynamopg.key_column_type(p_type int)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
    CASE p_type
        WHEN 1 THEN RETURN 'text COLLATE "C"';
        WHEN 2 THEN RETURN 'numeric';
        WHEN 3 THEN RETURN 'bytea';
        ELSE RAISE EXCEPTION 'dynamopg: % is not a key type', p_type
            USING ERRCODE = 'invalid_parameter_value';
    END CASE;
END;
$$;

-- key_size_test_sql is the SQL test that the key value of type p_type in the
-- jsonb attribute value expression p_src is at most p_limit bytes
-- (store.MaxHashKeySize, MaxRangeKeySize): the UTF-8 bytes of an S before
-- the NUL escape (README: each escaped character is a two-byte pair, which
-- the regexp removes), the decoded bytes of a B. A number is never near the
-- limits. The first half of each test decides every value a write can send
-- (the API refuses longer keys); the second only an oversized candidate,
-- which an online build meets in items written before the index existed.
CREATE OR REPLACE FUNCTION dynamopg.key_size_test_sql(p_type int, p_src text, p_limit int)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
    CASE p_type
        WHEN 1 THEN RETURN format(
            '(octet_length((%1$s)->>''S'') <= %2$s OR (octet_length((%1$s)->>''S'')'
            ' + octet_length(regexp_replace((%1$s)->>''S'', %3$L, '''', ''g''))) / 2 <= %2$s)',
            p_src, p_limit, '\x01.');
        WHEN 2 THEN RETURN 'true';
        WHEN 3 THEN RETURN format(
            '(octet_length((%1$s)->>''B'') <= %2$s'
            ' OR octet_length(decode((%1$s)->>''B'', ''base64'')) <= %2$s)',
            p_src, p_limit);
        ELSE RAISE EXCEPTION 'dynamopg: % is not a key type', p_type
            USING ERRCODE = 'invalid_parameter_value';
    END CASE;
END;
$$;

-- key_value_sql is the SQL expression reading a key of type p_type from the
-- jsonb attribute value expression p_src.
CREATE OR REPLACE FUNCTION dynamopg.key_value_sql(p_type int, p_src text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
    CASE p_type
        WHEN 1 THEN RETURN format('((%s)->>''S'')', p_src);
        WHEN 2 THEN RETURN format('((%s)->>''N'')::numeric', p_src);
        WHEN 3 THEN RETURN format('decode((%s)->>''B'', ''base64'')', p_src);
        ELSE RAISE EXCEPTION 'dynamopg: % is not a key type', p_type
            USING ERRCODE = 'invalid_parameter_value';
    END CASE;
END;
$$;

-- key_hash is store.KeyHash: 32-bit FNV-1a over the attr.Type byte and the
-- value's bytes (S unescaped, N canonical text, B raw), then murmur3's fmix32
-- finalizer. NULL for a value that is not a key value (S, N or B): an
-- attribute of another type where an index expects its key, whose item that
-- index leaves out (index_row_sql's test), so that computing it before the
-- test is safe. The backfill and the queue call it once per row, so it is
-- written for PL/pgSQL's cost per statement: a value without the NUL escape
-- (0x01, S only) is hashed four bytes a statement, and fmix32's 32x32-bit
-- products modulo 2^32 are taken from two 32x16-bit ones in bigint (numeric
-- was a third of the cost of a short key). 4.0 -> 2.8 us for a 3-byte S,
-- 10.6 -> 5.1 us for 26 bytes.
CREATE OR REPLACE FUNCTION dynamopg.key_hash(p_value jsonb)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    v_hash  bigint;
    v_type  int;
    v_bytes bytea;
    v_len   int;
    v_i     int := 0;
    v_c     int;
BEGIN
    IF p_value ? 'S' THEN
        v_type := 1;
        v_bytes := convert_to(p_value->>'S', 'UTF8');
    ELSIF p_value ? 'N' THEN
        v_type := 2;
        v_bytes := convert_to(p_value->>'N', 'UTF8');
    ELSIF p_value ? 'B' THEN
        v_type := 3;
        v_bytes := decode(p_value->>'B', 'base64');
    ELSE
        RETURN NULL;
    END IF;
    v_hash := ((2166136261 # v_type) * 16777619) & 4294967295;
    v_len := length(v_bytes);
    IF v_type = 1 AND position('\x01'::bytea IN v_bytes) > 0 THEN
        WHILE v_i < v_len LOOP
            v_c := get_byte(v_bytes, v_i);
            IF v_c = 1 AND v_i + 1 < v_len THEN
                -- NUL escape: 0x01 0x01 is 0x00, 0x01 0x02 is 0x01.
                v_i := v_i + 1;
                v_c := get_byte(v_bytes, v_i) - 1;
            END IF;
            v_hash := ((v_hash # v_c) * 16777619) & 4294967295;
            v_i := v_i + 1;
        END LOOP;
    ELSE
        WHILE v_i + 4 <= v_len LOOP
            v_hash := ((((((((v_hash # get_byte(v_bytes, v_i)) * 16777619) & 4294967295)
                          # get_byte(v_bytes, v_i + 1)) * 16777619) & 4294967295)
                          # get_byte(v_bytes, v_i + 2)) * 16777619) & 4294967295;
            v_hash := ((v_hash # get_byte(v_bytes, v_i + 3)) * 16777619) & 4294967295;
            v_i := v_i + 4;
        END LOOP;
        WHILE v_i < v_len LOOP
            v_hash := ((v_hash # get_byte(v_bytes, v_i)) * 16777619) & 4294967295;
            v_i := v_i + 1;
        END LOOP;
    END IF;
    -- fmix32; 2246822507 is 34283 * 2^16 + 51819, 3266489909 is 49842 * 2^16 + 44597.
    v_hash := v_hash # (v_hash >> 16);
    v_hash := (v_hash * 51819 + (((v_hash * 34283) & 65535) << 16)) & 4294967295;
    v_hash := v_hash # (v_hash >> 13);
    v_hash := (v_hash * 44597 + (((v_hash * 49842) & 65535) << 16)) & 4294967295;
    RETURN v_hash # (v_hash >> 16);
END;
$$;

