package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/dynamopg/dynamopg/server/store"
)

// inWrite runs fn in a transaction on the write connection (BEGIN
// IMMEDIATE: the database write lock is taken up front, so the reads fn makes
// are never invalidated by another writer). fn's error rolls back and is
// returned unchanged. A committed transaction that enqueued index work wakes
// the queue workers.
func (s *Store) inWrite(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		if isBusy(err) {
			return fmt.Errorf("begin write: %w (%w)", store.ErrConflict, err)
		}
		return fmt.Errorf("begin write: %w", err)
	}
	writeTxs.Store(tx, s)
	defer writeTxs.Delete(tx)
	// The write connection is held until Commit or Rollback returns, so no
	// other transaction touches s.enqueued in between.
	if err := fn(tx); err != nil {
		s.enqueued.Store(false)
		tx.Rollback()
		return err
	}
	enqueued := s.enqueued.Swap(false)
	if err := tx.Commit(); err != nil {
		if isBusy(err) {
			return fmt.Errorf("commit: %w (%w)", store.ErrConflict, err)
		}
		return fmt.Errorf("commit: %w", err)
	}
	if enqueued {
		s.wakeWorkers()
	}
	return nil
}

// inRead runs fn in a read transaction on the read pool: one snapshot, so a
// failed statement and the catalog check that explains it agree.
func (s *Store) inRead(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer tx.Rollback() // a read transaction has nothing to commit
	return fn(tx)
}
