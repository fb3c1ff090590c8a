-- 001_catalog: the catalog (schema version 1 of the hand-versioned files,
-- whose statements were all IF NOT EXISTS; so are these, so that every
-- migration up to 005 accepts any file that code wrote). Per-table storage
-- (t_<id>, i_<id>) is created from the templates of sql/storage.sql.

-- One row per DynamoDB table. def is the whole store.Table as JSON; name is
-- unique so that TableCreate of a taken name fails with a UNIQUE constraint.
-- AUTOINCREMENT: a dropped table's id is never reused, so a stale
-- *store.Table can never reach another table's storage.
CREATE TABLE IF NOT EXISTS tables (
    id   INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT    NOT NULL UNIQUE,
    def  TEXT    NOT NULL
);

-- Allocator of index ids (they name i_<id> storage), never reused either.
CREATE TABLE IF NOT EXISTS index_ids (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id INTEGER NOT NULL
);
