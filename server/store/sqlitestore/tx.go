package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
)

// inWrite and inRead are where the store's statements run, and where their
// errors meet interpretError on their way out.

// inWrite runs fn in a transaction on the write connection (BEGIN
// IMMEDIATE: the database write lock is taken up front, so the reads fn makes
// are never invalidated by another writer). fn's error rolls back and is
// returned, interpreted. A committed transaction that enqueued index work
// wakes the queue workers; one that changed tables drops their cached
// descriptions (tablecache.go).
func (s *Store) inWrite(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin write: %w", interpretError(err))
	}
	// The write connection is held until Commit or Rollback returns, so no
	// other transaction touches s.enqueued or s.changed in between.
	if err := fn(tx); err != nil {
		s.enqueued.Store(false)
		changed := s.takeChanged()
		tx.Rollback()
		s.forgetChanged(changed)
		return interpretError(err)
	}
	enqueued := s.enqueued.Swap(false)
	changed := s.takeChanged()
	err = tx.Commit()
	s.forgetChanged(changed) // also when the commit failed: its outcome decides nothing here
	if err != nil {
		return fmt.Errorf("commit: %w", interpretError(err))
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
		return fmt.Errorf("begin read: %w", interpretError(err))
	}
	defer tx.Rollback() // a read transaction has nothing to commit
	return interpretError(fn(tx))
}
