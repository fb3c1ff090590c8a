-- 008_table_versions: the catalog version of every table (store.Table's
-- Version), bumped by every change of its description (TableUpdateDef's
-- statements, in the change's transaction). The store's table cache
-- (tablecache.go) hands out descriptions with their version; an item write
-- reads only this row in its write transaction, refuses a description
-- whose version is no longer current with store.ErrStaleTable, and
-- otherwise writes with the description it was given, without reading or
-- decoding the catalog's JSON. A table of its own rather than a column of
-- tables so that the migration is idempotent (SQLite has no ADD COLUMN IF
-- NOT EXISTS) like the others: the upgrade tests replay migrations on files
-- that have the newer tables. Tables that exist when it runs start at 1;
-- TableDelete deletes the row with the catalog row.
CREATE TABLE IF NOT EXISTS table_versions (
    table_id INTEGER PRIMARY KEY,
    version  INTEGER NOT NULL
);

INSERT OR IGNORE INTO table_versions (table_id, version)
SELECT id, 1
  FROM tables;
