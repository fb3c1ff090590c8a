-- 010_item_collections: the size of every item collection of the tables
-- with a local secondary index (store/collections.go), one row per
-- collection, kept by pgstore's item writes in their own transactions
-- (prepared.go, collections.go): a write locks the rows of the collections
-- it writes FOR UPDATE after its items (in lockOrder), adds its change and
-- refuses a write that would take a collection past the store's limit.
-- The lock serializes the writers of one collection, which makes the
-- limit exact.
--
-- hash is the partition key value in the wire form (jsonb, NUL-escaped);
-- bytes is the sum of store.CollectionEntrySize over the collection's
-- items. A collection of a table created before this migration has no row
-- until its first write sizes it, once, from its partition
-- (pgstore.sizeCollection), in a transaction of its own whose insert holds
-- off the collection's other writers until it commits. The rows go with
-- the catalog row (ON DELETE CASCADE): DeleteTable's drop and the orphan
-- sweep need nothing more. fillfactor leaves room for the updates to stay
-- HOT.
CREATE TABLE dynamopg.item_collections (
    table_id bigint NOT NULL REFERENCES dynamopg.tables (id) ON DELETE CASCADE,
    hash     jsonb NOT NULL,
    bytes    bigint NOT NULL,
    PRIMARY KEY (table_id, hash)
) WITH (fillfactor = 70);

---- create above / drop below ----

DROP TABLE dynamopg.item_collections;
