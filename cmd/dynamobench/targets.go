package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
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

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
	"github.com/dynamopg/dynamopg/tests/sdkhttp"
)

const (
	tDynPG     = "dynamopg-pg"
	tDynSQLite = "dynamopg-sqlite"
	tPGX       = "pgx"
	tSQLite    = "sqlite"
	tDynalite  = "dynalite"
	tMoto      = "moto"
)

var allTargets = []string{tDynPG, tDynSQLite, tPGX, tSQLite, tDynalite, tMoto}

// floorOf is the floor each dynamopg target is divided by.
var floorOf = map[string]string{tDynPG: tPGX, tDynSQLite: tSQLite}

// target is one system under test.
type target interface {
	// prepare makes workload w's tables and data ready and returns its op.
	prepare(ctx context.Context, w *workload) (opFunc, error)
	close()
}

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

// newPGDatabase creates a fresh database on the pgtest server, dropped at exit.
func newPGDatabase(ctx context.Context) (string, error) {
	srv, err := pgtest.Server()
	if err != nil {
		return "", err
	}
	u, drop, err := pgtest.CreateDatabase(ctx, srv)
	if err != nil {
		return "", err
	}
	atExit(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = drop(ctx)
	})
	return u, nil
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

// dynamoTarget is any DynamoDB endpoint: dynamopg, dynalite, moto.
type dynamoTarget struct {
	name   string
	client *dynamodb.Client
	// async returns the client of a server that maintains GSIs
	// asynchronously; nil when the target has no such mode.
	async  func(ctx context.Context) (*dynamodb.Client, error)
	tables map[string]string // shape (+async) → table name
	stop   func()
}

func (d *dynamoTarget) close() {
	if d.stop != nil {
		d.stop()
	}
}

func (d *dynamoTarget) prepare(ctx context.Context, w *workload) (opFunc, error) {
	c := d.client
	key := w.shape
	if w.async {
		if d.async == nil {
			return nil, errMissing{"no async index mode"}
		}
		var err error
		if c, err = d.async(ctx); err != nil {
			return nil, err
		}
		key += "-async"
	}
	table, ok := d.tables[key]
	if !ok {
		table = fmt.Sprintf("bench_%s_%d", key, time.Now().UnixNano()%1e9)
		if err := createTable(ctx, c, table, w.shape); err != nil {
			return nil, fmt.Errorf("create table: %w", err)
		}
		if err := preload(ctx, c, table, w.shape); err != nil {
			return nil, fmt.Errorf("preload: %w", err)
		}
		d.tables[key] = table
	}
	return w.dynamo(c, table), nil
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

// startDynamopg starts the real binary through tests/harness.
func startDynamopg(ctx context.Context, backend string, extra ...string) (url string, stop func(), err error) {
	var db string
	if backend == "postgres" {
		if db, err = newPGDatabase(ctx); err != nil {
			return "", nil, err
		}
	} else {
		dir, err := os.MkdirTemp("", "dynamobench-sqlite-")
		if err != nil {
			return "", nil, err
		}
		atExit(func() { os.RemoveAll(dir) })
		db = "sqlite:" + filepath.Join(dir, "bench.db")
	}
	var s *harness.Server
	tb, err := withTB(func(tb *benchTB) { s = harness.StartDB(tb, backend, db, extra...) })
	if err != nil {
		return "", nil, err
	}
	return s.URL, tb.runCleanups, nil
}

func newDynamopgTarget(ctx context.Context, name, backend string) (target, error) {
	url, stop, err := startDynamopg(ctx, backend)
	if err != nil {
		return nil, err
	}
	d := &dynamoTarget{name: name, client: newClient(url), tables: map[string]string{}, stop: stop}
	var asyncClient *dynamodb.Client
	var asyncStop func()
	d.async = func(ctx context.Context) (*dynamodb.Client, error) {
		if asyncClient == nil {
			url, stop, err := startDynamopg(ctx, backend, "--index-propagation", "async")
			if err != nil {
				return nil, err
			}
			asyncClient, asyncStop = newClient(url), stop
		}
		return asyncClient, nil
	}
	d.stop = func() {
		stop()
		if asyncStop != nil {
			asyncStop()
		}
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

// startProcess runs a peer server and waits until ListTables answers.
func startProcess(ctx context.Context, name string, cmd *exec.Cmd, url string) (func(), error) {
	logf, _ := os.CreateTemp("", "dynamobench-"+name+"-*.log")
	if logf != nil {
		cmd.Stdout, cmd.Stderr = logf, logf
		atExit(func() { logf.Close(); os.Remove(logf.Name()) })
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	c := newClient(url)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := c.ListTables(ctx, &dynamodb.ListTablesInput{}); err == nil {
			return stop, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	var logs []byte
	if logf != nil {
		logs, _ = os.ReadFile(logf.Name())
	}
	return nil, fmt.Errorf("%s did not answer within 60 s: %s", name, logs)
}

// newDynaliteTarget installs dynalite from npm into a temporary directory
// (DYNAMOBENCH_DYNALITE_DIR to reuse one) and runs it in memory.
func newDynaliteTarget(ctx context.Context) (target, error) {
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
	cmd := exec.Command(node, cli, "--port", port, "--host", "127.0.0.1")
	url := "http://" + addr
	stop, err := startProcess(ctx, "dynalite", cmd, url)
	if err != nil {
		return nil, errMissing{err.Error()}
	}
	return &dynamoTarget{name: tDynalite, client: newClient(url), tables: map[string]string{}, stop: stop}, nil
}

// newMotoTarget runs moto's server (moto_server, or python3 -m moto.server).
func newMotoTarget(ctx context.Context) (target, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(addr)
	var cmd *exec.Cmd
	if p, err := exec.LookPath("moto_server"); err == nil {
		cmd = exec.Command(p, "-H", host, "-p", port)
	} else if py, err := exec.LookPath("python3"); err == nil && exec.Command(py, "-c", "import moto.server").Run() == nil {
		cmd = exec.Command(py, "-m", "moto.server", "-H", host, "-p", port)
	} else {
		return nil, errMissing{"moto's server is not installed (pip install 'moto[server]')"}
	}
	url := "http://" + addr
	stop, err := startProcess(ctx, "moto", cmd, url)
	if err != nil {
		return nil, errMissing{err.Error()}
	}
	return &dynamoTarget{name: tMoto, client: newClient(url), tables: map[string]string{}, stop: stop}, nil
}

// ---- floor targets -----------------------------------------------------

type pgxTarget struct{ f *pgFloor }

func (p *pgxTarget) prepare(_ context.Context, w *workload) (opFunc, error) { return w.pg(p.f), nil }
func (p *pgxTarget) close()                                                 { p.f.close() }

type sqliteTarget struct{ f *sqliteFloor }

func (s *sqliteTarget) prepare(_ context.Context, w *workload) (opFunc, error) {
	return w.sqlite(s.f), nil
}
func (s *sqliteTarget) close() { s.f.close() }

func newTarget(ctx context.Context, name string, cfg *config) (target, error) {
	switch name {
	case tDynPG:
		return newDynamopgTarget(ctx, name, "postgres")
	case tDynSQLite:
		return newDynamopgTarget(ctx, name, "sqlite")
	case tPGX:
		u, err := newPGDatabase(ctx)
		if err != nil {
			return nil, err
		}
		f, err := newPGFloor(ctx, u, cfg.floorConns)
		if err != nil {
			return nil, err
		}
		return &pgxTarget{f}, nil
	case tSQLite:
		dir, err := os.MkdirTemp("", "dynamobench-floor-")
		if err != nil {
			return nil, err
		}
		atExit(func() { os.RemoveAll(dir) })
		f, err := newSQLiteFloor(ctx, dir, max(4, cfg.floorConns))
		if err != nil {
			return nil, err
		}
		return &sqliteTarget{f}, nil
	case tDynalite:
		return newDynaliteTarget(ctx)
	case tMoto:
		return newMotoTarget(ctx)
	}
	return nil, fmt.Errorf("unknown target %q", name)
}
