package sqlitestore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
	"github.com/dynamopg/dynamopg/server/store/sqlitestore/internal/sqlitedb"
)

// ItemTransactToken is ItemTransact with the client token checked and
// recorded in the same write transaction (see store.Transactions). The write
// transaction holds the database write lock from its start, so two calls with
// one token are serialized: the second sees the first's token and replays.
func (s *Store) ItemTransactToken(ctx context.Context, targets []store.TxTarget, tok store.TxToken, fn store.TxFunc) (replayed bool, err error) {
	err = s.inWrite(ctx, func(tx *sql.Tx) error {
		replayed = false
		got, err := queries.TxTokenGet(ctx, tx, sqlitedb.TxTokenGetParams{Token: tok.Token})
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("transact: read token: %w", err)
		case got.CreatedAt > tok.Expired().UnixNano(): // live
			if !bytes.Equal(got.Hash, tok.Hash) {
				return store.ErrTokenMismatch
			}
			replayed = true
			return nil
		}
		if err := s.transactIn(ctx, tx, targets, fn); err != nil {
			return err // nothing recorded: the rollback drops the writes
		}
		if err := queries.TxTokenPut(ctx, tx, sqlitedb.TxTokenPutParams{
			Token: tok.Token, Hash: tok.Hash, CreatedAt: tok.Now.UnixNano(),
		}); err != nil {
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
		var err error
		n, err = queries.TxTokenPurge(ctx, tx, sqlitedb.TxTokenPurgeParams{ExpiredBefore: before.UnixNano()})
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlitestore: purge transaction tokens: %w", err)
	}
	return n, nil
}
