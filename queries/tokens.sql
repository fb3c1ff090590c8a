-- name: TxTokenClaim :one
-- TxTokenClaim records a client token for the running transaction: it
-- inserts the token, or takes over a forgotten one (recorded at or before
-- @expired_before). No row when a live token holds the name; a concurrent
-- uncommitted claim makes it wait for that transaction's outcome.
INSERT INTO dynamopg.tx_tokens AS t (token, hash, created_at)
VALUES (@token::text, @hash::bytea, @now::timestamptz)
ON CONFLICT (token) DO UPDATE
   SET hash = EXCLUDED.hash, created_at = EXCLUDED.created_at
 WHERE t.created_at <= @expired_before::timestamptz
RETURNING true AS claimed;

-- name: TxTokenHash :one
-- TxTokenHash reads the request hash a token was recorded with.
SELECT hash FROM dynamopg.tx_tokens WHERE token = @token::text;

-- name: TxTokenPurge :execrows
-- TxTokenPurge deletes forgotten tokens.
DELETE FROM dynamopg.tx_tokens WHERE created_at <= @expired_before::timestamptz;
