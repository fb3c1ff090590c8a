-- 003_transaction_tokens: ClientRequestToken idempotency of
-- TransactWriteItems. One row per token recorded by a committed transaction
-- (written in that transaction); rows older than the idempotency window
-- (10 minutes) are forgotten and purged from time to time.

CREATE TABLE dynamopg.tx_tokens (
    token      text COLLATE "C" PRIMARY KEY,
    -- hash is the canonical hash of the request that recorded the token.
    hash       bytea NOT NULL,
    created_at timestamptz NOT NULL
);

CREATE INDEX tx_tokens_created_at ON dynamopg.tx_tokens (created_at);

---- create above / drop below ----

DROP TABLE dynamopg.tx_tokens;
