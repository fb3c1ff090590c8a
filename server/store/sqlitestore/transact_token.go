package sqlitestore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// ItemTransactToken is ItemTransact with the client token checked and
// recorded in the same write transaction (see store.Transactor). The write
// transaction holds the database write lock from its start, so two calls with
// one token are serialized: the second sees the first's token and replays.
func (s *Store) ItemTransactToken(ctx context.Context, targets []store.TxTarget, tok store.TxToken, fn store.TxFunc) (replayed bool, err error) {
	err = s.inWrite(ctx, func(tx *sql.Tx) error {
		replayed = false
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
		return nil
	})
	return replayed, err
}

// TxTokenPurge deletes the tokens recorded at or before `before`.
func (s *Store) TxTokenPurge(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.inWrite(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM tx_tokens WHERE created_at <= ?`, before.UnixNano())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlitestore: purge transaction tokens: %w", err)
	}
	return n, nil
}
