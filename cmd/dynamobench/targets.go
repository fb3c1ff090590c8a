package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/sdkhttp"
)

const (
	tDynPG     = "dynamopg-pg"
	tDynSQLite = "dynamopg-sqlite"
	tPgbench   = "pgbench"
	tSQLite    = "sqlite"
	tDynalite  = "dynalite"
	tMoto      = "moto"
	// tHTTPFloor is net/http and pgx running the floor's statements
	// (httpfloor.go).
	tHTTPFloor = "http-floor"
	// tExternal is a server started by hand (-external-url), e.g. under
	// valgrind or perf; not part of "all".
	tExternal = "external"
)

var allTargets = []string{tDynPG, tDynSQLite, tPgbench, tHTTPFloor, tSQLite, tDynalite, tMoto}

// floorOf is the floor each dynamopg target is divided by.
var floorOf = map[string]string{tDynPG: tPgbench, tDynSQLite: tSQLite}

// target is one system under test.
type target interface {
	// prepare makes workload w's tables and data ready and returns what
	// measures one cell of it.
	prepare(ctx context.Context, w *workload) (cellFunc, error)
	close()
}

// cellFunc measures one cell: clients at once, a warm-up, dur timed.
type cellFunc func(ctx context.Context, clients int, warmup, dur time.Duration) cell

// errMissing marks a target that cannot run here (a peer not installed).
type errMissing struct{ why string }

func (e errMissing) Error() string { return "missing: " + e.why }

// ---- a fake testing.TB, so the harness can start servers here ----------

type benchTB struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
}

type tbFatal string

func (t *benchTB) Helper()                        {}
func (t *benchTB) Name() string                   { return "dynamobench" }
func (t *benchTB) Logf(format string, a ...any)   { fmt.Fprintf(os.Stderr, format+"\n", a...) }
func (t *benchTB) Errorf(format string, a ...any) { t.Fatalf(format, a...) }
func (t *benchTB) Fatalf(format string, a ...any) { panic(tbFatal(fmt.Sprintf(format, a...))) }
func (t *benchTB) Fatal(a ...any)                 { panic(tbFatal(fmt.Sprint(a...))) }
func (t *benchTB) Skipf(format string, a ...any)  { t.Fatalf(format, a...) }
func (t *benchTB) Failed() bool                   { return false }
func (t *benchTB) Cleanup(f func())               { t.mu.Lock(); t.cleanups = append(t.cleanups, f); t.mu.Unlock() }
func (t *benchTB) TempDir() string {
	d, _ := os.MkdirTemp("", "dynamobench-")
	atExit(func() { os.RemoveAll(d) })
	return d
}
func (t *benchTB) Setenv(key, value string) { os.Setenv(key, value) }
func (t *benchTB) Context() context.Context { return context.Background() }
func (t *benchTB) Log(a ...any)             { fmt.Fprintln(os.Stderr, a...) }
func (t *benchTB) Error(a ...any)           { t.Fatal(a...) }
func (t *benchTB) Skip(a ...any)            { t.Fatal(a...) }
func (t *benchTB) SkipNow()                 { t.Fatal("skip") }
func (t *benchTB) FailNow()                 { t.Fatal("fail") }
func (t *benchTB) Fail()                    {}
func (t *benchTB) runCleanups() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	t.cleanups = nil
}

// withTB runs f with a benchTB, turning its Fatal into an error.
func withTB(f func(tb *benchTB)) (tb *benchTB, err error) {
	tb = &benchTB{}
	defer func() {
		if r := recover(); r != nil {
			msg, ok := r.(tbFatal)
			if !ok {
				panic(r)
			}
			tb.runCleanups()
			err = errors.New(string(msg))
		}
	}()
	f(tb)
	return tb, nil
}

// ---- DynamoDB-protocol targets -----------------------------------------

// newClient returns an SDK client with a connection pool large enough for
// every benchmark client (the default keeps 2 idle connections per host)
// and no retries, so that errors are counted, not hidden.
func newClient(url string) *dynamodb.Client {
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        512,
		MaxIdleConnsPerHost: 512,
		IdleConnTimeout:     90 * time.Second,
	}
	return dynamodb.New(dynamodb.Options{
		Region:           "us-east-1",
		Credentials:      credentials.NewStaticCredentialsProvider("AKIDBENCH", "secret", ""),
		BaseEndpoint:     aws.String(url),
		HTTPClient:       &http.Client{Transport: sdkhttp.Wrap(tr), Timeout: 60 * time.Second},
		RetryMaxAttempts: 1,
	})
}

// dynamoTarget is any DynamoDB endpoint: dynamopg, dynalite, moto. The
// figure of a cell is the load generator's (raw HTTP); the SDK runs each
// workload briefly afterwards as a check of the responses (sdkCheck).
type dynamoTarget struct {
	name string
	env  *benchEnv
	// start starts the server for a mode ("" or "async"); nil for a peer,
	// which has one server (srv) and no async mode.
	start  func(ctx context.Context, mode string) (*proc, error)
	srv    *proc
	mode   string
	db     int               // the postmaster's PID (dynamopg on PostgreSQL)
	tables map[string]string // shape (+mode) → table name
}

func (d *dynamoTarget) close() {
	if d.srv != nil {
		d.srv.stop()
		d.srv = nil
	}
}

// server returns the running server for w, starting (and stopping the
// other) when w wants the other mode: an idle server's background work
// would otherwise run on the server CPUs during the cell.
func (d *dynamoTarget) server(ctx context.Context, w *workload) (*proc, error) {
	mode := ""
	if w.async {
		mode = "async"
	}
	if d.start == nil {
		if mode != "" {
			return nil, errMissing{"no async index mode"}
		}
		return d.srv, nil
	}
	if d.srv != nil && d.mode == mode {
		return d.srv, nil
	}
	d.close()
	for k := range d.tables { // a new server has a new database
		delete(d.tables, k)
	}
	srv, err := d.start(ctx, mode)
	if err != nil {
		return nil, err
	}
	d.srv, d.mode = srv, mode
	return srv, nil
}

func (d *dynamoTarget) table(ctx context.Context, w *workload) (*proc, string, error) {
	srv, err := d.server(ctx, w)
	if err != nil {
		return nil, "", err
	}
	key := w.shape + "-" + d.mode
	table, ok := d.tables[key]
	if !ok {
		table = fmt.Sprintf("bench_%s_%d", w.shape, time.Now().UnixNano()%1e9)
		if err := createTable(ctx, srv.client, table, w.shape); err != nil {
			return nil, "", fmt.Errorf("create table: %w", err)
		}
		if err := preload(ctx, srv.client, table, w.shape); err != nil {
			return nil, "", fmt.Errorf("preload: %w", err)
		}
		d.tables[key] = table
	}
	return srv, table, nil
}

func (d *dynamoTarget) prepare(ctx context.Context, w *workload) (cellFunc, error) {
	srv, table, err := d.table(ctx, w)
	if err != nil {
		return nil, err
	}
	op := w.raw(table)
	meter := cpuMeter{server: srv.pid, db: d.db}
	return func(ctx context.Context, clients int, warmup, dur time.Duration) cell {
		var prof func() string
		if d.env.cfg.pprofDir != "" && srv.pprof != "" && clients == d.env.cfg.pprofClients {
			prof = d.env.profile(ctx, srv, d.name, w.name, warmup, dur)
		}
		var cg func() (int64, error)
		if d.env.cfg.callgrind && srv.pid > 0 && (d.name == tExternal || d.start != nil) {
			cg = callgrindWindow(ctx, srv.pid, window{time.Now().Add(warmup), time.Now().Add(warmup + dur)})
		}
		c := measureRaw(ctx, srv.addr, op, clients, warmup, dur, meter)
		if cg != nil {
			if ir, err := cg(); err != nil {
				fmt.Fprintf(os.Stderr, "   callgrind: %v\n", err)
			} else if c.Ops > 0 {
				c.InstructionsPerOp = ir / c.Ops
			}
		}
		if prof != nil {
			if path := prof(); path != "" {
				c.ProfileFile = path
				shares, err := profBreakdown(path)
				if err != nil {
					fmt.Fprintf(os.Stderr, "   pprof: %v\n", err)
				}
				c.Profile = shares
			}
		}
		return c
	}, nil
}

// sdkCheck runs w through the AWS SDK (sdkCheckOps calls, 4 at a time) and
// reports the first error: the responses the load generator only glances
// at, decoded and validated by a real client. After put it also reads back,
// through the SDK, an item the load generator wrote.
func (d *dynamoTarget) sdkCheck(ctx context.Context, w *workload) string {
	srv, table, err := d.table(ctx, w)
	if err != nil {
		return err.Error()
	}
	op := w.dynamo(srv.client, table)
	var mu sync.Mutex
	first := ""
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < sdkCheckOps/4; i++ {
				if err := op(ctx, g); err != nil {
					mu.Lock()
					if first == "" {
						first = err.Error()
					}
					mu.Unlock()
					return
				}
			}
		}(g)
	}
	wg.Wait()
	if first == "" && w.name == "put" {
		first = checkRawPut(ctx, srv, table)
	}
	return first
}

const sdkCheckOps = 40

// checkRawPut writes one item with the load generator's request and reads
// it back through the SDK.
func checkRawPut(ctx context.Context, srv *proc, table string) string {
	c := newRawConn(srv.addr, "PutItem")
	defer c.close()
	body := append([]byte(tableField(table)+`,"Item":`), appendItem(nil, constKey("rawcheck"), gKey, gKey)...)
	body = append(body, '}')
	if status, resp, err := c.do(body); err != nil || status != 200 {
		return fmt.Sprintf("raw PutItem: %v HTTP %d %s", err, status, resp)
	}
	out, err := srv.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: dynKey("rawcheck", "s"), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return "GetItem of the raw PutItem: " + err.Error()
	}
	if v, ok := out.Item["data"].(*types.AttributeValueMemberS); !ok || v.Value != payload {
		return fmt.Sprintf("GetItem of the raw PutItem: item %v", out.Item)
	}
	return ""
}
func gsi(name, hash string) types.GlobalSecondaryIndex {
	return types.GlobalSecondaryIndex{
		IndexName: aws.String(name),
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
	}
}

func createTable(ctx context.Context, c *dynamodb.Client, table, shape string) error {
	s := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		BillingMode:          types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{s("pk"), s("sk")},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
	}
	switch shape {
	case shapeGSI1:
		in.AttributeDefinitions = append(in.AttributeDefinitions, s("g"))
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{gsi("byG", "g")}
	case shapeGSI2:
		in.AttributeDefinitions = append(in.AttributeDefinitions, s("g"), s("g2"))
		in.GlobalSecondaryIndexes = []types.GlobalSecondaryIndex{gsi("byG", "g"), gsi("byG2", "g2")}
	case shapeLSI:
		in.AttributeDefinitions = append(in.AttributeDefinitions, s("g"))
		in.LocalSecondaryIndexes = []types.LocalSecondaryIndex{{
			IndexName: aws.String("byL"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("g"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}}
	case shapeStream:
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true),
			StreamViewType: types.StreamViewTypeNewAndOldImages}
	}
	if _, err := c.CreateTable(ctx, in); err != nil {
		return err
	}
	return waitActive(ctx, c, table)
}

// waitActive waits for the table and its indexes to be ACTIVE (dynalite
// keeps a new table CREATING for a while).
func waitActive(ctx context.Context, c *dynamodb.Client, table string) error {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			return err
		}
		ok := out.Table.TableStatus == types.TableStatusActive
		for _, g := range out.Table.GlobalSecondaryIndexes {
			ok = ok && g.IndexStatus == types.IndexStatusActive
		}
		if ok {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("table %s not ACTIVE after 2 minutes", table)
}

// preload writes the shape's data through BatchWriteItem, 8 requests at once.
func preload(ctx context.Context, c *dynamodb.Client, table, shape string) error {
	var items []map[string]types.AttributeValue
	switch shape {
	case shapePlain:
		for i := 0; i < getKeys; i++ {
			items = append(items, dynItem(fmt.Sprintf("k%04d", i), "s", "g", "g"))
		}
		for p := 0; p < queryParts; p++ {
			for s := 0; s < queryPartSize; s++ {
				items = append(items, dynItem(fmt.Sprintf("q%03d", p), fmt.Sprintf("s%02d", s), "g", "g"))
			}
		}
	case shapeGSI1:
		for g := 0; g < gsiGroups; g++ {
			for i := 0; i < 10; i++ {
				items = append(items, dynItem(fmt.Sprintf("x%03d%02d", g, i), "s", fmt.Sprintf("g%03d", g), "g"))
			}
		}
	case shapeLSI:
		for p := 0; p < lsiParts; p++ {
			for i := 0; i < lsiPartSize; i++ {
				items = append(items, dynItem(fmt.Sprintf("c%02d", p), fmt.Sprintf("s%03d", i), gsiKey(), "g"))
			}
		}
	}
	return putAll(ctx, c, table, items, 8)
}

func putAll(ctx context.Context, c *dynamodb.Client, table string, items []map[string]types.AttributeValue, workers int) error {
	chunks := make(chan []map[string]types.AttributeValue)
	errc := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ch := range chunks {
				reqs := make([]types.WriteRequest, len(ch))
				for i, it := range ch {
					reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
				}
				if err := batchWrite(ctx, c, table, reqs); err != nil {
					errc <- err
					for range chunks {
					}
					return
				}
			}
		}()
	}
	for i := 0; i < len(items); i += 25 {
		chunks <- items[i:min(i+25, len(items))]
	}
	close(chunks)
	wg.Wait()
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}

// proc is a server process dynamobench started, on the server CPUs.
type proc struct {
	name   string
	cmd    *exec.Cmd
	pid    int
	addr   string // host:port
	url    string
	db     string // dynamopg's --db
	pprof  string // host:port of dynamopg's --pprof listener, if any
	client *dynamodb.Client
	logf   *os.File
}

// startProc starts cmd (built by pinnedCommand) and waits until ready
// answers true.
func startProc(ctx context.Context, name string, cmd *exec.Cmd, addr string, ready func() bool) (*proc, error) {
	logf, err := os.CreateTemp("", "dynamobench-"+name+"-*.log")
	if err != nil {
		return nil, err
	}
	atExit(func() { logf.Close(); os.Remove(logf.Name()) })
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{name: name, cmd: cmd, pid: cmd.Process.Pid, addr: addr, url: "http://" + addr, logf: logf}
	serverPIDs.add(p.pid)
	p.client = newClient(p.url)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if ready() {
			return p, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.stop()
	logs, _ := os.ReadFile(logf.Name())
	return nil, fmt.Errorf("%s did not answer within 60 s: %s", name, trunc(string(logs), 2000))
}

func (p *proc) stop() {
	if p.cmd == nil {
		return
	}
	_ = syscall.Kill(-p.pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(35 * time.Second):
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		<-done
	}
	p.cmd = nil
}

// startDynamopg starts the real binary (built by tests/harness) on a fresh
// database of backend, pinned to the server CPUs.
func startDynamopg(ctx context.Context, env *benchEnv, backend string, extra ...string) (*proc, error) {
	var db string
	if backend == "postgres" {
		var err error
		if db, err = env.newPGDatabase(ctx); err != nil {
			return nil, err
		}
	} else {
		dir, err := os.MkdirTemp("", "dynamobench-sqlite-")
		if err != nil {
			return nil, err
		}
		atExit(func() { os.RemoveAll(dir) })
		db = "sqlite:" + filepath.Join(dir, "bench.db")
	}
	bin, err := env.binary()
	if err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args := []string{"serve", "--listen", addr, "--db", db, "--log-level", "warn"}
	pprofAddr := ""
	if env.cfg.pprofDir != "" {
		if pprofAddr, err = freeAddr(); err != nil {
			return nil, err
		}
		args = append(args, "--pprof", pprofAddr)
	}
	args = append(args, extra...)
	prog := bin
	var dir string
	if env.cfg.callgrind {
		// Under callgrind (callgrind.go): its dumps go to a directory of
		// their own, the process's working directory.
		if dir, err = os.MkdirTemp("", "dynamobench-callgrind-"); err != nil {
			return nil, err
		}
		atExit(func() { os.RemoveAll(dir) })
		vg, err := exec.LookPath("valgrind")
		if err != nil {
			return nil, errMissing{"-callgrind: valgrind not installed"}
		}
		args = append([]string{"--tool=callgrind", "--callgrind-out-file=" + filepath.Join(dir, "callgrind.%p.out"), bin}, args...)
		prog = vg
	}
	cmd := pinnedCommand(env.serverCPUs, prog, args...)
	if dir != "" {
		cmd.Dir = dir
		// Go's signal-based preemption makes valgrind crawl.
		cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1")
	}
	hc := &http.Client{Timeout: time.Second}
	p, err := startProc(ctx, "dynamopg-"+backend, cmd, addr, func() bool {
		resp, err := hc.Get("http://" + addr + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
	if err != nil {
		return nil, err
	}
	p.pprof, p.db = pprofAddr, db
	return p, nil
}

func newDynamopgTarget(ctx context.Context, env *benchEnv, name, backend string) (target, error) {
	d := &dynamoTarget{name: name, env: env, tables: map[string]string{}}
	if backend == "postgres" {
		pg, err := env.postgres(ctx)
		if err != nil {
			return nil, err
		}
		d.db = pg.postmaster
	}
	d.start = func(ctx context.Context, mode string) (*proc, error) {
		if mode == "async" {
			return startDynamopg(ctx, env, backend, "--index-propagation", "async")
		}
		return startDynamopg(ctx, env, backend)
	}
	return d, nil
}

// ---- peers -------------------------------------------------------------

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// startPeer runs a peer server on the server CPUs and waits until
// ListTables answers.
func startPeer(ctx context.Context, env *benchEnv, name string, addr string, prog string, args ...string) (*proc, error) {
	c := newClient("http://" + addr)
	return startProc(ctx, name, pinnedCommand(env.serverCPUs, prog, args...), addr, func() bool {
		_, err := c.ListTables(ctx, &dynamodb.ListTablesInput{})
		return err == nil
	})
}

// newDynaliteTarget installs dynalite from npm into a temporary directory
// (DYNAMOBENCH_DYNALITE_DIR to reuse one) and runs it in memory.
func newDynaliteTarget(ctx context.Context, env *benchEnv) (target, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, errMissing{"node not installed"}
	}
	dir := os.Getenv("DYNAMOBENCH_DYNALITE_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "dynamobench-dynalite")
	}
	cli := filepath.Join(dir, "node_modules", "dynalite", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			return nil, errMissing{"npm not installed"}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "installing dynalite into %s …\n", dir)
		cmd := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--silent", "dynalite@4")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, errMissing{fmt.Sprintf("npm install dynalite: %v: %s", err, out)}
		}
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	_, port, _ := net.SplitHostPort(addr)
	p, err := startPeer(ctx, env, tDynalite, addr, node, cli, "--port", port, "--host", "127.0.0.1")
	if err != nil {
		return nil, errMissing{err.Error()}
	}
	return &dynamoTarget{name: tDynalite, env: env, srv: p, tables: map[string]string{}}, nil
}

// newMotoTarget runs moto's server (moto_server, or python3 -m moto.server).
func newMotoTarget(ctx context.Context, env *benchEnv) (target, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(addr)
	var p *proc
	if bin, err := exec.LookPath("moto_server"); err == nil {
		p, err = startPeer(ctx, env, tMoto, addr, bin, "-H", host, "-p", port)
		if err != nil {
			return nil, errMissing{err.Error()}
		}
	} else if py, err := exec.LookPath("python3"); err == nil && exec.Command(py, "-c", "import moto.server").Run() == nil {
		p, err = startPeer(ctx, env, tMoto, addr, py, "-m", "moto.server", "-H", host, "-p", port)
		if err != nil {
			return nil, errMissing{err.Error()}
		}
	} else {
		return nil, errMissing{"moto's server is not installed (pip install 'moto[server]')"}
	}
	return &dynamoTarget{name: tMoto, env: env, srv: p, tables: map[string]string{}}, nil
}

// ---- the SQLite floor --------------------------------------------------

// sqliteTarget runs the SQLite floor in this process: on the load CPUs,
// one core as the servers have one (GOMAXPROCS is the affinity's size).
// Its CPU is this process's, reported as the server's, and the busy time
// read is the load CPUs'.
type sqliteTarget struct {
	f    *sqliteFloor
	cpus map[int]bool
}

func (s *sqliteTarget) prepare(_ context.Context, w *workload) (cellFunc, error) {
	if w.sqlite == nil {
		return nil, errMissing{"no SQLite floor"}
	}
	op := w.sqlite(s.f)
	return func(ctx context.Context, clients int, warmup, dur time.Duration) cell {
		c := measure(ctx, op, clients, warmup, dur, cpuMeter{cpus: s.cpus})
		c.CPU.ServerUsPerOp, c.CPU.ClientUsPerOp = c.CPU.ClientUsPerOp, 0
		c.CPU.ServerCoresBusy = round3(c.CPU.ServerUsPerOp * float64(c.Ops) / 1e6 / dur.Seconds())
		return c
	}, nil
}
func (s *sqliteTarget) close() { s.f.close() }

func newTarget(ctx context.Context, env *benchEnv, name string) (target, error) {
	switch name {
	case tDynPG:
		return newDynamopgTarget(ctx, env, name, "postgres")
	case tDynSQLite:
		return newDynamopgTarget(ctx, env, name, "sqlite")
	case tPgbench:
		return newPgbenchTarget(ctx, env)
	case tHTTPFloor:
		return newHTTPFloorTarget(ctx, env)
	case tSQLite:
		dir, err := os.MkdirTemp("", "dynamobench-floor-")
		if err != nil {
			return nil, err
		}
		atExit(func() { os.RemoveAll(dir) })
		f, err := newSQLiteFloor(ctx, dir, 4)
		if err != nil {
			return nil, err
		}
		return &sqliteTarget{f: f, cpus: cpuMap(env.loadCPUs)}, nil
	case tDynalite:
		return newDynaliteTarget(ctx, env)
	case tMoto:
		return newMotoTarget(ctx, env)
	case tExternal:
		u, err := url.Parse(env.cfg.externalURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("-external-url %q: want http://host:port", env.cfg.externalURL)
		}
		p := &proc{name: tExternal, pid: env.cfg.externalPID, addr: u.Host, url: "http://" + u.Host, client: newClient("http://" + u.Host)}
		return &dynamoTarget{name: tExternal, env: env, srv: p, db: env.cfg.externalDBPID, tables: map[string]string{}}, nil
	}
	return nil, fmt.Errorf("unknown target %q", name)
}
