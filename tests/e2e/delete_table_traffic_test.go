package e2e

// DeleteTable under write traffic: a table with a GSI is deleted 1 s into
// 16 writer goroutines (puts, updates, queries of the table and of the
// index), SDK retries off. Every writer call either succeeds or gets
// ResourceNotFoundException, never a 5xx; DeleteTable never fails; and the
// table's storage (data tables t_<id>, i_<id>) is gone afterwards.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/dynamopg/dynamopg/tests/harness"
)

const (
	dtRounds  = 8
	dtWriters = 16
)

// dtDataTables counts the data tables in the server's database: PostgreSQL's
// schema dynamopg_data, or the t_/i_ tables of the SQLite file.
func dtDataTables(t *testing.T, s *harness.Server) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var n int
	switch s.Backend {
	case "postgres":
		conn, err := pgx.Connect(ctx, s.DB)
		if err != nil {
			t.Fatalf("connect to %s: %v", s.DB, err)
		}
		defer conn.Close(ctx)
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'dynamopg_data'").Scan(&n); err != nil {
			t.Fatalf("count data tables: %v", err)
		}
	default:
		path := strings.TrimPrefix(s.DB, "sqlite:")
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		if err != nil {
			t.Fatalf("open %s: %v", path, err)
		}
		defer db.Close()
		err = db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table'
			AND (name GLOB 't_[0-9]*' OR name GLOB 'i_[0-9]*')`).Scan(&n)
		if err != nil {
			t.Fatalf("count data tables: %v", err)
		}
	}
	return n
}

// dtOutcome classifies a writer's answer.
func dtOutcome(err error) string {
	if err == nil {
		return "ok"
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() >= 500 {
		return fmt.Sprintf("HTTP %d %s", re.HTTPStatusCode(), ibErrCode(err))
	}
	var nf *types.ResourceNotFoundException
	if errors.As(err, &nf) {
		return "ResourceNotFoundException"
	}
	if code := ibErrCode(err); code != "" {
		return code + ": " + errMessage(err)
	}
	return "transport: " + err.Error()
}

func errMessage(err error) string {
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		return tce.ErrorMessage()
	}
	if msg := err.Error(); len(msg) > 200 {
		return msg[:200]
	}
	return err.Error()
}

// dtRoundResult is what one round saw.
type dtRoundResult struct {
	outcomes      map[string]map[string]int // op -> outcome -> count
	deleteErr     error
	deleteTook    time.Duration
	leftTables    int // data tables left over after the round
	goneAfter     time.Duration
	describeAfter string
}

func dtRound(t *testing.T, s *harness.Server, round int) dtRoundResult {
	c := s.Client()
	ctx := harness.Ctx(t)
	res := dtRoundResult{outcomes: map[string]map[string]int{}}
	before := dtDataTables(t, s)
	table := harness.TableName(fmt.Sprintf("dtt%d", round))
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(table),
		AttributeDefinitions: attrDefs("pk", "S", "g", "S"),
		KeySchema:            keySchema("pk"),
		BillingMode:          types.BillingModePayPerRequest,
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("byG"), KeySchema: keySchema("g"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	must(t, err)
	waitActive(t, c, table)
	ibLoad(t, c, table, 200, func(i int) Item {
		return Item{"pk": S(fmt.Sprintf("k%03d", i)), "g": S(fmt.Sprintf("g%d", i%10)), "n": N("0")}
	})

	var mu sync.Mutex
	record := func(op, outcome string) {
		mu.Lock()
		defer mu.Unlock()
		if res.outcomes[op] == nil {
			res.outcomes[op] = map[string]int{}
		}
		res.outcomes[op][outcome]++
	}
	var deletedAt atomic.Int64 // unix nanos once DeleteTable returned
	var wg sync.WaitGroup
	for w := 0; w < dtWriters; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(seed))
			tbl := aws.String(table)
			for {
				if d := deletedAt.Load(); d != 0 && time.Since(time.Unix(0, d)) > 500*time.Millisecond {
					return
				}
				pk := fmt.Sprintf("k%03d", rnd.Intn(300))
				g := fmt.Sprintf("g%d", rnd.Intn(10))
				cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				var err error
				var op string
				switch rnd.Intn(4) {
				case 0:
					op = "PutItem"
					_, err = c.PutItem(cctx, &dynamodb.PutItemInput{TableName: tbl, Item: Item{"pk": S(pk), "g": S(g), "n": N("1")}})
				case 1:
					op = "UpdateItem"
					_, err = c.UpdateItem(cctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: Item{"pk": S(pk)},
						UpdateExpression:          aws.String("SET g = :g ADD n :one"),
						ExpressionAttributeValues: Item{":g": S(g), ":one": N("1")}})
				case 2:
					op = "Query"
					_, err = c.Query(cctx, &dynamodb.QueryInput{TableName: tbl, KeyConditionExpression: aws.String("pk = :p"),
						ExpressionAttributeValues: Item{":p": S(pk)}})
				case 3:
					op = "Query index"
					_, err = c.Query(cctx, &dynamodb.QueryInput{TableName: tbl, IndexName: aws.String("byG"),
						KeyConditionExpression: aws.String("g = :g"), ExpressionAttributeValues: Item{":g": S(g)}})
				}
				cancel()
				record(op, dtOutcome(err))
			}
		}(int64(round*100 + w))
	}
	time.Sleep(time.Second)
	t0 := time.Now()
	_, res.deleteErr = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	res.deleteTook = time.Since(t0)
	deletedAt.Store(time.Now().UnixNano())
	wg.Wait()

	// The table goes away, and so does its storage.
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil || time.Now().After(deadline) {
			res.describeAfter = dtOutcome(err)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for {
		n := dtDataTables(t, s)
		res.leftTables = n - before
		if n <= before || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	res.goneAfter = time.Since(t0)
	return res
}

// TestDeleteTableTraffic: 8 rounds of DeleteTable 1 s into 16 writers,
// alternating a server with asynchronous index propagation (the queue
// worker in play) and one with synchronous propagation.
func TestDeleteTableTraffic(t *testing.T) {
	t.Parallel()
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			servers := []*harness.Server{
				ibServer(t, backend, "--index-propagation", "async"),
				ibServer(t, backend, "--index-propagation", "sync"),
			}
			total := map[string]map[string]int{}
			deleteFailures, leftover := 0, 0
			var longestDelete time.Duration
			for round := 0; round < dtRounds; round++ {
				s := servers[round%2]
				r := dtRound(t, s, round)
				for op, m := range r.outcomes {
					if total[op] == nil {
						total[op] = map[string]int{}
					}
					for o, n := range m {
						total[op][o] += n
					}
				}
				if r.deleteErr != nil {
					deleteFailures++
					t.Errorf("round %d: DeleteTable failed after %v: %v", round, r.deleteTook, r.deleteErr)
				}
				if r.deleteTook > longestDelete {
					longestDelete = r.deleteTook
				}
				if r.describeAfter != "ResourceNotFoundException" {
					t.Errorf("round %d: DescribeTable after the delete: %s, want ResourceNotFoundException", round, r.describeAfter)
				}
				if r.leftTables > 0 {
					leftover += r.leftTables
					t.Errorf("round %d: %d data tables left 20 s after DeleteTable", round, r.leftTables)
				}
			}
			var lines []string
			bad := 0
			for op, m := range total {
				var parts []string
				for o, n := range m {
					parts = append(parts, fmt.Sprintf("%s %d", o, n))
					if o != "ok" && o != "ResourceNotFoundException" {
						bad += n
					}
				}
				sort.Strings(parts)
				lines = append(lines, op+": "+strings.Join(parts, ", "))
			}
			sort.Strings(lines)
			deadlocks := 0
			for _, s := range servers {
				deadlocks += strings.Count(strings.ToLower(s.Logs()), "deadlock")
			}
			t.Logf("FIGURES %s DeleteTable traffic, %d rounds x %d writers: DeleteTable failures %d (longest %v), data tables left %d, deadlock lines in the server logs %d\n  %s",
				backend, dtRounds, dtWriters, deleteFailures, longestDelete.Round(time.Millisecond), leftover, deadlocks, strings.Join(lines, "\n  "))
			if bad > 0 {
				t.Errorf("%d writer calls got something other than success or ResourceNotFoundException:\n  %s", bad, strings.Join(lines, "\n  "))
			}
			if deadlocks > 0 {
				t.Errorf("%d lines mention a deadlock in the server logs", deadlocks)
			}
		})
	}
}
