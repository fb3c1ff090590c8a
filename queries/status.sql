-- `dynamopg status` (cmd/dynamopg/status.go): read-only numbers for
-- operators, the same the view dynamopg.index_build_status shows. Row counts
-- are PostgreSQL's estimates (pg_class.reltuples, or the statistics
-- collector's n_live_tup when the table was never vacuumed or analyzed), never
-- a count(*): status must stay cheap on a table of a billion items.

-- name: StatusTables :many
-- StatusTables lists every table of the catalog with its estimated items and
-- the size of its data table (t_<id>, its TOAST and indexes included).
SELECT t.id::bigint AS id, t.name::text AS name, t.status::text AS status,
       coalesce(jsonb_array_length(t.def->'indexes'), 0)::int AS indexes,
       coalesce(CASE WHEN c.reltuples >= 0 THEN c.reltuples::bigint END, s.n_live_tup, -1)::bigint AS est_items,
       coalesce(pg_total_relation_size(c.oid), 0)::bigint AS bytes,
       t.created_at::timestamptz AS created_at
  FROM dynamopg.tables t
  LEFT JOIN pg_catalog.pg_class c
    ON c.relname = 't_' || t.id AND c.relnamespace = 'dynamopg_data'::regnamespace
  LEFT JOIN pg_catalog.pg_stat_user_tables s ON s.relid = c.oid
 ORDER BY t.name;

-- name: StatusIndexes :many
-- StatusIndexes lists every secondary index of the catalog: its kind, status
-- (CREATING, ACTIVE...), propagation and estimated rows of its i_<id>.
SELECT t.name::text AS table_name, (e->>'id')::bigint AS index_id, (e->>'name')::text AS index_name,
       coalesce((e->>'global')::boolean, false)::boolean AS global,
       coalesce(e->>'status', '')::text AS status,
       coalesce((e->>'backfilling')::boolean, false)::boolean AS backfilling,
       coalesce(nullif(e->>'propagation', ''), 'sync')::text AS propagation,
       coalesce(CASE WHEN c.reltuples >= 0 THEN c.reltuples::bigint END, s.n_live_tup, -1)::bigint AS est_rows
  FROM dynamopg.tables t
 CROSS JOIN LATERAL jsonb_array_elements(coalesce(t.def->'indexes', '[]')) e
  LEFT JOIN pg_catalog.pg_class c
    ON c.relname = 'i_' || (e->>'id') AND c.relnamespace = 'dynamopg_data'::regnamespace
  LEFT JOIN pg_catalog.pg_stat_user_tables s ON s.relid = c.oid
 ORDER BY t.name, e->>'name';

-- name: StatusBuilds :many
-- StatusBuilds reads dynamopg.index_build_status with the estimated rows of
-- the build's table (the progress bar's whole) and the attempt's elapsed
-- seconds (started_at to the last heartbeat, or to now while running).
SELECT coalesce(v.table_name, '')::text AS table_name, v.index_name::text AS index_name,
       v.phase::text AS phase, v.rows_done::bigint AS rows_done, v.pages::bigint AS pages,
       v.retries::bigint AS retries, v.attempts::int AS attempts,
       coalesce(v.owner, '')::text AS owner, coalesce(v.last_error, '')::text AS last_error,
       coalesce(CASE WHEN c.reltuples >= 0 THEN c.reltuples::bigint END, s.n_live_tup, -1)::bigint AS est_table_rows,
       coalesce(extract(epoch FROM (coalesce(v.finished_at, v.heartbeat_at, now()) - v.started_at)), 0)::float8 AS elapsed_s,
       coalesce(extract(epoch FROM (now() - v.heartbeat_at)), -1)::float8 AS heartbeat_age_s,
       coalesce(extract(epoch FROM (v.next_attempt_at - now())), 0)::float8 AS next_attempt_in_s,
       v.started_at, v.finished_at, v.index_id::bigint AS index_id
  FROM dynamopg.index_build_status v
  LEFT JOIN pg_catalog.pg_class c
    ON c.relname = 't_' || v.table_id AND c.relnamespace = 'dynamopg_data'::regnamespace
  LEFT JOIN pg_catalog.pg_stat_user_tables s ON s.relid = c.oid
 ORDER BY (v.phase IN ('active', 'failed')), coalesce(v.finished_at, v.heartbeat_at, v.started_at, v.next_attempt_at) DESC
 LIMIT @max_rows::int;

-- name: StatusQueue :many
-- StatusQueue is the propagation queue's depth per table: rows, rows passed
-- over now (an item that could not be locked or failed), the oldest row's age.
SELECT coalesce(t.name, '#' || q.table_id)::text AS table_name, count(*)::bigint AS depth,
       count(*) FILTER (WHERE q.pass_over_until > clock_timestamp())::bigint AS passed_over,
       coalesce(extract(epoch FROM (clock_timestamp() - min(q.enqueued_at))), 0)::float8 AS oldest_s
  FROM dynamopg.index_queue q
  LEFT JOIN dynamopg.tables t ON t.id = q.table_id
 GROUP BY q.table_id, t.name
 ORDER BY count(*) DESC;

-- name: StatusRecovery :one
-- StatusRecovery is the recovery worker's state as the database shows it: its
-- interval, the CREATING indexes, those due now with no builder (what its
-- next pass starts), the builds a session holds, and the last build started
-- and finished.
SELECT dynamopg.setting_int('recovery_interval_ms', 60000)::int AS interval_ms,
       (SELECT count(*) FROM dynamopg.tables t
         CROSS JOIN LATERAL jsonb_array_elements(coalesce(t.def->'indexes', '[]')) e
         WHERE e->>'status' = 'CREATING')::bigint AS creating,
       (SELECT count(*) FROM dynamopg.index_recovery_due())::bigint AS due,
       (SELECT count(*) FROM dynamopg.index_builds
         WHERE phase NOT IN ('active', 'failed') AND owner IS NOT NULL
           AND heartbeat_at > now() - interval '1 minute')::bigint AS running,
       (SELECT count(*) FROM dynamopg.index_builds WHERE last_error IS NOT NULL
           AND phase NOT IN ('active', 'failed'))::bigint AS retrying,
       (SELECT max(started_at) FROM dynamopg.index_builds)::timestamptz AS last_started,
       (SELECT max(finished_at) FROM dynamopg.index_builds)::timestamptz AS last_finished;
