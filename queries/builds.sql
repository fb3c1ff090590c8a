-- Online index builds (sql/functions/build.sql, docs/index-build.md).

-- name: BuildLockTry :one
-- BuildLockTry takes the session advisory lock owning an index's build.
SELECT pg_try_advisory_lock(dynamopg.build_lock_key(@index_id::bigint))::boolean AS locked;

-- name: BuildLockRelease :exec
-- BuildLockRelease releases it.
SELECT pg_advisory_unlock(dynamopg.build_lock_key(@index_id::bigint));

-- name: BuildClaim :one
-- BuildClaim starts a build attempt (phase barrier) and returns where to resume.
SELECT c.gone::boolean AS gone, c.resume_key::jsonb AS resume_key, c.rows_done::bigint AS rows_done
  FROM dynamopg.index_build_claim(@table_id::bigint, @index_id::bigint, @owner::text) AS c;

-- name: BuildBackfilling :one
-- BuildBackfilling sets Backfilling in the catalog; false when the index is not CREATING.
SELECT dynamopg.index_build_backfilling(@table_id::bigint, @index_id::bigint)::boolean AS building;

-- name: BuildKeysSQL :one
-- BuildKeysSQL is the text of the page key reads (first page, next pages),
-- run on the build's snapshot connection; empty when the table is gone.
SELECT coalesce(k.first_sql, '')::text AS first_sql, coalesce(k.next_sql, '')::text AS next_sql
  FROM dynamopg.index_build_keys_sql(@table_id::bigint) AS k;

-- name: BuildPage :one
-- BuildPage writes the rows of one page's keys into the index (one
-- transaction). When it skipped no key it also records the page as done
-- (index_build_progress, with @retries), which saves the builder a round
-- trip and a commit a page; recorded says so.
SELECT p.n::int AS n, p.last_key::jsonb AS last_key,
       p.skipped::jsonb AS skipped, p.gone::boolean AS gone,
       (d.done IS NOT NULL)::boolean AS recorded
  FROM dynamopg.index_build_page(@table_id::bigint, @index_id::bigint, sqlc.narg('after')::jsonb,
                                 @keys::jsonb) AS p
  LEFT JOIN LATERAL (
        SELECT true AS done, dynamopg.index_build_progress(@index_id::bigint, p.last_key, p.n, @retries::int)
         WHERE NOT p.gone AND p.skipped = '[]'::jsonb
       ) AS d ON true;

-- name: BuildItem :one
-- BuildItem writes one item a page skipped, waiting for its row lock.
SELECT i.written::boolean AS written, i.gone::boolean AS gone
  FROM dynamopg.index_build_item(@table_id::bigint, @index_id::bigint, @key::jsonb) AS i;

-- name: BuildProgress :exec
-- BuildProgress records a finished page.
SELECT dynamopg.index_build_progress(@index_id::bigint, sqlc.narg('key')::jsonb, @rows::int, @retries::int);

-- name: BuildSweep :one
-- BuildSweep removes index rows whose item is gone.
SELECT s.removed::int AS removed, s.gone::boolean AS gone
  FROM dynamopg.index_build_sweep(@table_id::bigint, @index_id::bigint) AS s;

-- name: BuildActivate :one
-- BuildActivate flips the index to ACTIVE if it is still CREATING.
SELECT dynamopg.index_build_activate(@table_id::bigint, @index_id::bigint)::boolean AS activated;

-- name: BuildRemove :one
-- BuildRemove removes the index while it is still CREATING (permanent failure).
SELECT dynamopg.index_build_remove(@table_id::bigint, @index_id::bigint, @reason::text)::boolean AS removed;

-- name: BuildFailed :exec
-- BuildFailed records a transient failure and when recovery may retry.
SELECT dynamopg.index_build_failed(@index_id::bigint, @error::text, @backoff_ms::int);

-- name: BuildHeartbeat :exec
-- BuildHeartbeat stamps the build's heartbeat.
UPDATE dynamopg.index_builds SET heartbeat_at = now() WHERE index_id = @index_id::bigint;

-- name: BuildRecord :exec
-- BuildRecord notes an index added as CREATING (TableUpdate, in its
-- transaction): phase allocating until a builder claims it.
INSERT INTO dynamopg.index_builds (index_id, table_id, index_name)
VALUES (@index_id::bigint, @table_id::bigint, @index_name::text)
ON CONFLICT (index_id) DO NOTHING;

-- name: CatalogLockTimeout :exec
-- CatalogLockTimeout sets the transaction's lock_timeout for a catalog row
-- change (setting catalog_lock_timeout_ms).
SELECT set_config('lock_timeout', dynamopg.setting_int('catalog_lock_timeout_ms', 5000)::text || 'ms', true);

-- name: CatalogLockers :one
-- CatalogLockers starts the catalog barrier: the transactions (other than
-- the caller's) holding a lock on dynamopg.tables.
SELECT dynamopg.catalog_lockers()::text[] AS vxids;

-- name: CatalogLockersLeft :one
-- CatalogLockersLeft counts those still running.
SELECT dynamopg.catalog_lockers_left(@vxids::text[])::int AS running;

-- name: BuildBarrierDone :exec
-- BuildBarrierDone records the barrier's wait of a build attempt.
SELECT dynamopg.index_build_barrier_done(@index_id::bigint, @ms::int);

-- name: BuildBarrierTimeout :exec
-- BuildBarrierTimeout counts a barrier that exceeded build_barrier_wait_ms.
SELECT dynamopg.index_build_barrier_timeout(@index_id::bigint, @ms::int);

-- name: BuildSettingInt :one
-- BuildSettingInt reads an integer setting.
SELECT dynamopg.setting_int(@key::text, @fallback::int)::int AS value;

-- name: BuildRecoveryDue :many
-- BuildRecoveryDue lists the CREATING indexes whose build is due and unowned.
SELECT d.table_id::bigint AS table_id, d.table_name::text AS table_name, d.index_id::bigint AS index_id,
       d.index_name::text AS index_name, d.attempts::int AS attempts
  FROM dynamopg.index_recovery_due() AS d;

-- name: BuildRecoveryListen :exec
-- BuildRecoveryListen subscribes to index_recovery_run's notifications.
LISTEN dynamopg_index_build;

-- name: BuildPurge :exec
-- BuildPurge forgets finished builds older than @days days.
SELECT dynamopg.index_builds_purge(@days::int);
