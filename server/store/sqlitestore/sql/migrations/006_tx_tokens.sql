-- 006_tx_tokens: the client tokens of TransactWriteItems
-- (ClientRequestToken). One row per token recorded by a committed
-- transaction, written in that transaction; created_at is Unix nanoseconds.
-- Tokens older than the idempotency window are forgotten and purged from
-- time to time. IF NOT EXISTS: before the numbered migrations the token path
-- created this table itself, so files at version 5 may have it already.
CREATE TABLE IF NOT EXISTS tx_tokens (
    token      TEXT PRIMARY KEY,
    hash       BLOB    NOT NULL,
    created_at INTEGER NOT NULL
) WITHOUT ROWID;

-- The purge: tokens by age.
CREATE INDEX IF NOT EXISTS tx_tokens_created_at ON tx_tokens (created_at);
