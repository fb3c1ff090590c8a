-- 011_item_get_dropped: ItemGetMany (TransactGetItems, the replays of
-- TransactWriteItems, PartiQL's transactional reads) now pipelines the
-- per-table statements ItemGet prepares (dynamopg.item_get_sql) in its
-- snapshot, so the PL/pgSQL dynamopg.item_get, which planned its dynamic
-- SQL on every call, has no caller left. Migrations run before the code
-- package is installed, which no longer creates it.
DROP FUNCTION IF EXISTS dynamopg.item_get(bigint, jsonb);

---- create above / drop below ----

-- Nothing to undo: the function belongs to earlier code packages, which
-- recreate it when they are installed.
