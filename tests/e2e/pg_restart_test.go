package e2e

// PostgreSQL restarted under write traffic (issue 8): dynamopg answers every
// request during the outage with an error the SDKs retry, serves again by
// itself once PostgreSQL is back, and loses no acknowledged write.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// attemptTimeout is the clients' HTTP timeout per attempt: an attempt that
// reaches it is a request the server left hanging.
const attemptTimeout = 30 * time.Second

// attempts records every HTTP attempt the clients make: the error
// responses by status and type, the attempts that got no answer, and the
// longest wait for an answer.
type attempts struct {
	mu       sync.Mutex
	total    int
	errors   map[string]int // "503 ServiceUnavailable" -> count
	noAnswer []string       // transport errors (timeouts included)
	longest  time.Duration
}

// recorder is an aws.HTTPClient that records into a.
type recorder struct {
	hc *http.Client
	a  *attempts
}

func (r recorder) Do(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := r.hc.Do(req)
	took := time.Since(start)
	r.a.mu.Lock()
	defer r.a.mu.Unlock()
	if err != nil && req.Context().Err() != nil {
		return nil, err // the caller gave up (the writers stopping), not the server
	}
	r.a.total++
	r.a.longest = max(r.a.longest, took)
	if err != nil {
		r.a.noAnswer = append(r.a.noAnswer, fmt.Sprintf("after %v: %v", took.Round(time.Millisecond), err))
		return nil, err
	}
	if resp.StatusCode >= 400 {
		body, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if rerr != nil {
			r.a.noAnswer = append(r.a.noAnswer, fmt.Sprintf("reading a %d body: %v", resp.StatusCode, rerr))
			return nil, rerr
		}
		code, _ := rawError(body)
		r.a.errors[fmt.Sprintf("%d %s", resp.StatusCode, code)]++
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	return resp, nil
}

// retryable reports whether the SDKs retry an error response of this
// "status type".
func retryable(statusType string) bool {
	return strings.HasPrefix(statusType, "5") || strings.HasSuffix(statusType, " ThrottlingException")
}

// restartClient is a client with the SDK's standard retryer (30 attempts,
// backoff up to 1 s: about as long as the outage; no retry quota, which a
// few writers retrying through an outage would exhaust), or with no
// retries, recording its attempts.
func restartClient(s *harness.Server, a *attempts, retries bool) *dynamodb.Client {
	return dynamodb.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		HTTPClient:  recorder{hc: &http.Client{Transport: harness.NewTransport(), Timeout: attemptTimeout}, a: a},
	}, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(s.URL)
		if retries {
			o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) {
				so.MaxAttempts = 30
				so.MaxBackoff = time.Second
				so.RateLimiter = ratelimit.None
			})
		} else {
			o.RetryMaxAttempts = 1
		}
	})
}

// writers put items w<id>-<n> (v = n) until stopped and log the
// acknowledged ones.
type writers struct {
	stop   context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	acked  map[string]string // key -> v
	failed map[string]int    // operations that failed after the retries, by error code
}

func startWriters(c *dynamodb.Client, table string, n int) *writers {
	ctx, stop := context.WithCancel(context.Background())
	w := &writers{stop: stop, acked: map[string]string{}, failed: map[string]int{}}
	for id := range n {
		w.wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				key, v := fmt.Sprintf("w%d-%d", id, i), fmt.Sprint(i)
				_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S(key), "v": N(v)}})
				w.mu.Lock()
				switch {
				case err == nil:
					w.acked[key] = v
				case ctx.Err() == nil:
					w.failed[apiCode(err)]++
				}
				w.mu.Unlock()
				time.Sleep(2 * time.Millisecond)
			}
		})
	}
	return w
}

func (w *writers) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.acked)
}

// waitServing probes with GetItem (no retries) every 50 ms until one
// succeeds, for 60 s at most; it returns when.
func waitServing(t *testing.T, c *dynamodb.Client, table string) (time.Time, error) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), attemptTimeout)
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("probe")}})
		cancel()
		if err == nil {
			return time.Now(), nil
		}
	}
	return time.Time{}, err
}

// waitProgress waits (60 s at most) until the writers have more
// acknowledged writes than before.
func waitProgress(t *testing.T, w *writers, before int) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); w.count() <= before; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no write acknowledged in 60 s (still %d)", before)
		}
	}
}

func TestPGRestart(t *testing.T) {
	t.Parallel()
	// synchronous_commit on: a commit is in the WAL before dynamopg
	// acknowledges it, so it survives the immediate shutdown (the
	// throwaway clusters' default, off, may lose the last commits of a
	// crash by design). fsync stays off: the machine does not crash.
	cl := pgtest.NewCluster(t, "synchronous_commit=on")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	db, _, err := pgtest.CreateDatabase(ctx, cl.URL())
	if err != nil {
		t.Fatal(err)
	}
	s := harness.StartDB(t, "postgres", db, "--request-timeout", "10s")
	table := createHashTable(t, s.Client(), "pg_restart")
	put(t, s.Client(), table, Item{"pk": S("probe")})

	a := &attempts{errors: map[string]int{}}
	w := startWriters(restartClient(s, a, true), table, 4)
	defer w.stop()
	probe := restartClient(s, a, false)
	waitProgress(t, w, 0)
	time.Sleep(500 * time.Millisecond)

	for _, mode := range []string{"fast", "immediate"} {
		before := w.count()
		down := time.Now()
		if err := cl.Stop(mode); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second) // the database refuses connections meanwhile
		if err := cl.Start(); err != nil {
			t.Fatal(err)
		}
		up := time.Now()
		served, err := waitServing(t, probe, table)
		if err != nil {
			t.Fatalf("%s restart: dynamopg did not serve again within 60 s of PostgreSQL accepting connections: %v", mode, err)
		}
		t.Logf("%s restart: PostgreSQL down %v (stop, 1 s pause, start); dynamopg served %v after PostgreSQL accepted connections (%v after the stop began)",
			mode, up.Sub(down).Round(time.Millisecond), served.Sub(up).Round(time.Millisecond), served.Sub(down).Round(time.Millisecond))
		waitProgress(t, w, before)
		time.Sleep(500 * time.Millisecond)
	}
	w.stop()
	w.wg.Wait()

	a.mu.Lock()
	seen := make([]string, 0, len(a.errors))
	errCount := 0
	for k, n := range a.errors {
		seen = append(seen, fmt.Sprintf("%s: %d", k, n))
		errCount += n
		if !retryable(k) {
			t.Errorf("error response %q (%d times) is not one the SDKs retry", k, n)
		}
	}
	sort.Strings(seen)
	t.Logf("%d attempts, %d error responses (%s), longest wait for an answer %v",
		a.total, errCount, strings.Join(seen, ", "), a.longest.Round(time.Millisecond))
	for _, e := range a.noAnswer {
		t.Errorf("an attempt got no answer: %s", e)
	}
	if errCount == 0 {
		t.Errorf("no error response during two outages: the restarts were not observed")
	}
	a.mu.Unlock()
	for code, n := range w.failed {
		t.Logf("%d PutItem calls failed after their retries with %s (not acknowledged, not checked)", n, code)
	}

	checkAcked(t, restartClient(s, &attempts{errors: map[string]int{}}, true), table, w.acked)
}

// checkAcked reads every acknowledged write back with a consistent read.
func checkAcked(t *testing.T, c *dynamodb.Client, table string, acked map[string]string) {
	t.Helper()
	keys := make(chan string)
	var mu sync.Mutex
	var missing []string
	var firstErr error
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for k := range keys {
				out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table),
					Key: Item{"pk": S(k)}, ConsistentRead: aws.Bool(true)})
				mu.Lock()
				switch {
				case err != nil:
					if firstErr == nil {
						firstErr = err
					}
				case out.Item == nil:
					missing = append(missing, k+" (absent)")
				default:
					if got := canon(out.Item["v"]); show(got) != show(canon(N(acked[k]))) {
						missing = append(missing, fmt.Sprintf("%s (v %s, want %s)", k, show(got), acked[k]))
					}
				}
				mu.Unlock()
			}
		})
	}
	for k := range acked {
		keys <- k
	}
	close(keys)
	wg.Wait()
	if firstErr != nil {
		t.Fatalf("reading the acknowledged writes back: %v", firstErr)
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d of %d acknowledged writes lost: %s", len(missing), len(acked), strings.Join(missing[:min(len(missing), 20)], ", "))
	}
	t.Logf("%d acknowledged writes read back with ConsistentRead", len(acked))
}
