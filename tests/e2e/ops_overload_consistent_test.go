package e2e

// Overload answered consistently (issue 20, item 6): with a table locked
// for 8 s and --request-timeout 2s, half the refused requests were 500
// (logged at ERROR) and half ThrottlingException, depending on the pool's
// state at the moment of the deadline; and a write abandoned at its
// deadline kept waiting for the lock in PostgreSQL and committed once it
// was released, after the client had been told it failed. Now a request
// that ran out of time waiting for a connection or a lock is cancelled in
// PostgreSQL, applied nothing, and is answered ThrottlingException, every
// time.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/jackc/pgx/v5"

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// lockStorage holds an ACCESS EXCLUSIVE lock on a table's item storage
// (dynamopg_data.t_<id>) until release.
func lockStorage(t *testing.T, db, table string) (release func()) {
	t.Helper()
	ctx := harness.Ctx(t)
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := conn.QueryRow(ctx, "SELECT id FROM dynamopg.tables WHERE name = $1", table).Scan(&id); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, fmt.Sprintf("LOCK TABLE dynamopg_data.t_%d IN ACCESS EXCLUSIVE MODE", id)); err != nil {
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

func TestOpsOverloadThrottlesConsistently(t *testing.T) {
	t.Parallel()
	db := pgtest.URL(t)
	s := harness.StartDB(t, "postgres", db, "--request-timeout", "2s", "--db-max-conns", "4")
	c := s.Client()
	table := createHashTable(t, c, "overload_lock")
	put(t, c, table, Item{"pk": S("r")})

	release := lockStorage(t, db, table)
	var mu sync.Mutex
	answers := map[string]int{}   // "op code" -> count
	writes := map[string]string{} // key -> the write's answer code ("" for 200)
	record := func(op, key string, err error) {
		mu.Lock()
		defer mu.Unlock()
		code := apiCode(err)
		answers[op+" "+code]++
		if key != "" {
			writes[key] = code
		}
	}
	ctx := harness.Ctx(t)
	var wg sync.WaitGroup
	deadline := time.Now().Add(6 * time.Second)
	for g := range 16 {
		wg.Go(func() {
			for i := g; time.Now().Before(deadline); i++ { // each goroutine starts on another operation
				key := fmt.Sprintf("w%d-%d", g, i)
				var err error
				switch i % 4 {
				case 0:
					_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S(key)}})
					record("PutItem", key, err)
				case 1:
					_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S(key)},
						UpdateExpression: aws.String("ADD n :one"), ExpressionAttributeValues: Item{":one": N("1")}})
					record("UpdateItem", key, err)
				case 2:
					_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
						{Put: &types.Put{TableName: aws.String(table), Item: Item{"pk": S(key)}}}}})
					record("TransactWriteItems", key, err)
				default:
					_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("r")}})
					record("GetItem", "", err)
				}
			}
		})
	}
	wg.Wait()
	time.Sleep(2 * time.Second) // the lock is held 8 s in all
	release()

	var seen []string
	for k, n := range answers {
		seen = append(seen, fmt.Sprintf("%s: %d", k, n))
		op, code, _ := strings.Cut(k, " ")
		if code != "" && code != "ThrottlingException" {
			t.Errorf("%s answered %s %d times under the lock, want ThrottlingException", op, code, n)
		}
	}
	sort.Strings(seen)
	t.Logf("answers with the table locked: %s", strings.Join(seen, ", "))
	if answers["GetItem ThrottlingException"] == 0 || answers["PutItem ThrottlingException"] == 0 {
		t.Fatalf("the lock throttled no GetItem or no PutItem: the test did not test")
	}

	// A write answered ThrottlingException applied nothing, then or later.
	time.Sleep(time.Second)
	for key, code := range writes {
		it := get(t, c, table, Item{"pk": S(key)})
		switch {
		case code == "" && it == nil:
			t.Errorf("write %s acknowledged, then absent", key)
		case code == "ThrottlingException" && it != nil:
			t.Errorf("write %s answered ThrottlingException, yet applied: %v", key, it)
		}
	}
}
