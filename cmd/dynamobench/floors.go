package main

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite"
)

// keyHash stands in for dynamopg's hk (scan order) column.
func keyHash(pk string) int64 {
	h := fnv.New64a()
	h.Write([]byte(pk))
	return int64(h.Sum64())
}

// ---- PostgreSQL floor --------------------------------------------------

// pgFloor is the PostgreSQL floor's database: tables of dynamopg's
// data-table shape (hk, pk, sk COLLATE "C", item jsonb, size; its
// indexes), preloaded with the data the DynamoDB targets get. pgbench
// (pgbench.go) issues the row operations.
type pgFloor struct{ pool *pgxpool.Pool }

const pgSchema = `
CREATE TABLE t (hk bigint NOT NULL, pk text COLLATE "C" NOT NULL, sk text COLLATE "C" NOT NULL,
  item jsonb NOT NULL, size int NOT NULL, PRIMARY KEY (pk, sk)) WITH (fillfactor = 90);
CREATE INDEX t_scan ON t (hk, pk, sk);
-- gsi1: the covering index table of byG (index key, then table key).
CREATE TABLE x1 (hk bigint NOT NULL, g text COLLATE "C" NOT NULL, sk text COLLATE "C" NOT NULL,
  pk text COLLATE "C" NOT NULL, item jsonb NOT NULL, PRIMARY KEY (g, sk, pk));
CREATE INDEX x1_scan ON x1 (hk, g, sk, pk);
CREATE INDEX x1_base ON x1 (pk, sk);
-- gsi2: a base table and two covering index tables.
CREATE TABLE t2 (LIKE t INCLUDING ALL);
CREATE TABLE x2a (LIKE x1 INCLUDING ALL);
CREATE TABLE x2b (LIKE x1 INCLUDING ALL);
`

const (
	pgUpsert = `INSERT INTO t (hk, pk, sk, item, size) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (pk, sk) DO UPDATE SET item = excluded.item, size = excluded.size`
)

func newPGFloor(ctx context.Context, url string, conns int) (*pgFloor, error) {
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	pc.MaxConns = int32(conns)
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, err
	}
	f := &pgFloor{pool: pool}
	if _, err := pool.Exec(ctx, pgSchema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgx floor schema: %w", err)
	}
	// Preload the same data the DynamoDB targets get, in one statement each.
	b := &pgx.Batch{}
	for i := 0; i < getKeys; i++ {
		pk := fmt.Sprintf("k%04d", i)
		b.Queue(pgUpsert, keyHash(pk), pk, "s", jsonItem(pk, "s", "g", "g"), 1100)
	}
	for p := 0; p < queryParts; p++ {
		pk := fmt.Sprintf("q%03d", p)
		for s := 0; s < queryPartSize; s++ {
			sk := fmt.Sprintf("s%02d", s)
			b.Queue(pgUpsert, keyHash(pk), pk, sk, jsonItem(pk, sk, "g", "g"), 1100)
		}
	}
	for g := 0; g < gsiGroups; g++ {
		gk := fmt.Sprintf("g%03d", g)
		for i := 0; i < 10; i++ {
			pk := fmt.Sprintf("x%03d%02d", g, i)
			b.Queue(`INSERT INTO x1 (hk, g, sk, pk, item) VALUES ($1, $2, $3, $4, $5)`, keyHash(gk), gk, "s", pk, jsonItem(pk, "s", gk, "g"))
		}
	}
	if err := pool.SendBatch(ctx, b).Close(); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgx floor preload: %w", err)
	}
	if _, err := pool.Exec(ctx, "ANALYZE"); err != nil {
		pool.Close()
		return nil, err
	}
	return f, nil
}

func (f *pgFloor) close() { f.pool.Close() }

// newFloorDatabase makes a fresh database of the run's cluster with the
// floor's tables and data: what pgbench and the HTTP floor run on.
func newFloorDatabase(ctx context.Context, env *benchEnv) (pg *pgServer, url string, f *pgFloor, err error) {
	if pg, err = env.postgres(ctx); err != nil {
		return nil, "", nil, err
	}
	if url, err = env.newPGDatabase(ctx); err != nil {
		return nil, "", nil, err
	}
	if f, err = newPGFloor(ctx, url, 4); err != nil {
		return nil, "", nil, err
	}
	return pg, url, f, nil
}

// ---- SQLite floor ------------------------------------------------------

// sqliteFloor issues the row operations to SQLite (modernc) the way
// dynamopg's sqlitestore opens it: WAL, synchronous=NORMAL, one writer
// connection (BEGIN IMMEDIATE), a pool of query_only readers; tables of the
// same shape (rowid tables, BLOB keys).
type sqliteFloor struct {
	writer, reader *sql.DB
	stmts          map[string]*sql.Stmt
}

const sqliteSchema = `
CREATE TABLE t (hk INTEGER NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, item BLOB NOT NULL,
  size INTEGER NOT NULL, PRIMARY KEY (pk, sk));
CREATE INDEX t_scan ON t (hk, pk, sk);
CREATE TABLE x1 (hk INTEGER NOT NULL, ipk BLOB NOT NULL, isk BLOB NOT NULL, pk BLOB NOT NULL,
  sk BLOB NOT NULL, item BLOB NOT NULL, PRIMARY KEY (ipk, isk, pk, sk));
CREATE INDEX x1_base ON x1 (pk, sk);
CREATE INDEX x1_scan ON x1 (hk, ipk, isk, pk, sk);
CREATE TABLE t2 (hk INTEGER NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, item BLOB NOT NULL,
  size INTEGER NOT NULL, PRIMARY KEY (pk, sk));
CREATE INDEX t2_scan ON t2 (hk, pk, sk);
CREATE TABLE x2a (hk INTEGER NOT NULL, ipk BLOB NOT NULL, isk BLOB NOT NULL, pk BLOB NOT NULL,
  sk BLOB NOT NULL, item BLOB NOT NULL, PRIMARY KEY (ipk, isk, pk, sk));
CREATE INDEX x2a_base ON x2a (pk, sk);
CREATE INDEX x2a_scan ON x2a (hk, ipk, isk, pk, sk);
CREATE TABLE x2b (hk INTEGER NOT NULL, ipk BLOB NOT NULL, isk BLOB NOT NULL, pk BLOB NOT NULL,
  sk BLOB NOT NULL, item BLOB NOT NULL, PRIMARY KEY (ipk, isk, pk, sk));
CREATE INDEX x2b_base ON x2b (pk, sk);
CREATE INDEX x2b_scan ON x2b (hk, ipk, isk, pk, sk);
`

var sqliteStmts = map[string]string{
	"upsert":  `INSERT INTO t (hk, pk, sk, item, size) VALUES (?, ?, ?, ?, ?) ON CONFLICT (pk, sk) DO UPDATE SET item = excluded.item, size = excluded.size`,
	"new":     `INSERT INTO t (hk, pk, sk, item, size) VALUES (?, ?, ?, ?, ?) ON CONFLICT (pk, sk) DO NOTHING`,
	"update":  `UPDATE t SET item = json_set(item, '$.n', json_object('N', ?)) WHERE pk = ? AND sk = ?`,
	"upsert2": `INSERT INTO t2 (hk, pk, sk, item, size) VALUES (?, ?, ?, ?, ?) ON CONFLICT (pk, sk) DO UPDATE SET item = excluded.item, size = excluded.size`,
	"indexA":  `INSERT INTO x2a (hk, ipk, isk, pk, sk, item) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET item = excluded.item`,
	"indexB":  `INSERT INTO x2b (hk, ipk, isk, pk, sk, item) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET item = excluded.item`,
	"index1":  `INSERT INTO x1 (hk, ipk, isk, pk, sk, item) VALUES (?, ?, ?, ?, ?, ?)`,
}

var sqliteReadStmts = map[string]string{
	"get":      `SELECT item FROM t WHERE pk = ? AND sk = ?`,
	"query":    `SELECT item FROM t WHERE pk = ? ORDER BY sk`,
	"queryGSI": `SELECT item FROM x1 WHERE ipk = ? ORDER BY isk, pk, sk`,
}

func newSQLiteFloor(ctx context.Context, dir string, readers int) (*sqliteFloor, error) {
	path := filepath.Join(dir, "floor.db")
	writer, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)&_txlock=immediate&_pragma=journal_mode(WAL)")
	if err != nil {
		return nil, err
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	f := &sqliteFloor{writer: writer, stmts: map[string]*sql.Stmt{}}
	if _, err := writer.ExecContext(ctx, sqliteSchema); err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlite floor schema: %w", err)
	}
	reader, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=query_only(1)")
	if err != nil {
		writer.Close()
		return nil, err
	}
	reader.SetMaxOpenConns(readers)
	reader.SetMaxIdleConns(readers)
	f.reader = reader
	for name, q := range sqliteStmts {
		if f.stmts[name], err = writer.PrepareContext(ctx, q); err != nil {
			f.close()
			return nil, fmt.Errorf("prepare %s: %w", name, err)
		}
	}
	for name, q := range sqliteReadStmts {
		if f.stmts[name], err = reader.PrepareContext(ctx, q); err != nil {
			f.close()
			return nil, fmt.Errorf("prepare %s: %w", name, err)
		}
	}
	tx, err := writer.BeginTx(ctx, nil)
	if err != nil {
		f.close()
		return nil, err
	}
	up, ix := tx.Stmt(f.stmts["upsert"]), tx.Stmt(f.stmts["index1"])
	for i := 0; i < getKeys && err == nil; i++ {
		pk := fmt.Sprintf("k%04d", i)
		_, err = up.ExecContext(ctx, keyHash(pk), []byte(pk), []byte("s"), []byte(jsonItem(pk, "s", "g", "g")), 1100)
	}
	for p := 0; p < queryParts && err == nil; p++ {
		pk := fmt.Sprintf("q%03d", p)
		for s := 0; s < queryPartSize && err == nil; s++ {
			sk := fmt.Sprintf("s%02d", s)
			_, err = up.ExecContext(ctx, keyHash(pk), []byte(pk), []byte(sk), []byte(jsonItem(pk, sk, "g", "g")), 1100)
		}
	}
	for g := 0; g < gsiGroups && err == nil; g++ {
		gk := fmt.Sprintf("g%03d", g)
		for i := 0; i < 10 && err == nil; i++ {
			pk := fmt.Sprintf("x%03d%02d", g, i)
			_, err = ix.ExecContext(ctx, keyHash(gk), []byte(gk), []byte("s"), []byte(pk), []byte("s"), []byte(jsonItem(pk, "s", gk, "g")))
		}
	}
	if err == nil {
		err = tx.Commit()
	} else {
		tx.Rollback()
	}
	if err != nil {
		f.close()
		return nil, fmt.Errorf("sqlite floor preload: %w", err)
	}
	return f, nil
}

func (f *sqliteFloor) close() {
	for _, s := range f.stmts {
		s.Close()
	}
	if f.reader != nil {
		f.reader.Close()
	}
	f.writer.Close()
}

func (f *sqliteFloor) put(ctx context.Context, _ int) error {
	pk := newKey()
	_, err := f.stmts["upsert"].ExecContext(ctx, keyHash(pk), []byte(pk), []byte("s"), []byte(jsonItem(pk, "s", "g", "g")), 1100)
	return err
}

func (f *sqliteFloor) condPut(ctx context.Context, _ int) error {
	pk := newKey()
	res, err := f.stmts["new"].ExecContext(ctx, keyHash(pk), []byte(pk), []byte("s"), []byte(jsonItem(pk, "s", "g", "g")), 1100)
	if err == nil {
		if n, _ := res.RowsAffected(); n != 1 {
			err = fmt.Errorf("conditional insert wrote nothing")
		}
	}
	return err
}

func (f *sqliteFloor) get(ctx context.Context, _ int) error {
	var item []byte
	return f.stmts["get"].QueryRowContext(ctx, []byte(getKey()), []byte("s")).Scan(&item)
}

func (f *sqliteFloor) update(ctx context.Context, _ int) error {
	res, err := f.stmts["update"].ExecContext(ctx, strconv.Itoa(rand.IntN(1e6)), []byte(getKey()), []byte("s"))
	if err == nil {
		if n, _ := res.RowsAffected(); n != 1 {
			err = fmt.Errorf("update wrote nothing")
		}
	}
	return err
}

func (f *sqliteFloor) queryRows(ctx context.Context, stmt, key string, want int) error {
	rows, err := f.stmts[stmt].QueryContext(ctx, []byte(key))
	if err != nil {
		return err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var item []byte
		if err := rows.Scan(&item); err != nil {
			return err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n != want {
		return fmt.Errorf("query returned %d rows", n)
	}
	return nil
}

func (f *sqliteFloor) query(ctx context.Context, _ int) error {
	return f.queryRows(ctx, "query", queryKey(), queryPartSize)
}

func (f *sqliteFloor) queryGSI(ctx context.Context, _ int) error {
	return f.queryRows(ctx, "queryGSI", gsiKey(), 10)
}

// inTx runs fn in one writer transaction.
func (f *sqliteFloor) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := f.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

func (f *sqliteFloor) batch(n int) opFunc {
	return func(ctx context.Context, _ int) error {
		return f.inTx(ctx, func(tx *sql.Tx) error {
			st := tx.Stmt(f.stmts["upsert"])
			for i := 0; i < n; i++ {
				pk := newKey()
				if _, err := st.ExecContext(ctx, keyHash(pk), []byte(pk), []byte("s"), []byte(jsonItem(pk, "s", "g", "g")), 1100); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

func (f *sqliteFloor) put2GSI(ctx context.Context, _ int) error {
	pk, g, g2 := newKey(), gsiKey(), gsiKey()
	item := []byte(jsonItem(pk, "s", g, g2))
	return f.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Stmt(f.stmts["upsert2"]).ExecContext(ctx, keyHash(pk), []byte(pk), []byte("s"), item, 1100); err != nil {
			return err
		}
		if _, err := tx.Stmt(f.stmts["indexA"]).ExecContext(ctx, keyHash(g), []byte(g), []byte("s"), []byte(pk), []byte("s"), item); err != nil {
			return err
		}
		_, err := tx.Stmt(f.stmts["indexB"]).ExecContext(ctx, keyHash(g2), []byte(g2), []byte("s"), []byte(pk), []byte("s"), item)
		return err
	})
}
