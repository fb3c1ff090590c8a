package pgstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/gen"
)

// buildSnap is the backfill's snapshot: a connection of its own holding
// one REPEATABLE READ READ ONLY transaction, begun after the catalog
// barrier, in which the builder reads the keys of each page
// (dynamopg.index_build_keys_sql). A row not in that snapshot was written
// by a transaction that read the catalog with the index CREATING, which
// maintained the index itself; so the pages hold the rows that were there
// when the backfill began and no others, and the backfill ends however
// fast writers add rows (before, it walked and rewrote every row added
// ahead of its position: under 16 writers 120,000 rows for a table of
// 20,000). Each page then locks and writes the current state of its rows
// on the build's own connection, in a READ COMMITTED transaction.
//
// The transaction reads only the table's data table (the statement texts
// come from the build's connection), so it holds no lock on
// dynamopg.tables that another build's catalog barrier would wait for. Like
// any open snapshot it holds back vacuum's horizon while the backfill runs.
type buildSnap struct {
	conn        *pgx.Conn // nil once closed
	first, next string
}

// buildSnapshot opens the snapshot connection and its transaction, and
// takes the snapshot with the first statement (REPEATABLE READ takes it
// there, not at BEGIN).
func (s *Store) buildSnapshot(ctx context.Context, tableID int64) (*buildSnap, error) {
	texts, err := s.q.BuildKeysSQL(ctx, s.pool, gen.BuildKeysSQLParams{TableID: tableID})
	if err != nil {
		return nil, err
	}
	if texts.FirstSql == "" {
		return nil, errBuildGone
	}
	conn, err := s.buildConnect(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	if _, err := conn.Exec(ctx, "SELECT 1"); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return &buildSnap{conn: conn, first: texts.FirstSql, next: texts.NextSql}, nil
}

// keys reads the keys of the page after the key after (nil: the first
// page), at most size of them, as a JSON array; more is false when the
// page is the snapshot's last.
func (b *buildSnap) keys(ctx context.Context, after []byte, size int32) (keys []byte, more bool, err error) {
	var row pgx.Row
	if after == nil {
		row = b.conn.QueryRow(ctx, b.first, size)
	} else {
		row = b.conn.QueryRow(ctx, b.next, size, after)
	}
	if err := row.Scan(&keys); err != nil {
		return nil, false, err
	}
	var list []json.RawMessage
	if err := json.Unmarshal(keys, &list); err != nil {
		return nil, false, buildPermanent{fmt.Errorf("page keys: %w", err)}
	}
	return keys, len(list) == int(size), nil
}

// close ends the snapshot's transaction and connection; a second call
// does nothing.
func (b *buildSnap) close(ctx context.Context) {
	if b.conn != nil {
		b.conn.Close(context.WithoutCancel(ctx))
		b.conn = nil
	}
}
