package e2e

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// TestGracefulShutdownLosesNothing keeps 50 writers busy, sends SIGTERM while
// they run, restarts on the same database and checks that every PutItem that
// was answered 200 is readable.
func TestGracefulShutdownLosesNothing(t *testing.T) {
	t.Parallel()
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			s := harness.Start(t, backend)
			c := s.Client()
			table := createHashTable(t, c, "life")

			const writers = 50
			var (
				wg      sync.WaitGroup
				mu      sync.Mutex
				acked   []string
				started atomic.Int64
			)
			stop := make(chan struct{})
			ctx := harness.Ctx(t)
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						key := fmt.Sprintf("w%02d-%04d", w, i)
						started.Add(1)
						_, err := c.PutItem(ctx, &dynamodb.PutItemInput{
							TableName: aws.String(table),
							Item:      Item{"pk": S(key), "w": N(fmt.Sprint(w)), "i": N(fmt.Sprint(i))},
						})
						if err != nil {
							return // the server is going away
						}
						mu.Lock()
						acked = append(acked, key)
						mu.Unlock()
					}
				}(w)
			}
			// Let the writers get going, then SIGTERM while requests are in flight.
			deadline := time.Now().Add(5 * time.Second)
			for {
				mu.Lock()
				n := len(acked)
				mu.Unlock()
				if n >= writers || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			s.Stop()
			close(stop)
			wg.Wait()

			mu.Lock()
			keys := append([]string(nil), acked...)
			mu.Unlock()
			if len(keys) == 0 {
				t.Fatalf("no PutItem succeeded before shutdown (%d started)", started.Load())
			}
			t.Logf("%d puts acknowledged of %d started", len(keys), started.Load())

			s.Restart(t)
			c = s.Client()
			var lost []string
			for _, k := range keys {
				out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S(k)}, ConsistentRead: aws.Bool(true)})
				if err != nil {
					t.Fatalf("GetItem %s after restart: %v", k, err)
				}
				if out.Item == nil {
					lost = append(lost, k)
				}
			}
			if len(lost) > 0 {
				t.Errorf("%d acknowledged puts lost across graceful shutdown, e.g. %v", len(lost), lost[:min(5, len(lost))])
			}
			// The restarted server still serves writes.
			put(t, c, table, Item{"pk": S("after-restart")})
			assertItem(t, "after restart", get(t, c, table, Item{"pk": S("after-restart")}), Item{"pk": S("after-restart")})
		})
	}
}
