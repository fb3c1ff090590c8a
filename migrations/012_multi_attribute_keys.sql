-- 012_multi_attribute_keys: global secondary indexes with multi-attribute
-- keys (up to four partition and four sort attributes). A Query on such an
-- index tests equality on several key columns, so dynamopg.item_query_sql
-- takes the number of equalities (p_eq, default 1): a new signature, which
-- CREATE OR REPLACE cannot give the old function. Migrations run before the
-- code package is installed, which creates the new one. Index storage is
-- unchanged for single-attribute keys; the catalog JSON gains the optional
-- "moreHash" and "moreRange" members, which need no migration.
DROP FUNCTION IF EXISTS dynamopg.item_query_sql(jsonb, bigint, text, boolean, boolean);

---- create above / drop below ----

-- Nothing to undo: earlier code packages recreate the old function when
-- they are installed.
