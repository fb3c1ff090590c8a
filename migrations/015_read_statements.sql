-- 015_read_statements: pgstore runs the Query and Scan statements of
-- dynamopg.item_query_sql and item_scan_sql itself, prepared, and computes
-- BEGINS_WITH's upper bound in Go (server/store/pgstore/prefix.go). The
-- PL/pgSQL functions that ran them, and the SQL bound they used, are gone
-- from the code package; an upgraded database drops them here.
DROP FUNCTION IF EXISTS dynamopg.item_query(bigint, bigint, jsonb, text, jsonb, jsonb, jsonb, boolean, int);
DROP FUNCTION IF EXISTS dynamopg.item_scan(bigint, bigint, bigint, bigint, jsonb, int);
DROP FUNCTION IF EXISTS dynamopg.prefix_end(jsonb);
DROP FUNCTION IF EXISTS dynamopg.prefix_end_text(text);
DROP FUNCTION IF EXISTS dynamopg.prefix_end_bytea(bytea);

---- create above / drop below ----

-- Nothing to undo: earlier code packages recreate the functions when they
-- are installed.
