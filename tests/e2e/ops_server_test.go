package e2e

// Operations: metrics, logs, readiness, SigV4 authentication, TLS and
// overload behaviour of a running dynamopg (issue 8).

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
	"github.com/dynamopg/dynamopg/tests/sdkhttp"
)

// opsStart runs a dedicated server on a fresh database of the backend with
// extra serve flags.
func opsStart(t *testing.T, backend string, args ...string) *harness.Server {
	t.Helper()
	var db string
	switch backend {
	case "sqlite":
		db = "sqlite:" + filepath.Join(t.TempDir(), "dynamopg.db")
	case "postgres":
		db = pgtest.URL(t)
	}
	return harness.StartDB(t, backend, db, args...)
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// metricValue finds the sample `name{labels} value` in a scrape (text
// format); the labels may be in any order.
func metricValue(t *testing.T, scrape, series string) (float64, bool) {
	t.Helper()
	want := seriesKey(series)
	for _, line := range strings.Split(scrape, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, '}') + 1
		if i == 0 {
			i = strings.IndexByte(line, ' ')
		}
		if i <= 0 || seriesKey(line[:i]) != want {
			continue
		}
		var v float64
		fmt.Sscan(strings.TrimSpace(line[i:]), &v)
		return v, true
	}
	return 0, false
}

var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// seriesKey is a series `name{a="x",b="y"}` with its labels sorted.
func seriesKey(series string) string {
	name, labels, ok := strings.Cut(series, "{")
	if !ok {
		return series
	}
	pairs := labelPair.FindAllString(labels, -1)
	sort.Strings(pairs)
	return name + "{" + strings.Join(pairs, ",") + "}"
}

func TestOpsMetricsAndLogs(t *testing.T) {
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			s := opsStart(t, backend, "--log-level", "debug")
			c := s.Client()
			ctx := harness.Ctx(t)
			table := createHashTable(t, c, "ops_metrics")
			put(t, c, table, Item{"pk": S("k1"), "secret": S("TOPSECRETVALUE42")})
			_ = get(t, c, table, Item{"pk": S("k1")})
			_ = get(t, c, table, Item{"pk": S("k1")})
			_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("ops_missing_table")})
			expectNotFound(t, err)

			code, body := httpGet(t, s.URL+"/metrics")
			if code != 200 {
				t.Fatalf("/metrics: %d", code)
			}
			checks := map[string]float64{
				`dynamopg_requests_total{operation="GetItem",outcome="success"}`:                            2,
				`dynamopg_requests_total{operation="PutItem",outcome="success"}`:                            1,
				`dynamopg_requests_total{operation="DescribeTable",outcome="client_error"}`:                 1,
				`dynamopg_errors_total{operation="DescribeTable",type="ResourceNotFoundException"}`:         1,
				`dynamopg_request_duration_seconds_count{operation="GetItem",outcome="success"}`:            2,
				`dynamopg_request_duration_seconds_bucket{operation="GetItem",outcome="success",le="+Inf"}`: 2,
				`dynamopg_index_queue_depth`: 0,
			}
			for series, want := range checks {
				got, ok := metricValue(t, body, series)
				if !ok || got != want {
					t.Errorf("%s = %v (present %v), want %v", series, got, ok, want)
				}
			}
			for _, want := range []string{"# TYPE dynamopg_request_duration_seconds histogram", "# TYPE dynamopg_requests_total counter", "dynamopg_db_pool_max_conns{", "dynamopg_db_pool_acquired_conns{", "dynamopg_db_pool_waits_total{"} {
				if !strings.Contains(body, want) {
					t.Errorf("/metrics lacks %q", want)
				}
			}

			// Logs: the failed call's line carries its request id, operation,
			// table and error type; no item contents anywhere.
			resp, _ := rawCall(t, s, "DescribeTable", `{"TableName":"ops_missing_raw"}`)
			id := resp.Header.Get("x-amzn-RequestId")
			if id == "" {
				t.Fatal("no x-amzn-RequestId")
			}
			var line string
			deadline := time.Now().Add(5 * time.Second)
			for line == "" && time.Now().Before(deadline) {
				for _, l := range strings.Split(s.Logs(), "\n") {
					if strings.Contains(l, "request_id="+id) {
						line = l
					}
				}
				time.Sleep(20 * time.Millisecond)
			}
			for _, want := range []string{"op=DescribeTable", "table=ops_missing_raw", "error_type=ResourceNotFoundException", "status=400"} {
				if !strings.Contains(line, want) {
					t.Errorf("log line %q lacks %q", line, want)
				}
			}
			logs := s.Logs()
			if strings.Contains(logs, "TOPSECRETVALUE42") {
				t.Errorf("item contents in logs")
			}
			reqLine := regexp.MustCompile(`msg=request request_id=[0-9A-F]{32} op=PutItem table=` + table)
			if !reqLine.MatchString(logs) {
				t.Errorf("no debug request line for PutItem with request id and table; logs:\n%s", logs)
			}
			if !strings.Contains(logs, "msg=configuration") || !strings.Contains(logs, "auth=accept-any") {
				t.Errorf("startup lines missing configuration / auth mode")
			}
		})
	}
}

func TestOpsHealthReady(t *testing.T) {
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			s := opsStart(t, backend)
			if code, _ := httpGet(t, s.URL+"/health"); code != 200 {
				t.Errorf("/health = %d", code)
			}
			if code, body := httpGet(t, s.URL+"/ready"); code != 200 || body != "ready" {
				t.Errorf("/ready = %d %q", code, body)
			}
		})
	}
	t.Run("postgres-unmigrated", func(t *testing.T) {
		t.Parallel()
		// A database nobody migrated: the process is alive, not ready.
		s := opsStart(t, "postgres", "--no-migrate")
		if code, _ := httpGet(t, s.URL+"/health"); code != 200 {
			t.Errorf("/health = %d", code)
		}
		if code, body := httpGet(t, s.URL+"/ready"); code != 503 || !strings.Contains(body, "schema") {
			t.Errorf("/ready = %d %q, want 503 about the schema", code, body)
		}
	})
}

// signedRaw sends a DynamoDB request signed with the given credentials at
// the given time (empty akid: no Authorization header).
func signedRaw(t *testing.T, s *harness.Server, akid, secret string, at time.Time) (int, string, string) {
	t.Helper()
	body := []byte(`{}`)
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	if akid != "" {
		sum := sha256.Sum256(body)
		if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: akid, SecretAccessKey: secret},
			req, hex.EncodeToString(sum[:]), "dynamodb", "us-east-1", at); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	code, msg := rawError(data)
	return resp.StatusCode, code, msg
}

const invalidSignatureText = "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."

func TestOpsSigV4(t *testing.T) {
	credFile := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(credFile, []byte("# test keys\nAKIDTEST secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DYNAMOPG_CREDENTIALS", "AKIDENV:envsecret")
	s := opsStart(t, "sqlite", "--auth", "sigv4", "--credentials-file", credFile, "--log-level", "info")
	ctx := harness.Ctx(t)

	// A correctly signed SDK request succeeds (file and env keys).
	if _, err := s.Client().ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("signed ListTables: %v", err)
	}
	envClient := s.Client(func(o *dynamodb.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider("AKIDENV", "envsecret", "")
	})
	if _, err := envClient.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("ListTables with the env key: %v", err)
	}
	// A write with a body is signed over the body too.
	createHashTable(t, s.Client(), "ops_auth")

	wrong := s.Client(func(o *dynamodb.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider("AKIDTEST", "not-the-secret", "")
	})
	_, err := wrong.ListTables(ctx, &dynamodb.ListTablesInput{})
	expectAPIError(t, err, "InvalidSignatureException", invalidSignatureText)

	unknown := s.Client(func(o *dynamodb.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider("AKIDUNKNOWN", "secret", "")
	})
	_, err = unknown.ListTables(ctx, &dynamodb.ListTablesInput{})
	expectAPIError(t, err, "UnrecognizedClientException", "The security token included in the request is invalid.")

	if status, code, msg := signedRaw(t, s, "", "", time.Now()); status != 400 || code != "MissingAuthenticationTokenException" || msg != "Request is missing Authentication Token" {
		t.Errorf("unsigned: %d %s %q", status, code, msg)
	}

	skewed := time.Now().UTC().Add(-20 * time.Minute)
	status, code, msg := signedRaw(t, s, "AKIDTEST", "secret", skewed)
	wantPrefix := "Signature expired: " + skewed.Format("20060102T150405Z") + " is now earlier than "
	if status != 400 || code != "InvalidSignatureException" || !strings.HasPrefix(msg, wantPrefix) || !strings.HasSuffix(msg, " - 15 min.)") {
		t.Errorf("skewed: %d %s %q, want InvalidSignatureException %q…(… - 15 min.)", status, code, msg, wantPrefix)
	}
	// Within the allowed skew the signature is accepted.
	if status, code, msg := signedRaw(t, s, "AKIDTEST", "secret", time.Now().Add(-5*time.Minute)); status != 200 {
		t.Errorf("5 minutes skew: %d %s %q", status, code, msg)
	}

	// The operational endpoints are not behind authentication.
	for _, p := range []string{"/health", "/ready", "/metrics"} {
		if code, _ := httpGet(t, s.URL+p); code != 200 {
			t.Errorf("%s = %d", p, code)
		}
	}
	logs := s.Logs()
	if !strings.Contains(logs, `auth="sigv4 (2 access keys)"`) {
		t.Errorf("startup line does not say sigv4 is on")
	}
	if strings.Contains(logs, "envsecret") || strings.Contains(logs, "not-the-secret") {
		t.Errorf("a secret reached the logs")
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key; it returns
// their paths and a pool trusting the certificate.
func selfSigned(t *testing.T) (certPath, keyPath string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "dynamopg test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certPath, keyPath, pool
}

func TestOpsTLS(t *testing.T) {
	certPath, keyPath, pool := selfSigned(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var logs bytes.Buffer
	var mu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return logs.Write(p) })
	cmd := exec.Command(harness.Binary(t), "serve", "--listen", addr, "--db", "sqlite:"+filepath.Join(t.TempDir(), "tls.db"),
		"--tls-cert", certPath, "--tls-key", keyPath)
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		if t.Failed() {
			mu.Lock()
			t.Logf("logs:\n%s", logs.String())
			mu.Unlock()
		}
	})
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: sdkhttp.Wrap(tr), Timeout: 30 * time.Second}
	url := "https://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := hc.Get(url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("HTTPS server not healthy: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c := dynamodb.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		HTTPClient:  hc,
	}, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(url); o.RetryMaxAttempts = 1 })
	name := createHashTable(t, c, "ops_tls")
	put(t, c, name, Item{"pk": S("a")})
	if it := get(t, c, name, Item{"pk": S("a")}); it == nil {
		t.Errorf("item not read back over HTTPS")
	}
	// Plain HTTP to the HTTPS port is refused, not served.
	if resp, err := http.Get("http://" + addr + "/health"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Errorf("plain HTTP served on the TLS port")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "scheme=https") {
		t.Errorf("startup line lacks scheme=https")
	}
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// lockCatalog holds an ACCESS EXCLUSIVE lock on the catalog so that every
// request that reads a table description waits; release ends it.
func lockCatalog(t *testing.T, db string) (release func()) {
	t.Helper()
	ctx := harness.Ctx(t)
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE dynamopg.tables IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			_ = tx.Rollback(context.Background())
			_ = conn.Close(context.Background())
		})
	}
	t.Cleanup(release)
	return release
}

func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	if err != nil {
		return "non-API: " + err.Error()
	}
	return ""
}

// TestOpsOverload: with the database stalled, requests end within the
// request deadline with errors the SDKs retry, and the server serves again
// once the database does.
func TestOpsOverload(t *testing.T) {
	db := pgtest.URL(t)
	// Server A: an in-flight cap of 1 with a short wait; a 2 s deadline.
	a := harness.StartDB(t, "postgres", db, "--max-in-flight", "1", "--in-flight-wait", "200ms", "--request-timeout", "2s", "--db-max-conns", "4")
	// Server B: a pool of one connection.
	b := harness.StartDB(t, "postgres", db, "--request-timeout", "1s", "--db-max-conns", "1", "--log-level", "warn")
	ca, cb := a.Client(), b.Client()
	table := createHashTable(t, ca, "ops_overload")
	put(t, ca, table, Item{"pk": S("x")})

	release := lockCatalog(t, db)
	ctx := harness.Ctx(t)
	getItem := func(c *dynamodb.Client) (error, time.Duration) {
		start := time.Now()
		_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("x")}})
		return err, time.Since(start)
	}

	// A: one request takes the only slot and waits on the database; the
	// next is throttled after the in-flight wait.
	var wg sync.WaitGroup
	var slowErr error
	var slowTook time.Duration
	wg.Add(1)
	go func() { defer wg.Done(); slowErr, slowTook = getItem(ca) }()
	time.Sleep(500 * time.Millisecond)
	err, took := getItem(ca)
	// The catalog stays locked until release(): any answer well before the
	// test's 2-minute context proves the request did not hang. The bounds
	// are generous so a loaded machine does not fail them.
	if apiCode(err) != "ThrottlingException" || took > 10*time.Second {
		t.Errorf("second request under --max-in-flight 1: %s after %v, want ThrottlingException within ~200ms", apiCode(err), took)
	}
	wg.Wait()
	// A read out of time applied nothing: throttled (issue 20, item 6).
	if apiCode(slowErr) != "ThrottlingException" || slowTook > 10*time.Second {
		t.Errorf("request past its deadline: %s after %v, want ThrottlingException after ~2s", apiCode(slowErr), slowTook)
	}

	// B: its only pool connection is taken; requests end at the deadline
	// with ThrottlingException instead of hanging.
	errs := make([]error, 3)
	tooks := make([]time.Duration, 3)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i], tooks[i] = getItem(cb) }()
	}
	wg.Wait()
	for i, err := range errs {
		code := apiCode(err)
		if code != "ThrottlingException" || tooks[i] > 10*time.Second {
			t.Errorf("pool-exhausted request %d: %s after %v, want ThrottlingException within ~1s", i, code, tooks[i])
		}
		if code == "ThrottlingException" {
			var ae smithy.APIError
			errors.As(err, &ae)
			if ae.ErrorMessage() != "Rate of requests exceeds the allowed throughput." {
				t.Errorf("throttling message %q", ae.ErrorMessage())
			}
		}
	}
	_, body := httpGet(t, b.URL+"/metrics")
	if !strings.Contains(body, `dynamopg_requests_total{operation="GetItem",outcome="throttled"}`) {
		t.Errorf("no throttled GetItem counted by B")
	}

	// The database answers again: both servers serve again by themselves.
	release()
	for _, c := range []*dynamodb.Client{ca, cb} {
		var err error
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if err, _ = getItem(c); err == nil {
				break
			}
		}
		if err != nil {
			t.Errorf("after the stall: %v", err)
		}
	}
}

// waitMetric scrapes /metrics until the series satisfies ok (60 s at most)
// and returns its value.
func waitMetric(t *testing.T, s *harness.Server, series string, ok func(float64) bool, want string) float64 {
	t.Helper()
	var got float64
	var present bool
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		_, body := httpGet(t, s.URL+"/metrics")
		if got, present = metricValue(t, body, series); present && ok(got) {
			return got
		}
	}
	t.Errorf("%s = %v (present %v) after 60 s, want %s", series, got, present, want)
	return got
}

// batchPut writes the items with BatchWriteItem, 25 at a time, retrying
// unprocessed ones.
func batchPut(t *testing.T, c *dynamodb.Client, table string, items []Item) {
	t.Helper()
	for lo := 0; lo < len(items); lo += 25 {
		var reqs []types.WriteRequest
		for _, it := range items[lo:min(lo+25, len(items))] {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
		pending := map[string][]types.WriteRequest{table: reqs}
		for len(pending) > 0 {
			out, err := c.BatchWriteItem(harness.Ctx(t), &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				t.Fatalf("BatchWriteItem: %v", err)
			}
			pending = out.UnprocessedItems
		}
	}
}

// TestOpsMetricsBackgroundWork: /metrics shows the work behind the API as
// the store records it: stream records written, an index build's rows and
// phase, the propagation queue, the TTL sweeper's deletions.
func TestOpsMetricsBackgroundWork(t *testing.T) {
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			s := opsStart(t, backend, "--index-propagation", "async", "--ttl-interval", "200ms")
			c := s.Client()
			ctx := harness.Ctx(t)
			table := createHashTable(t, c, "ops_bg")

			// Stream records: one per write once the stream is on.
			_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
				StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
			must(t, err)
			waitActive(t, c, table)
			const n = 300
			items := make([]Item, n)
			for i := range items {
				items[i] = Item{"pk": S(fmt.Sprintf("k%03d", i)), "g": S(fmt.Sprintf("g%d", i%5))}
			}
			batchPut(t, c, table, items)
			waitMetric(t, s, "dynamopg_stream_records_total", func(v float64) bool { return v >= n }, fmt.Sprintf(">= %d", n))

			// An index build: its rows done, then its phase active.
			_, _, err = ibCreateIndex(ctx, c, table, ibGSI{Name: "by_g", Hash: "g", HashType: "S", Projection: types.ProjectionTypeAll})
			must(t, err)
			for deadline := time.Now().Add(60 * time.Second); ibIndexStatus(ibDescribe(t, c, table), "by_g") != "ACTIVE"; time.Sleep(100 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("index by_g not ACTIVE after 60 s")
				}
			}
			labels := fmt.Sprintf(`{table=%q,index="by_g"}`, table)
			waitMetric(t, s, "dynamopg_index_build_rows_done"+labels, func(v float64) bool { return v >= n }, fmt.Sprintf(">= %d", n))
			waitMetric(t, s, fmt.Sprintf(`dynamopg_index_build_phase{table=%q,index="by_g",phase="active"}`, table),
				func(v float64) bool { return v == 1 }, "1")

			// The queue: writes to the table reach by_g (async) through it;
			// its series are there and it drains.
			more := make([]Item, 50)
			for i := range more {
				more[i] = Item{"pk": S(fmt.Sprintf("m%03d", i)), "g": S("gm")}
			}
			batchPut(t, c, table, more)
			_, body := httpGet(t, s.URL+"/metrics")
			for _, series := range []string{"dynamopg_index_queue_depth", "dynamopg_index_queue_oldest_age_seconds", "dynamopg_index_queue_passed_over"} {
				if v, ok := metricValue(t, body, series); !ok || v < 0 {
					t.Errorf("%s = %v (present %v) after async writes", series, v, ok)
				}
			}
			waitMetric(t, s, "dynamopg_index_queue_depth", func(v float64) bool { return v == 0 }, "0 once applied")
			waitMetric(t, s, "dynamopg_index_queue_oldest_age_seconds", func(v float64) bool { return v == 0 }, "0 once applied")

			// TTL: the sweeper deletes expired items and counts them.
			_, err = updateTTL(c, t, table, "exp", true)
			must(t, err)
			const expired = 20
			past := fmt.Sprint(time.Now().Add(-time.Hour).Unix())
			var old []Item
			for i := range expired {
				old = append(old, Item{"pk": S(fmt.Sprintf("x%02d", i)), "exp": N(past)})
			}
			batchPut(t, c, table, old)
			waitMetric(t, s, "dynamopg_ttl_deletions_total", func(v float64) bool { return v >= expired }, fmt.Sprintf(">= %d", expired))
			if it := get(t, c, table, Item{"pk": S("x00")}); it != nil {
				t.Errorf("expired item still there after the counter reached %d", expired)
			}
			waitMetric(t, s, "dynamopg_stream_records_total", func(v float64) bool { return v >= n+50+2*expired },
				fmt.Sprintf(">= %d (puts and the TTL deletions' REMOVE records)", n+50+2*expired))
		})
	}
}
