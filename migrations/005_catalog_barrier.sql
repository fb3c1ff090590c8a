-- 005_catalog_barrier: the barrier of an online index build no longer locks
-- (docs/index-build.md). TableUpdate takes the catalog row FOR NO KEY UPDATE
-- and commits at once; the build then waits, blocking nobody, until every
-- transaction that held a lock on dynamopg.tables at its start has ended
-- (dynamopg.catalog_lockers), at most build_barrier_wait_ms before the
-- attempt fails transiently and recovery retries it. index_builds.barrier_ms
-- is now that wait (of the last attempt), barrier_retries the waits that
-- timed out. catalog_lock_timeout_ms bounds the catalog row lock of
-- TableUpdate and of index removal (they wait only for each other and
-- DeleteTable, never for writes).

DELETE FROM dynamopg.settings WHERE key IN ('build_barrier_lock_timeout_ms', 'build_barrier_retries');

INSERT INTO dynamopg.settings (key, value) VALUES
    ('build_barrier_wait_ms', '60000'),
    ('catalog_lock_timeout_ms', '5000')
ON CONFLICT (key) DO NOTHING;

COMMENT ON COLUMN dynamopg.index_builds.barrier_ms IS
    'how long the last build attempt waited in its barrier for the transactions that held a lock on dynamopg.tables';
COMMENT ON COLUMN dynamopg.index_builds.barrier_retries IS
    'barrier waits that exceeded build_barrier_wait_ms (each fails its attempt transiently)';

---- create above / drop below ----

DELETE FROM dynamopg.settings WHERE key IN ('build_barrier_wait_ms', 'catalog_lock_timeout_ms');
INSERT INTO dynamopg.settings (key, value) VALUES
    ('build_barrier_lock_timeout_ms', '2000'),
    ('build_barrier_retries', '5')
ON CONFLICT (key) DO NOTHING;
