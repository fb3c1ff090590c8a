-- 016_build_column_keys: the backfill's keys are in column form, a JSON
-- array of a row's base key column values ([pk] or [pk, sk]: an S as its
-- stored text, an N as a JSON number, a B as bytea's text "\x…"), read from
-- the key columns without the items (sql/functions/build.sql). A build
-- that an earlier code package left unfinished resumes after its
-- current_key, written in the wire form ({"name": {"S": …}, …}): it is
-- rewritten here in the new form, before the code package is installed.
--
-- A page's index rows are now read from the table by key
-- (build_write_page(jsonb, jsonb, bigint, jsonb)), not passed
-- as an array of items: the functions of the array form go.
DROP FUNCTION IF EXISTS dynamopg.build_write_page(jsonb, jsonb, jsonb[], jsonb, jsonb);
DROP FUNCTION IF EXISTS dynamopg.index_rows_write_many(jsonb, jsonb, jsonb[], jsonb[]);
DROP FUNCTION IF EXISTS dynamopg.index_rows_insert_many(jsonb, jsonb, jsonb[]);

UPDATE dynamopg.index_builds b
   SET current_key = (
       SELECT jsonb_agg(CASE (k.attr->>'type')::int
                            WHEN 1 THEN b.current_key->(k.attr->>'name')->'S'
                            WHEN 2 THEN to_jsonb((b.current_key->(k.attr->>'name')->>'N')::numeric)
                            ELSE to_jsonb(decode(b.current_key->(k.attr->>'name')->>'B', 'base64')::text)
                        END ORDER BY k.n)
         FROM dynamopg.tables t,
              LATERAL (VALUES (1, t.def->'hash'), (2, t.def->'range')) AS k(n, attr)
        WHERE t.id = b.table_id AND jsonb_typeof(k.attr) = 'object')
 WHERE jsonb_typeof(b.current_key) = 'object';

COMMENT ON COLUMN dynamopg.index_builds.current_key IS
    'The base key up to which the backfill is done, as a JSON array of the key column values ([pk] or [pk, sk]); a resumed build continues after it.';

---- create above / drop below ----

-- Back to the wire form, for the earlier code package (which installs its
-- own page functions again).
DROP FUNCTION IF EXISTS dynamopg.build_write_page(jsonb, jsonb, bigint, jsonb);

UPDATE dynamopg.index_builds b
   SET current_key = (
       SELECT jsonb_object_agg(k.attr->>'name',
                               CASE (k.attr->>'type')::int
                                   WHEN 1 THEN jsonb_build_object('S', b.current_key->>(k.n - 1))
                                   WHEN 2 THEN jsonb_build_object('N', b.current_key->>(k.n - 1))
                                   ELSE jsonb_build_object('B', replace(encode((b.current_key->>(k.n - 1))::bytea,
                                                                               'base64'), E'\n', ''))
                               END)
         FROM dynamopg.tables t,
              LATERAL (VALUES (1, t.def->'hash'), (2, t.def->'range')) AS k(n, attr)
        WHERE t.id = b.table_id AND jsonb_typeof(k.attr) = 'object')
 WHERE jsonb_typeof(b.current_key) = 'array';
