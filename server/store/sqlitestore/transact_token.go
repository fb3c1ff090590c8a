package sqlitestore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// tokensSchema is the table of client tokens (TransactWriteItems'
// ClientRequestToken), created on first use by the token path itself so that
// it stays apart from schema.sql: one row per token recorded by a committed
// transaction, created_at in Unix nanoseconds.
const tokensSchema = `
CREATE TABLE IF NOT EXISTS tx_tokens (
    token      TEXT PRIMARY KEY,
    hash       BLOB NOT NULL,
    created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tx_tokens_created_at ON tx_tokens (created_at);
`

// ItemTransactToken is ItemTransact with the client token checked and
// recorded in the same write transaction (see store.Transactor). The write
// transaction holds the database write lock from its start, so two calls with
// one token are serialized: the second sees the first's token and replays.
func (s *Store) ItemTransactToken(ctx context.Context, targets []store.TxTarget, tok store.TxToken, fn store.TxFunc) (replayed bool, err error) {
	err = s.inWrite(ctx, func(tx *sql.Tx) error {
		replayed = false
		if _, err := tx.ExecContext(ctx, tokensSchema); err != nil {
			return fmt.Errorf("transact: token table: %w", err)
		}
		var hash []byte
		var created int64
		err := tx.QueryRowContext(ctx, `SELECT hash, created_at FROM tx_tokens WHERE token = ?`, tok.Token).Scan(&hash, &created)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("transact: read token: %w", err)
		case created > tok.Expired().UnixNano(): // live
			if !bytes.Equal(hash, tok.Hash) {
				return store.ErrTokenMismatch
			}
			replayed = true
			return nil
		}
		if err := transactIn(ctx, tx, targets, fn); err != nil {
			return err // nothing recorded: the rollback drops the writes
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tx_tokens (token, hash, created_at) VALUES (?, ?, ?)
			ON CONFLICT (token) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at`,
			tok.Token, tok.Hash, tok.Now.UnixNano()); err != nil {
			return fmt.Errorf("transact: record token: %w", err)
		}
		if purgeDue() {
			if _, err := tx.ExecContext(ctx, `DELETE FROM tx_tokens WHERE created_at <= ?`, tok.Expired().UnixNano()); err != nil {
				return fmt.Errorf("transact: purge tokens: %w", err)
			}
		}
		return nil
	})
	return replayed, err
}

// tokenPurgeEvery spaces the deletes of forgotten tokens.
const tokenPurgeEvery = time.Minute

// lastTokenPurge is when this process last purged forgotten tokens (unix ns).
var lastTokenPurge atomic.Int64

// purgeDue reports whether this call should purge forgotten tokens.
func purgeDue() bool {
	now := time.Now().UnixNano()
	last := lastTokenPurge.Load()
	return now-last >= int64(tokenPurgeEvery) && lastTokenPurge.CompareAndSwap(last, now)
}
