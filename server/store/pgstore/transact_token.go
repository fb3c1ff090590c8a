package pgstore

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/dynamopg/dynamopg/gen"
	"github.com/dynamopg/dynamopg/server/store"
)

// ItemTransactToken is ItemTransact with a client token claimed in the same
// transaction (see store.Transactions). The token row is claimed before any
// item is locked, so two calls with one token serialize on the token's
// primary key (the second waits for the first's commit or rollback) and
// never deadlock with item locks; a claim that loses a race in another way
// goes through the retry loop like any other conflict.
func (s *Store) ItemTransactToken(ctx context.Context, targets []store.TxTarget, tok store.TxToken, fn store.TxFunc) (replayed bool, err error) {
	order := lockOrder(targets)
	if err := s.withWriteStmts(ctx, order); err != nil {
		return false, err
	}
	err = s.retryTx(ctx, "item transact", []any{"targets", len(targets), "token", tok.Token}, func() (bool, error) {
		retry, rep, err := s.itemTransactOnce(ctx, order, &tok, fn)
		replayed = rep
		return s.sizeUnsized(ctx, retry, err)
	})
	return replayed, err
}

// claimToken records tok in tx; false when a live token of the same request
// holds the name (replay), ErrTokenMismatch when one of another request does.
func (s *Store) claimToken(ctx context.Context, tx pgx.Tx, tok *store.TxToken) (claimed bool, err error) {
	ok, err := s.q.TxTokenClaim(ctx, tx, gen.TxTokenClaimParams{
		Token:         tok.Token,
		Hash:          tok.Hash,
		Now:           pgtype.Timestamptz{Time: tok.Now, Valid: true},
		ExpiredBefore: pgtype.Timestamptz{Time: tok.Expired(), Valid: true},
	})
	if err == nil {
		return ok, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return false, err
	}
	// A live token: the claim locked its row, so it stays as read here.
	hash, err := s.q.TxTokenHash(ctx, tx, gen.TxTokenHashParams{Token: tok.Token})
	if err != nil {
		return false, err
	}
	if !bytes.Equal(hash, tok.Hash) {
		return false, store.ErrTokenMismatch
	}
	return false, nil
}

// TxTokenPurge deletes the tokens recorded at or before `before`.
func (s *Store) TxTokenPurge(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.q.TxTokenPurge(ctx, s.pool, gen.TxTokenPurgeParams{
		ExpiredBefore: pgtype.Timestamptz{Time: before, Valid: true},
	})
	if err != nil {
		return 0, wrap("purge transaction tokens", err)
	}
	return n, nil
}
