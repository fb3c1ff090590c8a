package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/server/store"
)

// The table cache keeps the descriptions item operations read
// (TableGetCached), so that a GetItem or PutItem is one round trip, not a
// catalog read and then the item's statement. Two things keep it honest:
//
//   - Every description carries its catalog version (dynamopg.tables.version,
//     bumped by a trigger on every change), and item writes pass it to
//     table_def, which refuses a version that is no longer current
//     (store.ErrStaleTable, before anything is written). The API then drops
//     the entry and runs the request again on a fresh description. So a write
//     is never validated against an out-of-date description.
//   - The same trigger NOTIFYs dynamopg_catalog with the table's name at
//     commit; a listener connection of this process drops the entry. The
//     cache serves only while that listener is connected: while it is not,
//     every call reads the catalog.
//
// Reads are not version-checked: a read served from an entry that a change
// in another process has just made out of date (its NOTIFY not yet here)
// reads the storage the entry names, or fails with ErrTableNotFound when it
// is gone, which the API answers by reading the catalog again.

// CatalogApplicationName is the application_name of the listener's connection.
const CatalogApplicationName = "dynamopg-catalog"

// TableGetCached returns a table's description for an item operation, from
// the cache when it holds it (cached), with its catalog version set. The
// caller must not modify it.
func (s *Store) TableGetCached(ctx context.Context, name string) (t *store.Table, cached bool, err error) {
	return s.tables.Get(ctx, name, s.TableGet)
}

// TableForget drops name's description from the cache.
func (s *Store) TableForget(name string) { s.tables.Forget(name) }

// startCatalogListener runs the cache's listener until Close.
func (s *Store) startCatalogListener(cfg *pgx.ConnConfig) {
	ctx, cancel := context.WithCancel(context.Background())
	s.stopListener = cancel
	s.listener.Go(func() {
		for ctx.Err() == nil {
			err := s.catalogSession(ctx, cfg)
			s.tables.Reset(false)
			if ctx.Err() != nil {
				return
			}
			s.log.WarnContext(ctx, "catalog listener: connection lost, table cache off until it reconnects", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(reconnectDelay):
			}
		}
	})
}

// catalogSession connects, LISTENs and drops the cache entry of each table
// announced until ctx ends or the connection fails.
func (s *Store) catalogSession(ctx context.Context, cfg *pgx.ConnConfig) error {
	cc := cfg.Copy()
	cc.RuntimeParams["application_name"] = CatalogApplicationName
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return fmt.Errorf("pgstore: catalog listener: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := s.q.CatalogListen(ctx, conn); err != nil {
		return fmt.Errorf("pgstore: catalog listener: listen: %w", err)
	}
	s.tables.Reset(true)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return fmt.Errorf("pgstore: catalog listener: %w", err)
		}
		s.tables.Forget(n.Payload)
	}
}
