-- 004_index_queue_enqueued_at: when the item's oldest unapplied write was
-- queued (Unix nanoseconds), the queue's lag; NULL in rows queued before
-- this migration. The one step that is not idempotent (SQLite has no ADD
-- COLUMN IF NOT EXISTS): it runs once, on files at version 3 or less, which
-- never had the column.
ALTER TABLE index_queue ADD COLUMN enqueued_at INTEGER;
