-- 008_catalog_version: a version number on each catalog row, so that a
-- server process may keep table descriptions in memory (pgstore's table
-- cache) and item writes can refuse a description that is out of date.
-- The triggers that increment it (dynamopg.tables_version) and announce
-- each change (dynamopg.tables_notify: NOTIFY dynamopg_catalog) are created
-- by the code package, sql/functions/catalog.sql, once.
ALTER TABLE dynamopg.tables ADD COLUMN version bigint NOT NULL DEFAULT 1;

---- create above / drop below ----

DROP TRIGGER IF EXISTS tables_version ON dynamopg.tables;
DROP TRIGGER IF EXISTS tables_notify ON dynamopg.tables;
ALTER TABLE dynamopg.tables DROP COLUMN version;
