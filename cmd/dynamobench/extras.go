package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/jackc/pgx/v5"
)

// ---- online index build ------------------------------------------------

type buildResult struct {
	Rows                   int     `json:"rows"`
	Clients                int     `json:"clients"`
	BuildSeconds           float64 `json:"build_s"`    // UpdateTable → ACTIVE, under writers
	BackfillSeconds        float64 `json:"backfill_s"` // Backfilling seen → ACTIVE, under writers
	BackfillRowsPerSec     float64 `json:"backfill_rows_per_s"`
	QuietRows              int64   `json:"quiet_rows"` // rows of the second, quiet build
	QuietBackfillSeconds   float64 `json:"quiet_backfill_s"`
	QuietRowsPerSec        float64 `json:"quiet_backfill_rows_per_s"`
	InsertSelectRowsPerSec float64 `json:"insert_select_rows_per_s"` // the index rows built from the table
	CopyRowsPerSec         float64 `json:"copy_rows_per_s"`          // the finished index rows copied
	WritesBefore           float64 `json:"put_ops_per_s_before"`
	WritesDuring           float64 `json:"put_ops_per_s_during"`
	P99BeforeMs            float64 `json:"put_p99_ms_before"`
	P99DuringMs            float64 `json:"put_p99_ms_during"`
	ErrorsDuring           int64   `json:"put_errors_during"`
	Error                  string  `json:"error,omitempty"`
}

// measureOnlineBuild loads rows into a table on dynamopg/PostgreSQL, measures
// PutItem at 16 clients (raw requests), then adds a GSI while the same
// writers run. Then, with no writers, it adds a GSI to a second table of
// as many rows (the first has grown by the writers' items) and compares
// that backfill with a plain INSERT … SELECT of its index rows: like with
// like, both statements alone on the server CPUs.
func measureOnlineBuild(ctx context.Context, env *benchEnv) (r buildResult) {
	cfg := env.cfg
	r.Rows, r.Clients = cfg.buildRows, 16
	fmt.Fprintf(os.Stderr, "== online index build (%d rows)\n", cfg.buildRows)
	pg, err := env.postgres(ctx)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	srv, err := startDynamopg(ctx, env, "postgres")
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer srv.stop()
	c := srv.client
	table := fmt.Sprintf("build_%d", time.Now().UnixNano()%1e9)
	if err := createTable(ctx, c, table, shapePlain); err != nil {
		r.Error = err.Error()
		return r
	}
	items := make([]map[string]types.AttributeValue, cfg.buildRows)
	for i := range items {
		items[i] = dynItem(fmt.Sprintf("b%07d", i), "s", gsiKey(), "g")
	}
	if err := putAll(ctx, c, table, items, 8); err != nil {
		r.Error = "load: " + err.Error()
		return r
	}
	put := rawPut2GSI(table)
	before := measureRaw(ctx, srv.addr, put, r.Clients, cfg.warmup, cfg.duration, cpuMeter{server: srv.pid, db: pg.postmaster})
	r.WritesBefore, r.P99BeforeMs = before.OpsPerSec, before.P99Ms

	// Writers run through the build; each records its latencies.
	var stopW atomic.Bool
	var errs atomic.Int64
	type sample struct {
		at  time.Time
		lat time.Duration
	}
	samples := make([][]sample, r.Clients)
	var wg sync.WaitGroup
	for w := 0; w < r.Clients; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rc := newRawConn(srv.addr, put.op)
			defer rc.close()
			for !stopW.Load() && ctx.Err() == nil {
				t0 := time.Now()
				if err := rawCall(rc, &put, w); err != nil {
					errs.Add(1)
					continue
				}
				samples[w] = append(samples[w], sample{t0, time.Since(t0)})
			}
		}(w)
	}
	time.Sleep(200 * time.Millisecond)
	startBuild := time.Now()
	errs.Store(0)
	var backfillStart, active time.Time
	backfillStart, active, err = buildIndex(ctx, c, table, "byG")
	stopW.Store(true)
	wg.Wait()
	if err != nil {
		r.Error = "build: " + err.Error()
		return r
	}
	r.BuildSeconds = active.Sub(startBuild).Seconds()
	r.BackfillSeconds = active.Sub(backfillStart).Seconds()
	var during []time.Duration
	for _, ss := range samples {
		for _, s := range ss {
			if !s.at.Before(startBuild) && s.at.Add(s.lat).Before(active) {
				during = append(during, s.lat)
			}
		}
	}
	sort.Slice(during, func(i, j int) bool { return during[i] < during[j] })
	r.WritesDuring = float64(len(during)) / r.BuildSeconds
	if len(during) > 0 {
		r.P99DuringMs = msf(during[min(len(during)-1, len(during)*99/100)])
	}
	r.ErrorsDuring = errs.Load()

	conn, err := pgx.Connect(ctx, srv.db)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer conn.Close(ctx)
	tableOf := func(name string) (id int64, ident string, err error) {
		if err := conn.QueryRow(ctx, `SELECT id FROM dynamopg.tables WHERE name = $1`, name).Scan(&id); err != nil {
			return 0, "", fmt.Errorf("table id: %w", err)
		}
		return id, pgx.Identifier{"dynamopg_data", "t_" + strconv.FormatInt(id, 10)}.Sanitize(), nil
	}
	if r.BackfillSeconds > 0 {
		// The rows there when the backfill started: all of them now, less
		// the new keys written since (maintained by the writes themselves).
		_, ident, err := tableOf(table)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		var rows int64
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+ident).Scan(&rows); err != nil {
			r.Error = err.Error()
			return r
		}
		for _, ss := range samples {
			for _, s := range ss {
				if s.at.After(backfillStart) {
					rows--
				}
			}
		}
		r.BackfillRowsPerSec = float64(rows) / r.BackfillSeconds
	}

	// The quiet build: a table of its own loaded with the same number of
	// rows, no writers, after a VACUUM (else autovacuum may start on the
	// table during the build).
	quiet := fmt.Sprintf("quiet_%d", time.Now().UnixNano()%1e9)
	if err := createTable(ctx, c, quiet, shapePlain); err != nil {
		r.Error = err.Error()
		return r
	}
	if err := putAll(ctx, c, quiet, items, 8); err != nil {
		r.Error = "load: " + err.Error()
		return r
	}
	tableID, base, err := tableOf(quiet)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if _, err := conn.Exec(ctx, `VACUUM (ANALYZE) `+base); err != nil {
		r.Error = "vacuum: " + err.Error()
		return r
	}
	quietStart, quietActive, err := buildIndex(ctx, c, quiet, "byQuiet")
	if err != nil {
		r.Error = "quiet build: " + err.Error()
		return r
	}
	var ixID int64
	if err := conn.QueryRow(ctx, `SELECT (ix->>'id')::bigint FROM dynamopg.tables, jsonb_array_elements(def->'indexes') ix WHERE id = $1 AND ix->>'name' = 'byQuiet'`, tableID).Scan(&ixID); err != nil {
		r.Error = "index id: " + err.Error()
		return r
	}
	src := pgx.Identifier{"dynamopg_data", "i_" + strconv.FormatInt(ixID, 10)}.Sanitize()
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+src).Scan(&r.QuietRows); err != nil {
		r.Error = err.Error()
		return r
	}
	r.QuietBackfillSeconds = quietActive.Sub(quietStart).Seconds()
	if r.QuietBackfillSeconds > 0 {
		r.QuietRowsPerSec = float64(r.QuietRows) / r.QuietBackfillSeconds
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE dynamopg_data.bench_copy (LIKE `+src+` INCLUDING ALL)`); err != nil {
		r.Error = "copy table: " + err.Error()
		return r
	}
	// The floor: the same index rows built from the table by one plain
	// INSERT … SELECT, with the expressions the backfill's INSERT uses (the
	// index key columns, the KeyHash, the item: the projection is ALL).
	// For reference, a copy of the finished index rows, which computes
	// nothing.
	build := `INSERT INTO dynamopg_data.bench_copy (hk, ipk, isk, pk, sk, item)
		SELECT dynamopg.key_hash(item->'g'), (item->'g')->>'S', (item->'sk')->>'S', pk, sk, item
		  FROM ` + base + ` WHERE (item->'g') ? 'S' AND (item->'sk') ? 'S'`
	if r.InsertSelectRowsPerSec, err = medianRate(ctx, conn, build, r.QuietRows); err != nil {
		r.Error = "INSERT … SELECT: " + err.Error()
		return r
	}
	if r.CopyRowsPerSec, err = medianRate(ctx, conn, `INSERT INTO dynamopg_data.bench_copy SELECT * FROM `+src, r.QuietRows); err != nil {
		r.Error = "INSERT … SELECT (copy): " + err.Error()
		return r
	}
	fmt.Fprintf(os.Stderr, "   backfill %.0f rows/s under writers (puts %.0f → %.0f ops/s); quiet %.0f rows/s, INSERT…SELECT %.0f rows/s (copy %.0f)\n",
		r.BackfillRowsPerSec, r.WritesBefore, r.WritesDuring, r.QuietRowsPerSec, r.InsertSelectRowsPerSec, r.CopyRowsPerSec)
	return r
}

// medianRate runs stmt, an INSERT into dynamopg_data.bench_copy, three times
// on an emptied table after one untimed run, and returns rows over its
// median time. A single run of about a second varies by a quarter here, and
// the first reader of fresh rows also pays for setting their hint bits.
func medianRate(ctx context.Context, conn *pgx.Conn, stmt string, rows int64) (float64, error) {
	var runs []time.Duration
	for i := 0; i < 4; i++ {
		if _, err := conn.Exec(ctx, `TRUNCATE dynamopg_data.bench_copy`); err != nil {
			return 0, err
		}
		t0 := time.Now()
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return 0, err
		}
		if i > 0 {
			runs = append(runs, time.Since(t0))
		}
	}
	slices.Sort(runs)
	return float64(rows) / runs[1].Seconds(), nil
}

// buildIndex adds a GSI named name (hash g, range sk, ALL) to table and
// polls DescribeTable every 10 ms until it is ACTIVE. It returns when the
// poll first saw Backfilling (when UpdateTable was called, if it never
// did) and when it saw ACTIVE.
func buildIndex(ctx context.Context, c *dynamodb.Client, table, name string) (backfill, active time.Time, err error) {
	start := time.Now()
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName: aws.String(table),
		// Every key attribute of the new index, the table's sk included, as
		// the service requires (and dynamopg since issue 18).
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
		},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
			IndexName:  aws.String(name),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}}},
	})
	for err == nil && ctx.Err() == nil {
		var out *dynamodb.DescribeTableOutput
		out, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			break
		}
		i := slices.IndexFunc(out.Table.GlobalSecondaryIndexes, func(g types.GlobalSecondaryIndexDescription) bool {
			return aws.ToString(g.IndexName) == name
		})
		if i < 0 {
			return backfill, active, fmt.Errorf("index %s not in DescribeTable", name)
		}
		g := out.Table.GlobalSecondaryIndexes[i]
		if backfill.IsZero() && g.Backfilling != nil && *g.Backfilling {
			backfill = time.Now()
		}
		if g.IndexStatus == types.IndexStatusActive {
			if backfill.IsZero() {
				backfill = start
			}
			return backfill, time.Now(), nil
		}
		if time.Since(start) > 10*time.Minute {
			return backfill, active, fmt.Errorf("index %s not ACTIVE after 10 minutes", name)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err == nil {
		err = ctx.Err()
	}
	return backfill, active, err
}

// ---- start-up time and idle memory -------------------------------------

type startupResult struct {
	Backend       string    `json:"backend"`
	FirstAnswerMs float64   `json:"first_answer_ms"` // the median of Runs
	RunsMs        []float64 `json:"runs_ms,omitempty"`
	IdleRSSMB     float64   `json:"idle_rss_mb"` // the median run's
	Error         string    `json:"error,omitempty"`
}

// startupRuns is how many starts measureStartup times: one start on this
// machine varies by a few tens of ms from run to run.
const startupRuns = 5

// measureStartup runs startOnce startupRuns times and reports the median
// start (with its RSS) and every start's time.
func measureStartup(ctx context.Context, env *benchEnv, backend string) startupResult {
	var runs []startupResult
	for range startupRuns {
		r := startOnce(ctx, env, backend)
		if r.Error != "" {
			return r
		}
		runs = append(runs, r)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].FirstAnswerMs < runs[j].FirstAnswerMs })
	r := runs[len(runs)/2]
	r.RunsMs = nil
	for _, x := range runs {
		r.RunsMs = append(r.RunsMs, math.Round(x.FirstAnswerMs))
	}
	fmt.Fprintf(os.Stderr, "== start-up %s: median %.0f ms of %v, RSS %.1f MB\n", backend, r.FirstAnswerMs, r.RunsMs, r.IdleRSSMB)
	return r
}

// startOnce starts the binary on a fresh database and times the first 200
// from /health (polled every millisecond), then reads its RSS after a
// second idle.
func startOnce(ctx context.Context, env *benchEnv, backend string) (r startupResult) {
	r.Backend = backend
	bin, err := env.binary()
	if err != nil {
		r.Error = err.Error()
		return r
	}
	var db string
	if backend == "postgres" {
		if db, err = env.newPGDatabase(ctx); err != nil {
			r.Error = err.Error()
			return r
		}
	} else {
		dir, err := os.MkdirTemp("", "dynamobench-start-")
		if err != nil {
			r.Error = err.Error()
			return r
		}
		defer os.RemoveAll(dir)
		db = "sqlite:" + filepath.Join(dir, "start.db")
	}
	addr, err := freeAddr()
	if err != nil {
		r.Error = err.Error()
		return r
	}
	cmd := pinnedCommand(env.serverCPUs, bin, "serve", "--listen", addr, "--db", db, "--log-level", "warn")
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		r.Error = err.Error()
		return r
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	hc := &http.Client{Timeout: time.Second}
	for {
		resp, err := hc.Get("http://" + addr + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				r.FirstAnswerMs = msf(time.Since(t0))
				break
			}
		}
		if time.Since(t0) > 20*time.Second {
			r.Error = "no answer within 20 s"
			return r
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(time.Second)
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		r.Error = err.Error()
		return r
	}
	for _, line := range strings.Split(string(st), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			r.IdleRSSMB = kb / 1024
		}
	}
	return r
}
