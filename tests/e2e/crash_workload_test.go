package e2e

// The workload and the bookkeeping of the crash tests (crash_test.go):
// writers that record the answer to every write attempt, and the check
// that what the answers promised holds afterwards.
//
// A write's answer promises: 200, that it is applied; InternalServerError
// or no answer at all (the server or the connection died), nothing (its
// outcome is unknown); any other error (ServiceUnavailable,
// ThrottlingException, a client error), that nothing was applied.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// EnvLong, set to 1, makes the crash and soak tests run many rounds
// (minutes) instead of a few (seconds); .ci/run sets it.
const EnvLong = "DYNAMOPG_TEST_LONG"

// scale is short, or long under DYNAMOPG_TEST_LONG=1.
func scale(short, long int) int {
	if os.Getenv(EnvLong) == "1" {
		return long
	}
	return short
}

// answerOf names a write's answer: "" for success, the error code, or
// "no answer" for a transport failure.
func answerOf(err error) string {
	if err == nil {
		return ""
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return "no answer"
}

// outcomeUnknown reports an answer that promises neither way.
func outcomeUnknown(answer string) bool {
	return answer == "InternalServerError" || answer == "no answer"
}

// crashClient is an SDK client without retries, so that every attempt's
// answer is recorded, with a transport of its own.
func crashClient(s *harness.Server) *dynamodb.Client {
	return dynamodb.NewFromConfig(aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", ""),
		HTTPClient:  &http.Client{Transport: harness.NewTransport(), Timeout: 30 * time.Second},
	}, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(s.URL)
		o.RetryMaxAttempts = 1
	})
}

// book records the answers of the writers' attempts.
type book struct {
	mu      sync.Mutex
	puts    map[string]string    // item key -> answer
	adds    map[string]*addCount // counter key -> its ADD answers
	answers map[string]int       // answer -> count, all writes
}

type addCount struct{ acked, unknown int }

func newBook() *book {
	return &book{puts: map[string]string{}, adds: map[string]*addCount{}, answers: map[string]int{}}
}

func (b *book) put(key string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := answerOf(err)
	b.puts[key] = a
	b.answers[a]++
}

func (b *book) add(counter string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := answerOf(err)
	c := b.adds[counter]
	if c == nil {
		c = &addCount{}
		b.adds[counter] = c
	}
	switch {
	case a == "":
		c.acked++
	case outcomeUnknown(a):
		c.unknown++
	}
	b.answers[a]++
}

func (b *book) acked() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.answers[""]
}

func (b *book) summary() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return summaryLocked(b)
}

// crashWriters run n goroutines of puts (unique keys w<g>-<i>) and ADDs
// (on counters c0..c3) through a client until halted.
type crashWriters struct {
	stop context.CancelFunc
	wg   sync.WaitGroup
}

func runWriters(c *dynamodb.Client, table string, n int, b *book) *crashWriters {
	ctx, stop := context.WithCancel(context.Background())
	w := &crashWriters{stop: stop}
	for g := range n {
		w.wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				var err error
				if i%4 == 3 {
					counter := "c" + strconv.Itoa(g%4)
					_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S(counter)},
						UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: Item{":one": N("1")}})
					b.add(counter, err) // an attempt cut by halt is of unknown outcome
				} else {
					key := fmt.Sprintf("w%d-%d", g, i)
					_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S(key), "v": S(key)}})
					b.put(key, err)
				}
				if err != nil {
					time.Sleep(10 * time.Millisecond) // no spinning on a server that is down
				}
			}
		})
	}
	return w
}

func (w *crashWriters) halt() {
	w.stop()
	w.wg.Wait()
}

// waitAcked waits (60 s at most) until the book has more acknowledged
// writes than before.
func waitAcked(t *testing.T, b *book, before int) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); b.acked() <= before; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no write acknowledged in 60 s (answers: %s)", b.summary())
		}
	}
}

// verifyBook reads every recorded write back with ConsistentRead (with
// retries: the reads may follow a restart) and checks the answers'
// promises: an acknowledged put is there, a put whose answer said nothing
// was applied is not, and each counter holds its acknowledged ADDs and at
// most its unknown ones besides.
func verifyBook(t *testing.T, s *harness.Server, table string, b *book) {
	t.Helper()
	c := s.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 10 })
	b.mu.Lock()
	defer b.mu.Unlock()
	keys := make(chan string)
	var mu sync.Mutex
	var lost, applied []string
	var firstErr error
	unknownApplied, unknown := 0, 0
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for k := range keys {
				out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S(k)}, ConsistentRead: aws.Bool(true)})
				mu.Lock()
				a := b.puts[k]
				switch {
				case err != nil:
					if firstErr == nil {
						firstErr = err
					}
				case a == "" && out.Item == nil:
					lost = append(lost, k)
				case outcomeUnknown(a):
					unknown++
					if out.Item != nil {
						unknownApplied++
					}
				case a != "" && out.Item != nil:
					applied = append(applied, k+" ("+a+")")
				}
				mu.Unlock()
			}
		})
	}
	for k := range b.puts {
		keys <- k
	}
	close(keys)
	wg.Wait()
	if firstErr != nil {
		t.Fatalf("reading the writes back: %v", firstErr)
	}
	sort.Strings(lost)
	sort.Strings(applied)
	if len(lost) > 0 {
		t.Errorf("%d acknowledged puts lost: %s", len(lost), strings.Join(lost[:min(len(lost), 20)], ", "))
	}
	if len(applied) > 0 {
		t.Errorf("%d puts answered as not applied were applied: %s", len(applied), strings.Join(applied[:min(len(applied), 20)], ", "))
	}
	for counter, ac := range b.adds {
		out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S(counter)}, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatalf("reading counter %s: %v", counter, err)
		}
		n := intOf(out.Item["n"])
		if n < ac.acked || n > ac.acked+ac.unknown {
			t.Errorf("counter %s = %d, want between its %d acknowledged ADDs and %d (with the %d of unknown outcome)", counter, n, ac.acked, ac.acked+ac.unknown, ac.unknown)
		}
	}
	t.Logf("answers: %s; %d puts read back, %d of unknown outcome (%d of them applied)", summaryLocked(b), len(b.puts), unknown, unknownApplied)
}

func summaryLocked(b *book) string {
	var parts []string
	for a, n := range b.answers {
		if a == "" {
			a = "OK"
		}
		parts = append(parts, fmt.Sprintf("%s: %d", a, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// intOf is a number attribute's value (0 when absent).
func intOf(av types.AttributeValue) int {
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	v, _ := strconv.Atoi(n.Value)
	return v
}
