-- 007_item_collections: the size of every item collection of the tables
-- with a local secondary index (store/collections.go), one row per
-- collection, kept by apply (write.go) in the write's transaction: the
-- single writer makes the limit check exact. pk is the partition key as
-- the data tables store it (keys.go); bytes is the sum of
-- store.CollectionEntrySize over the collection's items. A collection of a
-- table created before this migration has no row until its first write
-- sizes it, once, from its partition (collections.go). TableDelete deletes
-- a table's rows with its storage. table_id is not a foreign key, as
-- elsewhere in this schema. IF NOT EXISTS, as the earlier migrations: the
-- upgrade tests replay migrations on files that have the newer tables.
CREATE TABLE IF NOT EXISTS item_collections (
    table_id INTEGER NOT NULL,
    pk       BLOB    NOT NULL,
    bytes    INTEGER NOT NULL,
    PRIMARY KEY (table_id, pk)
) WITHOUT ROWID;
