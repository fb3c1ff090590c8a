package e2e

// Crashes under write traffic (issue 20): PostgreSQL stopped immediately
// or killed with SIGKILL, dynamopg killed with SIGKILL (on both backends),
// a bank-transfer workload across kills, and two dynamopg processes on one
// database. Each checks what the answers promised (crash_workload_test.go):
// every acknowledged write reads back, no write answered as not applied
// (503 ServiceUnavailable above all) was applied, counters hold their
// acknowledged ADDs and at most the unknown ones besides, transfers
// conserve the total. A few rounds by default; many under
// DYNAMOPG_TEST_LONG=1 (.ci/run).

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// crashCluster is a dedicated PostgreSQL cluster whose commits are durable
// across a crash of its processes (synchronous_commit on; fsync may stay
// off: the machine does not crash), and a database on it.
func crashCluster(t *testing.T) (*pgtest.Cluster, string) {
	t.Helper()
	cl := pgtest.NewCluster(t, "synchronous_commit=on")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, _, err := pgtest.CreateDatabase(ctx, cl.URL())
	if err != nil {
		t.Fatal(err)
	}
	return cl, db
}

// TestCrashPostgresUnderWriters stops PostgreSQL immediately (SIGQUIT to
// its backends) and kills it (SIGKILL to every process), in turns, under
// 16 writers. Before issue 20 a write PostgreSQL had committed was answered
// 503, safe to retry, when the connection died before its answer.
func TestCrashPostgresUnderWriters(t *testing.T) {
	t.Parallel()
	cl, db := crashCluster(t)
	s := harness.StartDB(t, "postgres", db, "--request-timeout", "10s")
	table := createHashTable(t, s.Client(), "crash_pg")
	b := newBook()
	w := runWriters(crashClient(s), table, 16, b)
	defer w.halt()
	waitAcked(t, b, 0)
	rounds := scale(4, 16)
	for r := range rounds {
		time.Sleep(300 * time.Millisecond)
		mode := "immediate"
		var err error
		if r%2 == 1 {
			mode = "SIGKILL"
			err = cl.Kill()
		} else {
			err = cl.Stop("immediate")
		}
		if err != nil {
			t.Fatalf("round %d (%s): %v", r, mode, err)
		}
		time.Sleep(200 * time.Millisecond)
		if err := cl.Start(); err != nil {
			t.Fatalf("round %d (%s): start: %v", r, mode, err)
		}
		waitAcked(t, b, b.acked())
	}
	time.Sleep(300 * time.Millisecond)
	w.halt()
	t.Logf("%d rounds of PostgreSQL stopped immediately or killed under 16 writers", rounds)
	verifyBook(t, s, table, b)
}

// TestCrashDynamopgUnderWriters kills dynamopg with SIGKILL under 8
// writers and starts it again on the same database, on both backends.
func TestCrashDynamopgUnderWriters(t *testing.T) {
	t.Parallel()
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			db := "sqlite:" + filepath.Join(t.TempDir(), "crash.db")
			if backend == "postgres" {
				_, db = crashCluster(t)
			}
			s := harness.StartDB(t, backend, db)
			table := createHashTable(t, s.Client(), "crash_dpg")
			b := newBook()
			w := runWriters(crashClient(s), table, 8, b)
			defer w.halt()
			rounds := scale(2, 10)
			for range rounds {
				waitAcked(t, b, b.acked())
				time.Sleep(500 * time.Millisecond)
				s.Kill()
				s.Resume(t)
			}
			waitAcked(t, b, b.acked())
			w.halt()
			t.Logf("%d rounds of dynamopg killed under 8 writers", rounds)
			verifyBook(t, s, table, b)
		})
	}
}

// transferBank is a bank of accounts a0..a(n-1) with 1000 each, moved
// between by TransactWriteItems (the debit conditional on the balance).
type transferBank struct {
	table    string
	accounts int
	acked    atomic.Int64
	answers  sync.Map // answer -> *atomic.Int64
}

func newTransferBank(t *testing.T, c *dynamodb.Client, accounts int) *transferBank {
	t.Helper()
	bk := &transferBank{table: createHashTable(t, c, "bank"), accounts: accounts}
	for i := range accounts {
		put(t, c, bk.table, Item{"pk": S("a" + strconv.Itoa(i)), "bal": N("1000")})
	}
	return bk
}

// run moves money with n goroutines until ctx ends.
func (bk *transferBank) run(ctx context.Context, c *dynamodb.Client, n int) *sync.WaitGroup {
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				from, to := (g+i)%bk.accounts, (g+2*i+1)%bk.accounts
				if from == to {
					to = (to + 1) % bk.accounts
				}
				amount := N(strconv.Itoa(1 + (g*7+i)%50))
				_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Update: &types.Update{TableName: aws.String(bk.table), Key: Item{"pk": S("a" + strconv.Itoa(from))},
						UpdateExpression:          aws.String("ADD bal :neg"),
						ConditionExpression:       aws.String("bal >= :amt"),
						ExpressionAttributeValues: Item{":neg": N("-" + amount.(*types.AttributeValueMemberN).Value), ":amt": amount}}},
					{Update: &types.Update{TableName: aws.String(bk.table), Key: Item{"pk": S("a" + strconv.Itoa(to))},
						UpdateExpression:          aws.String("ADD bal :amt"),
						ExpressionAttributeValues: Item{":amt": amount}}},
				}})
				if ctx.Err() != nil {
					return
				}
				a := answerOf(err)
				v, _ := bk.answers.LoadOrStore(a, new(atomic.Int64))
				v.(*atomic.Int64).Add(1)
				if err == nil {
					bk.acked.Add(1)
				} else {
					time.Sleep(10 * time.Millisecond)
				}
			}
		})
	}
	return &wg
}

// check reads every balance in one snapshot (TransactGetItems): the total
// is conserved and none is negative. One snapshot, because a transfer whose
// client gave up when the workload stopped may still commit on the server
// while the balances are read: GetItems one after the other could see its
// debit and not its credit.
func (bk *transferBank) check(t *testing.T, s *harness.Server) {
	t.Helper()
	c := s.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 10 })
	gets := make([]types.TransactGetItem, bk.accounts)
	for i := range gets {
		gets[i] = types.TransactGetItem{Get: &types.Get{TableName: aws.String(bk.table), Key: Item{"pk": S("a" + strconv.Itoa(i))}}}
	}
	out, err := c.TransactGetItems(harness.Ctx(t), &dynamodb.TransactGetItemsInput{TransactItems: gets})
	if err != nil {
		t.Fatalf("TransactGetItems of the balances: %v", err)
	}
	total := 0
	for i, r := range out.Responses {
		it := r.Item
		if it == nil {
			t.Fatalf("account a%d is missing", i)
		}
		bal := intOf(it["bal"])
		if bal < 0 {
			t.Errorf("account a%d has a negative balance %d", i, bal)
		}
		total += bal
	}
	if want := 1000 * bk.accounts; total != want {
		t.Errorf("the accounts hold %d in all, want %d: a transfer applied in part", total, want)
	}
	var parts []string
	bk.answers.Range(func(k, v any) bool {
		a := k.(string)
		if a == "" {
			a = "OK"
		}
		parts = append(parts, fmt.Sprintf("%s: %d", a, v.(*atomic.Int64).Load()))
		return true
	})
	t.Logf("transfers: %v; total %d conserved", parts, total)
}

// waitTransfers waits (60 s at most) until more transfers than before are
// acknowledged.
func (bk *transferBank) waitTransfers(t *testing.T, before int64) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); bk.acked.Load() <= before; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no transfer acknowledged in 60 s")
		}
	}
}

// TestCrashTransfersConserved moves money between 10 accounts with 8
// clients while dynamopg is killed (both backends) and, on PostgreSQL,
// while PostgreSQL is killed too: the total never changes.
func TestCrashTransfersConserved(t *testing.T) {
	t.Parallel()
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			db := "sqlite:" + filepath.Join(t.TempDir(), "bank.db")
			var cl *pgtest.Cluster
			if backend == "postgres" {
				cl, db = crashCluster(t)
			}
			s := harness.StartDB(t, backend, db, "--request-timeout", "10s")
			bk := newTransferBank(t, s.Client(), 10)
			ctx, stop := context.WithCancel(context.Background())
			wg := bk.run(ctx, crashClient(s), 8)
			defer func() { stop(); wg.Wait() }()
			rounds := scale(2, 10)
			for r := range rounds {
				bk.waitTransfers(t, bk.acked.Load())
				time.Sleep(300 * time.Millisecond)
				if cl != nil && r%2 == 1 {
					if err := cl.Kill(); err != nil {
						t.Fatal(err)
					}
					time.Sleep(200 * time.Millisecond)
					if err := cl.Start(); err != nil {
						t.Fatal(err)
					}
					continue
				}
				s.Kill()
				s.Resume(t)
			}
			bk.waitTransfers(t, bk.acked.Load())
			stop()
			wg.Wait()
			bk.check(t, s)
		})
	}
}

// TestTwoProcessesOneDatabase runs two dynamopg processes on one database
// (a PostgreSQL database; a SQLite file) with writers on each, ADDing to
// the same counters: nothing is lost or doubled, and each process reads
// what the other wrote.
func TestTwoProcessesOneDatabase(t *testing.T) {
	t.Parallel()
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			db := "sqlite:" + filepath.Join(t.TempDir(), "shared.db")
			if backend == "postgres" {
				db = pgtest.URL(t)
			}
			a := harness.StartDB(t, backend, db)
			bsrv := harness.StartDB(t, backend, db)
			table := createHashTable(t, a.Client(), "two_procs")
			ba, bb := newBook(), newBook()
			wa := runWriters(crashClient(a), table, 4, ba)
			wb := runWriters(crashClient(bsrv), table, 4, bb)
			time.Sleep(time.Duration(scale(2, 30)) * time.Second)
			waitAcked(t, ba, 0)
			waitAcked(t, bb, 0)
			wa.halt()
			wb.halt()
			// The two books write the same counters and distinct keys
			// (w<g>-<i> from each side would collide: merge by counter
			// only, and read each side's puts through the other process).
			merged := newBook()
			for _, src := range []*book{ba, bb} {
				for k, ac := range src.adds {
					m := merged.adds[k]
					if m == nil {
						m = &addCount{}
						merged.adds[k] = m
					}
					m.acked += ac.acked
					m.unknown += ac.unknown
				}
				for ans, n := range src.answers {
					merged.answers[ans] += n
				}
			}
			checkPutsThrough(t, bsrv, table, ba, bb)
			verifyBook(t, a, table, merged)
		})
	}
}

// checkPutsThrough reads the puts both books acknowledged through s: a key
// acknowledged by either process must be there (the last writer of a key
// both wrote is one of them, and both wrote the same attributes).
func checkPutsThrough(t *testing.T, s *harness.Server, table string, books ...*book) {
	t.Helper()
	c := s.Client(func(o *dynamodb.Options) { o.RetryMaxAttempts = 10 })
	seen := map[string]bool{}
	for _, b := range books {
		for k, a := range b.puts {
			if a == "" && !seen[k] {
				seen[k] = true
				if it := get(t, c, table, Item{"pk": S(k)}); it == nil {
					t.Errorf("put %s acknowledged, absent through the other process", k)
				}
			}
		}
	}
	t.Logf("%d acknowledged puts read back through the other process", len(seen))
}
