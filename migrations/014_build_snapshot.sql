-- 014_build_snapshot: the backfill writes the rows of one snapshot, taken
-- after the catalog barrier (dynamopg.index_build_keys_sql, read by the
-- builder on a connection of its own): a row not in it was written by a
-- writer that maintained the index itself, so the backfill no longer walks
-- (and rewrites) the rows writers add during the build, and ends whatever
-- their rate (docs/index-build.md). index_build_page now takes its page's
-- keys and no longer reports more; CREATE OR REPLACE cannot change a
-- signature or the result columns, so the old function is dropped here,
-- before the code package creates the new one.
DROP FUNCTION IF EXISTS dynamopg.index_build_page(bigint, bigint, jsonb);

---- create above / drop below ----

-- Nothing to undo: earlier code packages recreate the three-argument
-- function when they are installed.
