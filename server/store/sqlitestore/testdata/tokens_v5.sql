-- tx_tokens as the hand-versioned code's token path created it on first use
-- (transact_token.go, tokensSchema): test data for TestOpenVersion5File.
CREATE TABLE IF NOT EXISTS tx_tokens (
    token      TEXT PRIMARY KEY,
    hash       BLOB NOT NULL,
    created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tx_tokens_created_at ON tx_tokens (created_at);
