package e2e

// Log floods (issue 20, item 8): every throttled request wrote a WARN line
// (91,278 lines in 30 s). Repeated lines of one kind are limited to 10 a
// second now, with a count of the others per second, and the metrics
// still count every request.

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

func TestOpsLogFloodLimited(t *testing.T) {
	t.Parallel()
	db := pgtest.URL(t)
	s := harness.StartDB(t, "postgres", db, "--max-in-flight", "1", "--in-flight-wait", "0", "--request-timeout", "30s")
	c := s.Client()
	ctx := harness.Ctx(t)
	table := createHashTable(t, c, "log_flood")
	put(t, c, table, Item{"pk": S("x")})

	// One request holds the only slot, waiting on a locked table.
	release := lockStorage(t, db, table)
	held := make(chan error, 1)
	go func() {
		_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("x")}})
		held <- err
	}()
	waitMetric(t, s, "dynamopg_requests_in_flight", func(v float64) bool { return v >= 1 }, ">= 1")

	start := time.Now()
	var throttled, other atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 200 {
				_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("x")}})
				if apiCode(err) == "ThrottlingException" {
					throttled.Add(1)
				} else {
					other.Add(1)
				}
			}
		})
	}
	wg.Wait()
	flood := time.Since(start)
	release()
	if err := <-held; err != nil {
		t.Fatalf("the request holding the slot: %v", err)
	}
	if other.Load() != 0 {
		t.Fatalf("%d requests were not throttled", other.Load())
	}
	time.Sleep(1500 * time.Millisecond) // the last interval's count is logged at its end

	logs := s.Logs()
	lines, counted := 0, 0
	suppressed := regexp.MustCompile(`suppressed=(\d+)`)
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, "error_type=ThrottlingException") {
			continue
		}
		switch {
		case strings.Contains(line, `msg="request failed"`):
			lines++
		case strings.Contains(line, `msg="log lines suppressed"`):
			m := suppressed.FindStringSubmatch(line)
			n, _ := strconv.Atoi(m[1])
			counted += n
		}
	}
	t.Logf("%d throttled requests in %v: %d WARN lines, %d more counted in summaries", throttled.Load(), flood.Round(time.Millisecond), lines, counted)
	if int64(lines+counted) != throttled.Load() {
		t.Errorf("%d lines + %d counted = %d, want the %d throttled requests", lines, counted, lines+counted, throttled.Load())
	}
	if bound := 10 * (int(flood/time.Second) + 2); lines > bound {
		t.Errorf("%d WARN lines for %d throttled requests in %v, want at most %d (10 a second)", lines, throttled.Load(), flood, bound)
	}
	_, body := httpGet(t, s.URL+"/metrics")
	if v, _ := metricValue(t, body, `dynamopg_errors_total{operation="GetItem",type="ThrottlingException"}`); int64(v) != throttled.Load() {
		t.Errorf("dynamopg_errors_total for the throttled GetItems = %v, want %d", v, throttled.Load())
	}
}
