package sqlitestore

import (
	"container/list"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"modernc.org/sqlite"
)

// Prepared statements per connection. modernc's connection prepares and
// finalizes a statement at every Exec or Query given SQL text, which was
// about an eighth of a PutItem's CPU (sqlite3_prepare_v2). Every
// connection the store opens (openDB) is therefore wrapped in a cachedConn
// that keeps the statements it prepared, by text, and runs each one again
// (reset and rebound) at the next Exec or Query of the same text. The
// store's SQL stays where it is (sql/queries through sqlc, sql/storage.sql
// through template.go) and is called as before: the cache is below
// database/sql, one per connection, so it needs no lock (database/sql never
// uses one connection from two goroutines at once).
//
// A statement is SQLite's own prepared statement (prepare_v2), which SQLite
// re-prepares by itself when the schema changed since; one whose table was
// dropped fails with "no such table" exactly as a freshly prepared one
// would. A query statement is busy until its rows are closed: a second
// query of the same text meanwhile (a nested cursor) gets a statement of
// its own, prepared for that call only.

// stmtCacheSize bounds the statements kept per connection; the least
// recently used one is finalized beyond it. A table's hot statements are
// a handful (item_get, item_put, index rows, the version check), so this
// keeps those of a few dozen busy tables.
const stmtCacheSize = 256

// openDB opens a database/sql handle on dsn whose connections keep their
// prepared statements.
func openDB(dsn string) (*sql.DB, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(cachingConnector{c}), nil
}

// cachingConnector wraps modernc's connector.
type cachingConnector struct{ inner driver.Connector }

func (c cachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(sqliteConn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("sqlitestore: driver connection %T lacks the methods the statement cache needs", conn)
	}
	return &cachedConn{sqliteConn: sc, byText: map[string]*list.Element{}}, nil
}

func (c cachingConnector) Driver() driver.Driver { return c.inner.Driver() }

// sqliteConn is what modernc's connection implements and database/sql uses.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// cachedStmt is one prepared statement of a connection.
type cachedStmt struct {
	text string
	st   cachedDriverStmt
	busy bool // a query's rows are open on it
}

// cachedDriverStmt is what modernc's statement implements.
type cachedDriverStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// cachedConn is a connection with its statements, most recently used first.
type cachedConn struct {
	sqliteConn
	lru    list.List // of *cachedStmt
	byText map[string]*list.Element
}

// stmt returns the connection's statement for query, preparing it on
// first use. nil (and no error) when it is busy: the caller then runs
// query the uncached way.
func (c *cachedConn) stmt(ctx context.Context, query string) (*cachedStmt, error) {
	if e, ok := c.byText[query]; ok {
		cs := e.Value.(*cachedStmt)
		if cs.busy {
			return nil, nil
		}
		c.lru.MoveToFront(e)
		return cs, nil
	}
	ds, err := c.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	st, ok := ds.(cachedDriverStmt)
	if !ok {
		ds.Close()
		return nil, nil
	}
	cs := &cachedStmt{text: query, st: st}
	c.byText[query] = c.lru.PushFront(cs)
	c.evict()
	return cs, nil
}

// evict finalizes the least recently used statements beyond the bound,
// skipping busy ones (their rows close them later).
func (c *cachedConn) evict() {
	for e := c.lru.Back(); e != nil && c.lru.Len() > stmtCacheSize; {
		prev := e.Prev()
		if cs := e.Value.(*cachedStmt); !cs.busy {
			c.lru.Remove(e)
			delete(c.byText, cs.text)
			cs.st.Close()
		}
		e = prev
	}
}

// ExecContext runs query on its cached statement.
func (c *cachedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.sqliteConn.ExecContext(ctx, query, args)
	}
	return cs.st.ExecContext(ctx, args)
}

// QueryContext runs query on its cached statement, busy until the rows
// are closed.
func (c *cachedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.sqliteConn.QueryContext(ctx, query, args)
	}
	rows, err := cs.st.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	cs.busy = true
	return &cachedRows{Rows: rows, cs: cs}, nil
}

// Close finalizes the connection's statements and closes it.
func (c *cachedConn) Close() error {
	for e := c.lru.Front(); e != nil; e = e.Next() {
		e.Value.(*cachedStmt).st.Close()
	}
	c.lru.Init()
	c.byText = nil
	return c.sqliteConn.Close()
}

// cachedRows releases its statement when closed (modernc resets it).
type cachedRows struct {
	driver.Rows
	cs *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.cs.busy = false
	return err
}
