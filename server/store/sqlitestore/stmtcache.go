package sqlitestore

import (
	"container/list"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"
)

// Prepared statements per connection. database/sql's driver connection
// (modernc's, mattn's) prepares and finalizes a statement at every Exec or Query given SQL text, which was
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
// prepared statements. Each new connection runs pragmas (the text after
// PRAGMA: "busy_timeout = 5000") in order before its first use: the
// drivers spell pragmas in a DSN differently (driver_*.go), SQL is the
// same in both.
func openDB(dsn string, pragmas ...string) (*sql.DB, error) {
	c, err := newConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(cachingConnector{inner: c, pragmas: pragmas}), nil
}

// cachingConnector wraps the driver's connector.
type cachingConnector struct {
	inner   driver.Connector
	pragmas []string
}

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
	for _, p := range c.pragmas {
		if _, err := sc.ExecContext(ctx, "PRAGMA "+p, nil); err != nil {
			conn.Close()
			return nil, fmt.Errorf("sqlitestore: PRAGMA %s: %w", p, err)
		}
	}
	return &cachedConn{sqliteConn: sc, byText: map[string]*list.Element{}}, nil
}

func (c cachingConnector) Driver() driver.Driver { return c.inner.Driver() }

// sqliteConn is what both drivers' connections implement and database/sql
// uses. modernc's also resets sessions and validates itself (cachedConn
// passes those on); mattn's does not.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
}

// ResetSession passes database/sql's reset to the driver, if it has one.
func (c *cachedConn) ResetSession(ctx context.Context) error {
	if r, ok := c.sqliteConn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// IsValid asks the driver, if it can answer.
func (c *cachedConn) IsValid() bool {
	if v, ok := c.sqliteConn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// cachedStmt is one prepared statement of a connection.
type cachedStmt struct {
	text string
	st   cachedDriverStmt
	busy bool // a query's rows are open on it
}

// cachedDriverStmt is what both drivers' statements implement.
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
// first use. nil (and no error) when it is busy or query holds more than
// one statement (a migration, a table's DDL): the caller then runs query
// the uncached way, where the driver runs every statement of the text
// (mattn's prepared statement is the first one only).
func (c *cachedConn) stmt(ctx context.Context, query string) (*cachedStmt, error) {
	if e, ok := c.byText[query]; ok {
		cs := e.Value.(*cachedStmt)
		if cs.busy {
			return nil, nil
		}
		c.lru.MoveToFront(e)
		return cs, nil
	}
	if multiStatement(query) {
		return nil, nil
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

// cachedRows releases its statement when closed (both drivers reset it).
type cachedRows struct {
	driver.Rows
	cs *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	r.cs.busy = false
	return err
}

// multiStatement reports whether text has anything but blanks and
// comments after its first semicolon outside quotes and comments. A
// trigger's body (semicolons inside one statement) counts as several,
// which only costs it the cache.
func multiStatement(text string) bool {
	end := false // past the first statement
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			j := strings.Index(text[i+2:], "*/")
			if j < 0 {
				return end
			}
			i += j + 3
		case end && c == ';', c == ' ', c == '\t', c == '\n', c == '\r':
		case end:
			return true
		case c == ';':
			end = true
		case c == '\'' || c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			j := strings.IndexByte(text[i+1:], closer)
			if j < 0 {
				return false
			}
			i += j + 1 // a doubled quote is two quoted strings here: the same answer
		}
	}
	return false
}
