-- 008_catalog_version: a version number on each catalog row, so that a
-- server process may keep table descriptions in memory (pgstore's table
-- cache) and item writes can refuse a description that is out of date.
-- The trigger that increments it and announces each change
-- (dynamopg.tables_changed, NOTIFY dynamopg_catalog) is in
-- sql/functions/catalog.sql.
ALTER TABLE dynamopg.tables ADD COLUMN version bigint NOT NULL DEFAULT 1;

---- create above / drop below ----

DROP TRIGGER IF EXISTS tables_version ON dynamopg.tables;
DROP TRIGGER IF EXISTS tables_notify ON dynamopg.tables;
ALTER TABLE dynamopg.tables DROP COLUMN version;
