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

-- One row: the catalog's epoch, advanced in the transaction of every change
-- of any table's description and of every deletion (storeDef,
-- TableDelete). The table cache's poller (tablecache.go) reads it every
-- tenth of a second and empties the cache when it moved, so that a
-- change another process made reaches this one's cache by itself (writes
-- do not wait for it: they check table_versions).
CREATE TABLE IF NOT EXISTS catalog_epoch (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    epoch INTEGER NOT NULL
);

INSERT OR IGNORE INTO catalog_epoch (id, epoch)
VALUES (1, 0);
