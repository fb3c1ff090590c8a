-- name: TxTokenGet :one
-- TxTokenGet reads the request hash a token was recorded with, and when.
SELECT hash, created_at
  FROM tx_tokens
 WHERE token = @token;

-- name: TxTokenPut :exec
-- TxTokenPut records a client token for the running transaction, taking
-- over a forgotten one (the caller has checked that it is not live).
INSERT INTO tx_tokens (token, hash, created_at)
VALUES (@token, @hash, @created_at)
    ON CONFLICT (token) DO UPDATE
   SET hash = excluded.hash, created_at = excluded.created_at;

-- name: TxTokenPurge :execrows
-- TxTokenPurge deletes the tokens recorded at or before @expired_before.
DELETE FROM tx_tokens
 WHERE created_at <= @expired_before;
