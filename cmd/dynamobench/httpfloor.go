package main

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// The HTTP floor ("http-floor"): the least a Go server speaking DynamoDB's
// protocol over net/http can do per request on PostgreSQL. A child of
// dynamobench on the server CPUs (`dynamobench __http-floor ADDR URL`)
// reads each request with net/http, takes the key (and, for a put, the
// item) out of the body by a byte search, not a JSON parse, runs the PostgreSQL
// floor's statement for it through a pgx pool of dynamopg's default size
// (4) on the floor's tables, and writes DynamoDB's response and headers. No
// validation, expressions, catalog or retries: what remains is net/http,
// pgx and the system calls and wake-ups between the load, the server and
// PostgreSQL. dynamopg-pg against it tells how much of the gap to the
// pgbench floor any server of this shape pays, and how much is dynamopg's
// own.

// httpFloorArg is the hidden first argument that runs the floor's server.
const httpFloorArg = "__http-floor"

// httpFloorWorkloads are the workloads the floor answers.
var httpFloorWorkloads = map[string]bool{"put": true, "get": true, "update": true, "condput": true}

// The floor's statements: pgbench/*.sql's, with the key and item as
// parameters.
const (
	hfPut     = pgUpsert
	hfCondPut = `INSERT INTO t (hk, pk, sk, item, size) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (pk, sk) DO NOTHING`
	hfGet     = `SELECT item FROM t WHERE pk = $1 AND sk = 's'`
	hfUpdate  = `UPDATE t SET item = jsonb_set(item, '{n}', jsonb_build_object('N', $2::text)) WHERE pk = $1 AND sk = 's'`
)

// maybeHTTPFloor serves the HTTP floor when os.Args asks for it, and exits.
func maybeHTTPFloor() {
	if len(os.Args) != 4 || os.Args[1] != httpFloorArg {
		return
	}
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(os.Args[3])
	if err != nil {
		fatalf("%s: %v", httpFloorArg, err)
	}
	cfg.MaxConns = 4
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		fatalf("%s: %v", httpFloorArg, err)
	}
	srv := &http.Server{Addr: os.Args[2], Handler: &httpFloor{pool: pool}, ReadHeaderTimeout: 10 * time.Second}
	fatalf("%s: %v", httpFloorArg, srv.ListenAndServe())
}

type httpFloor struct {
	pool *pgxpool.Pool
	bufs sync.Pool
}

var (
	hfItemField  = []byte(`"Item":`)
	hfCondField  = []byte(`,"ConditionExpression"`)
	hfPKField    = []byte(`"pk":{"S":"`)
	hfValueField = []byte(`":n":{"N":"`)
)

// stringAfter is the string value that follows field in body ("" if none).
func stringAfter(body, field []byte) string {
	i := bytes.Index(body, field)
	if i < 0 {
		return ""
	}
	rest := body[i+len(field):]
	if j := bytes.IndexByte(rest, '"'); j >= 0 {
		return string(rest[:j])
	}
	return ""
}

func (f *httpFloor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	bp, _ := f.bufs.Get().(*[]byte)
	if bp == nil {
		b := make([]byte, 0, 4096)
		bp = &b
	}
	defer f.bufs.Put(bp)
	n := int(r.ContentLength)
	if n < 0 || n > 1<<20 {
		http.Error(w, "want a Content-Length up to 1 MiB", http.StatusBadRequest)
		return
	}
	if cap(*bp) < n {
		*bp = make([]byte, n)
	}
	body := (*bp)[:n]
	if _, err := io.ReadFull(r.Body, body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	out := []byte("{}")
	var err error
	switch target := r.Header.Get("X-Amz-Target"); target {
	case "DynamoDB_20120810.PutItem":
		i := bytes.Index(body, hfItemField)
		if i < 0 {
			http.Error(w, "no Item", http.StatusBadRequest)
			return
		}
		item, stmt := body[i+len(hfItemField):len(body)-1], hfPut
		if j := bytes.Index(item, hfCondField); j >= 0 {
			item, stmt = item[:j], hfCondPut
		}
		pk := stringAfter(item, hfPKField)
		_, err = f.pool.Exec(ctx, stmt, keyHash(pk), pk, "s", item, len(item))
	case "DynamoDB_20120810.GetItem":
		var item []byte
		err = f.pool.QueryRow(ctx, hfGet, stringAfter(body, hfPKField)).Scan(&item)
		out = append(append([]byte(`{"Item":`), item...), '}')
	case "DynamoDB_20120810.UpdateItem":
		_, err = f.pool.Exec(ctx, hfUpdate, stringAfter(body, hfPKField), stringAfter(body, hfValueField))
	case "DynamoDB_20120810.CreateTable":
		out = []byte(`{"TableDescription":{"TableName":"t","TableStatus":"ACTIVE"}}`)
	case "DynamoDB_20120810.DescribeTable":
		out = []byte(`{"Table":{"TableName":"t","TableStatus":"ACTIVE","ItemCount":0}}`)
	case "DynamoDB_20120810.BatchWriteItem":
		// The preload: the floor's tables hold its data already.
		out = []byte(`{"UnprocessedItems":{}}`)
	case "DynamoDB_20120810.ListTables":
		out = []byte(`{"TableNames":[]}`)
	default:
		http.Error(w, "the HTTP floor does not answer "+target, http.StatusBadRequest)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h["Content-Type"] = []string{"application/x-amz-json-1.0"}
	h["X-Amzn-Requestid"] = []string{strconv.FormatUint(uint64(time.Now().UnixNano()), 16)}
	h["X-Amz-Crc32"] = []string{strconv.FormatUint(uint64(crc32.ChecksumIEEE(out)), 10)}
	h["Content-Length"] = []string{strconv.Itoa(len(out))}
	w.Write(out)
}

// httpFloorTarget runs the HTTP floor on a database of the PostgreSQL
// floor's tables and data, on the server CPUs.
type httpFloorTarget struct {
	*dynamoTarget
	floor *pgFloor
}

func newHTTPFloorTarget(ctx context.Context, env *benchEnv) (target, error) {
	pg, u, f, err := newFloorDatabase(ctx, env)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		f.close()
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		f.close()
		return nil, err
	}
	p, err := startPeer(ctx, env, tHTTPFloor, addr, self, httpFloorArg, addr, u)
	if err != nil {
		f.close()
		return nil, fmt.Errorf("http floor: %w", err)
	}
	d := &dynamoTarget{name: tHTTPFloor, env: env, srv: p, db: pg.postmaster, tables: map[string]string{}}
	return &httpFloorTarget{dynamoTarget: d, floor: f}, nil
}

func (h *httpFloorTarget) prepare(ctx context.Context, w *workload) (cellFunc, error) {
	if !httpFloorWorkloads[w.name] {
		return nil, errMissing{"the HTTP floor answers put, get, update and condput"}
	}
	return h.dynamoTarget.prepare(ctx, w)
}

func (h *httpFloorTarget) close() {
	h.dynamoTarget.close()
	h.floor.close()
}
