package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

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
	ahead       [][]byte // pages read and not yet returned, in key order
	end         bool     // the last read reached the snapshot's last key
}

// buildPagesAhead is how many pages' keys one read of the snapshot
// returns. One statement per page cost a quiet backfill a round trip and a
// statement's fixed cost per page (77 reads, 36 ms of PostgreSQL's time in
// a 500 ms backfill of 20,000 rows); the snapshot does not change, so keys
// read early are the same keys.
const buildPagesAhead = 8

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

// keys returns the keys of the page after the key after (nil: the first
// page), at most size of them, as a JSON array; more is false when the
// page is the snapshot's last. Pages come from reads of buildPagesAhead
// pages at a time; after must be the last key of the page returned before
// (or the resume key for the first call), as the build loop passes it.
func (b *buildSnap) keys(ctx context.Context, after []byte, size int32) (keys []byte, more bool, err error) {
	if len(b.ahead) == 0 {
		if b.end {
			return []byte("[]"), false, nil
		}
		if err := b.read(ctx, after, size); err != nil {
			return nil, false, err
		}
	}
	keys, b.ahead = b.ahead[0], b.ahead[1:]
	return keys, len(b.ahead) > 0 || !b.end, nil
}

// read fetches the keys of the next buildPagesAhead pages after the key
// after into b.ahead, cut into pages of size keys.
func (b *buildSnap) read(ctx context.Context, after []byte, size int32) error {
	limit := int32(min(int64(size)*buildPagesAhead, math.MaxInt32)) // a huge build_page_size must not wrap
	var row pgx.Row
	if after == nil {
		row = b.conn.QueryRow(ctx, b.first, limit)
	} else {
		row = b.conn.QueryRow(ctx, b.next, limit, after)
	}
	var all []byte
	if err := row.Scan(&all); err != nil {
		return err
	}
	var list []json.RawMessage
	if err := json.Unmarshal(all, &list); err != nil {
		return buildPermanent{fmt.Errorf("page keys: %w", err)}
	}
	b.end = len(list) < int(limit)
	if len(list) == 0 {
		b.ahead = append(b.ahead, []byte("[]"))
		return nil
	}
	for len(list) > 0 {
		n := min(len(list), int(size))
		page, err := json.Marshal(list[:n])
		if err != nil {
			return buildPermanent{fmt.Errorf("page keys: %w", err)}
		}
		b.ahead = append(b.ahead, page)
		list = list[n:]
	}
	return nil
}

// close ends the snapshot's transaction and connection; a second call
// does nothing.
func (b *buildSnap) close(ctx context.Context) {
	if b.conn != nil {
		b.conn.Close(context.WithoutCancel(ctx))
		b.conn = nil
	}
}
