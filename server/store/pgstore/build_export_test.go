package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// SetBuildTestHooks installs the test hooks of build.go (nil: none) and
// returns a function restoring none.
func SetBuildTestHooks(afterCatalogRead, beforeStatement, buildPage func()) (restore func()) {
	set := func(p interface{ Store(*func()) }, f func()) {
		if f == nil {
			p.Store(nil)
			return
		}
		p.Store(&f)
	}
	set(&testHookAfterCatalogRead, afterCatalogRead)
	set(&testHookBeforeStatement, beforeStatement)
	set(&testHookBuildPage, buildPage)
	return func() {
		testHookAfterCatalogRead.Store(nil)
		testHookBeforeStatement.Store(nil)
		testHookBuildPage.Store(nil)
	}
}

// SnapshotScan reads every item of a table and every row of one of its
// indexes in one REPEATABLE READ transaction, so that they come from one
// snapshot: a write that commits meanwhile (a writer whose context was
// cancelled may still be committing on the server after its call returned)
// cannot make the two disagree.
func (s *Store) SnapshotScan(ctx context.Context, t *store.Table, ix *store.Index) (items, rows []attr.Item, err error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	lo, hi := store.SegmentBounds(0, 1)
	scan := func(indexID int64) ([]attr.Item, error) {
		stmt, err := s.readStmt(ctx, readShape{table: t.ID, index: indexID, scan: true})
		if err != nil {
			return nil, err
		}
		return decodeWire(readJSON(ctx, tx, "item scan", stmt, int64(lo), int64(hi), nil, nil))
	}
	if items, err = scan(0); err != nil {
		return nil, nil, err
	}
	if rows, err = scan(ix.ID); err != nil {
		return nil, nil, err
	}
	return items, rows, tx.Commit(ctx)
}
