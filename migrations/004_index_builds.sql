-- 004_index_builds: online index builds (sql/functions/build.sql,
-- docs/index-build.md). One row per global secondary index that was added
-- to a live table: its build's phase and progress, for the builders, the
-- recovery worker and DBAs (view dynamopg.index_build_status).

CREATE TABLE dynamopg.index_builds (
    index_id        bigint PRIMARY KEY,
    table_id        bigint NOT NULL,
    index_name      text COLLATE "C" NOT NULL,
    -- allocating: the CREATING catalog row committed (TableUpdate: storage
    --   created, every write maintains the index from then on), no builder yet;
    -- barrier: a builder owns the build and confirms the barrier;
    -- backfill: pages of the table are being written into the index;
    -- sweep: removing index rows whose item no longer exists;
    -- active: done, the index is ACTIVE;
    -- failed: the index was removed (permanent failure, cancel or delete).
    phase           text NOT NULL DEFAULT 'allocating'
                    CHECK (phase IN ('allocating', 'barrier', 'backfill', 'sweep', 'active', 'failed')),
    rows_done       bigint NOT NULL DEFAULT 0,
    -- The base key (jsonb, wire form) up to which the backfill is done; a
    -- resumed build continues after it.
    current_key     jsonb,
    pages           bigint NOT NULL DEFAULT 0,
    -- Page and row transactions retried (deadlock, serialization failure,
    -- lock timeout), over all attempts.
    retries         bigint NOT NULL DEFAULT 0,
    -- How long TableUpdate waited for the catalog row lock (the barrier) and
    -- how many times its lock timeout expired before it got it.
    barrier_ms      int,
    barrier_retries int NOT NULL DEFAULT 0,
    owner           text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    started_at      timestamptz,
    heartbeat_at    timestamptz,
    finished_at     timestamptz,
    last_error      text,
    -- Builds started (by IndexBuildStart or the recovery worker).
    attempts        int NOT NULL DEFAULT 0,
    -- The recovery worker does not start the build before this time
    -- (backoff after a transient failure).
    next_attempt_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX index_builds_table ON dynamopg.index_builds (table_id);

-- index_build_status: each build with its table's name, for DBAs.
CREATE VIEW dynamopg.index_build_status AS
SELECT t.name AS table_name, b.index_name, b.phase, b.rows_done, b.current_key,
       b.pages, b.retries, b.barrier_ms, b.barrier_retries, b.owner,
       b.started_at, b.heartbeat_at, b.finished_at, b.last_error, b.attempts,
       b.next_attempt_at, b.table_id, b.index_id
  FROM dynamopg.index_builds b
  LEFT JOIN dynamopg.tables t ON t.id = b.table_id;

-- The build's tunables, read by the functions and by pgstore at each use.
INSERT INTO dynamopg.settings (key, value) VALUES
    ('build_page_size', '256'),
    ('build_barrier_lock_timeout_ms', '2000'),
    ('build_barrier_retries', '5'),
    ('build_row_lock_timeout_ms', '10000'),
    ('build_page_retries', '20'),
    ('recovery_interval_ms', '60000')
ON CONFLICT (key) DO NOTHING;

---- create above / drop below ----

DELETE FROM dynamopg.settings WHERE key LIKE 'build\_%' OR key = 'recovery_interval_ms';
DROP VIEW dynamopg.index_build_status;
DROP TABLE dynamopg.index_builds;
