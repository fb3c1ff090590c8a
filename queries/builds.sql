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

-- name: BuildPage :one
-- BuildPage writes one page of the table into the index (one transaction).
SELECT p.n::int AS n, p.last_key::jsonb AS last_key, p.more::boolean AS more,
       p.skipped::jsonb AS skipped, p.gone::boolean AS gone
  FROM dynamopg.index_build_page(@table_id::bigint, @index_id::bigint, sqlc.narg('after')::jsonb) AS p;

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
-- transaction) with the barrier's wait.
INSERT INTO dynamopg.index_builds (index_id, table_id, index_name, barrier_ms, barrier_retries)
VALUES (@index_id::bigint, @table_id::bigint, @index_name::text, @barrier_ms::int, @barrier_retries::int)
ON CONFLICT (index_id) DO NOTHING;

-- name: BuildBarrierSettings :one
-- BuildBarrierSettings sets the transaction's lock_timeout to the barrier's
-- and returns how many times TableUpdate retries a lock timeout.
SELECT set_config('lock_timeout', dynamopg.setting_int('build_barrier_lock_timeout_ms', 2000)::text || 'ms', true)::text AS lock_timeout,
       dynamopg.setting_int('build_barrier_retries', 5)::int AS retries;

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

-- name: BuildBarrierEscalate :exec
-- BuildBarrierEscalate is the barrier after a lock timeout: EXCLUSIVE on the
-- catalog table, which every write's FOR KEY SHARE needs (ROW SHARE), so
-- that writes arriving meanwhile queue behind TableUpdate (a fair lock
-- queue) instead of starving its FOR UPDATE; held to commit.
LOCK TABLE dynamopg.tables IN EXCLUSIVE MODE;
