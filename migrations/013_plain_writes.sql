-- 013_plain_writes: dynamopg.item_write_sql gained the result column
-- upsert_sql (the blind put of a caller that does not want the item it
-- replaces: one INSERT … ON CONFLICT DO UPDATE gated by the catalog check),
-- and dynamopg.item_guard_sql update_version_sql (the optimistic update
-- guarded by the row version, ctid and xmin, rather than by the item),
-- sql/functions/items.sql: new result types, which CREATE OR REPLACE
-- cannot give the old functions. Migrations run before the code package is
-- installed, which creates the new ones.
DROP FUNCTION IF EXISTS dynamopg.item_write_sql(jsonb);
DROP FUNCTION IF EXISTS dynamopg.item_guard_sql(jsonb);

---- create above / drop below ----

-- Nothing to undo: earlier code packages recreate the old function when
-- they are installed.
