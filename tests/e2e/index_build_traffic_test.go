package e2e

// The online index build under live write traffic: writers put, change
// and remove the index keys, delete and run transactions while a hash-only
// GSI and a hash+range GSI on new attributes are added; afterwards a Scan
// of each index equals the projection of a Scan of the table.

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
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

// ibTrafficKeys is the number of items the traffic tests load and write.
const ibTrafficKeys = 2000

var ibTrafficTableKey = []string{"pk", "sk"}

// The indexes added mid-traffic: one on an attribute the items carry, one
// hash+range on attributes a new index makes key attributes.
var (
	ibByG  = ibGSI{Name: "byG", Hash: "g", HashType: "S", Projection: types.ProjectionTypeAll}
	ibByHR = ibGSI{Name: "byHR", Hash: "h", HashType: "S", Range: "r", RangeType: "N",
		Projection: types.ProjectionTypeInclude, NonKey: []string{"v"}}
)

func ibTrafficKey(i int) Item {
	return Item{"pk": S(fmt.Sprintf("p%03d", i/5)), "sk": N(fmt.Sprint(i % 5))}
}

// ibTrafficItem is item i with random index key attributes, each absent now
// and then (sparse indexes).
func ibTrafficItem(rnd *rand.Rand, i, v int) Item {
	it := ibTrafficKey(i)
	it["v"] = N(fmt.Sprint(v))
	it["pad"] = S(strings.Repeat("p", 20+rnd.Intn(60)))
	if rnd.Intn(5) > 0 {
		it["g"] = S(fmt.Sprintf("g%02d", rnd.Intn(20)))
	}
	if rnd.Intn(5) > 0 {
		it["h"] = S(fmt.Sprintf("h%d", rnd.Intn(10)))
	}
	if rnd.Intn(5) > 0 {
		it["r"] = N(fmt.Sprint(rnd.Intn(1000)))
	}
	return it
}

// ibRec is one write a traffic writer made.
type ibRec struct {
	start, end time.Time
	op         string
	class      string // ok, conflict (a transaction conflict), rnf, fail
}

// ibTraffic runs writer goroutines over the traffic items until stopped.
type ibTraffic struct {
	table    string
	stop     chan struct{}
	wg       sync.WaitGroup
	mu       sync.Mutex
	recs     []ibRec
	failures []string
}

func ibClassify(err error) string {
	if err == nil {
		return "ok"
	}
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		conflict := false
		for _, r := range tce.CancellationReasons {
			switch aws.ToString(r.Code) {
			case "None", "":
			case "TransactionConflict":
				conflict = true
			default:
				return "fail"
			}
		}
		if conflict {
			return "conflict"
		}
		return "fail"
	}
	var tc *types.TransactionConflictException
	if errors.As(err, &tc) {
		return "conflict"
	}
	var nf *types.ResourceNotFoundException
	if errors.As(err, &nf) {
		return "rnf"
	}
	return "fail"
}

// ibStartTraffic starts perClient writers on each client.
func ibStartTraffic(clients []*dynamodb.Client, table string, perClient int, seed int64) *ibTraffic {
	tr := &ibTraffic{table: table, stop: make(chan struct{})}
	for ci, c := range clients {
		for w := 0; w < perClient; w++ {
			tr.wg.Add(1)
			go tr.writer(c, seed+int64(ci*100+w))
		}
	}
	return tr
}

func (tr *ibTraffic) writer(c *dynamodb.Client, seed int64) {
	defer tr.wg.Done()
	rnd := rand.New(rand.NewSource(seed))
	tbl := aws.String(tr.table)
	var local []ibRec
	defer func() {
		tr.mu.Lock()
		tr.recs = append(tr.recs, local...)
		tr.mu.Unlock()
	}()
	for n := 0; ; n++ {
		select {
		case <-tr.stop:
			return
		default:
		}
		i := rnd.Intn(ibTrafficKeys)
		v := int(seed)*1000000 + n
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		var err error
		var op string
		start := time.Now()
		switch p := rnd.Intn(100); {
		case p < 30:
			op = "put"
			_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: tbl, Item: ibTrafficItem(rnd, i, v)})
		case p < 55:
			op = "update-key"
			_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tbl, Key: ibTrafficKey(i),
				UpdateExpression: aws.String("SET g = :g, h = :h, r = :r, v = :v"),
				ExpressionAttributeValues: Item{":g": S(fmt.Sprintf("g%02d", rnd.Intn(20))), ":h": S(fmt.Sprintf("h%d", rnd.Intn(10))),
					":r": N(fmt.Sprint(rnd.Intn(1000))), ":v": N(fmt.Sprint(v))}})
		case p < 70:
			op = "remove-key"
			expr := []string{"REMOVE g", "REMOVE r", "REMOVE h", "REMOVE g, h SET v = :v"}[rnd.Intn(4)]
			in := &dynamodb.UpdateItemInput{TableName: tbl, Key: ibTrafficKey(i), UpdateExpression: aws.String(expr)}
			if strings.Contains(expr, ":v") {
				in.ExpressionAttributeValues = Item{":v": N(fmt.Sprint(v))}
			}
			_, err = c.UpdateItem(ctx, in)
		case p < 80:
			op = "delete"
			_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tbl, Key: ibTrafficKey(i)})
		default:
			op = "transact"
			j := rnd.Intn(ibTrafficKeys)
			if j == i {
				j = (i + 1) % ibTrafficKeys
			}
			_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: tbl, Item: ibTrafficItem(rnd, i, v)}},
				{Update: &types.Update{TableName: tbl, Key: ibTrafficKey(j),
					UpdateExpression:          aws.String("SET g = :g, v = :v REMOVE r"),
					ExpressionAttributeValues: Item{":g": S(fmt.Sprintf("g%02d", rnd.Intn(20))), ":v": N(fmt.Sprint(v))}}},
			}})
		}
		cancel()
		rec := ibRec{start: start, end: time.Now(), op: op, class: ibClassify(err)}
		local = append(local, rec)
		if rec.class == "fail" || rec.class == "rnf" {
			tr.mu.Lock()
			tr.failures = append(tr.failures, fmt.Sprintf("%s: %v", op, err))
			tr.mu.Unlock()
		}
	}
}

// Stop stops the writers and waits for them.
func (tr *ibTraffic) Stop() {
	close(tr.stop)
	tr.wg.Wait()
}

// ibWindow is a span of the run (the baseline, a build).
type ibWindow struct{ from, to time.Time }

// stats counts the writes that ended in the windows, their rate, and the
// longest write that overlapped them.
func (tr *ibTraffic) stats(ws ...ibWindow) (n int, rate float64, longest time.Duration) {
	var total time.Duration
	for _, w := range ws {
		total += w.to.Sub(w.from)
	}
	for _, r := range tr.recs {
		for _, w := range ws {
			if !r.end.Before(w.from) && !r.end.After(w.to) {
				n++
			}
			if r.end.After(w.from) && r.start.Before(w.to) {
				if d := r.end.Sub(r.start); d > longest {
					longest = d
				}
			}
		}
	}
	if total > 0 {
		rate = float64(n) / total.Seconds()
	}
	return n, rate, longest
}

func (tr *ibTraffic) counts() map[string]int {
	m := map[string]int{}
	for _, r := range tr.recs {
		m[r.class]++
	}
	return m
}

// ibCreateTrafficTable creates the (pk S, sk N) on-demand table and loads it.
func ibCreateTrafficTable(t *testing.T, c *dynamodb.Client) string {
	t.Helper()
	table := createRangeTable(t, c, "ibtraffic", "N")
	rnd := rand.New(rand.NewSource(1))
	var mu sync.Mutex
	ibLoad(t, c, table, ibTrafficKeys, func(i int) Item {
		mu.Lock()
		defer mu.Unlock()
		return ibTrafficItem(rnd, i, 0)
	})
	return table
}

// ibTrafficRun loads the table, starts writers on every client, adds byG
// then byHR mid-traffic (through the clients in turn), waits for each to be
// ACTIVE, stops the writers and compares each index with the table.
func ibTrafficRun(t *testing.T, label string, s *harness.Server, clients []*dynamodb.Client, perClient int, async bool) {
	c := clients[0]
	table := ibCreateTrafficTable(t, c)
	tr := ibStartTraffic(clients, table, perClient, int64(perClient))
	stopped := false
	defer func() {
		if !stopped {
			tr.Stop()
		}
	}()
	runStart := time.Now()
	time.Sleep(1200 * time.Millisecond)
	baseline := ibWindow{runStart.Add(200 * time.Millisecond), time.Now()}
	var builds []ibWindow
	var figures []string
	for i, g := range []ibGSI{ibByG, ibByHR} {
		cc := clients[i%len(clients)]
		start := time.Now()
		out, dur, err := ibCreateIndex(harness.Ctx(t), cc, table, g)
		if err != nil {
			t.Fatalf("Create %s mid-traffic: %v", g.Name, err)
		}
		if st := ibIndexStatus(out.TableDescription, g.Name); st != "CREATING" {
			t.Errorf("UpdateTable answer: %s is %s, want CREATING", g.Name, st)
		}
		// Reported, not asserted: latency goals belong to make bench, and
		// pgstore's TestBuildRaceWithCatalog proves by ordering that
		// UpdateTable does not wait for writers.
		t.Logf("UpdateTable Create %s under traffic: %v", g.Name, dur)
		states := ibWatch(cc, table, g.Name, start, 10*time.Millisecond, 90*time.Second)
		w := ibWindow{start, time.Now()}
		builds = append(builds, w)
		ibCheckLifecycle(t, states)
		figures = append(figures, fmt.Sprintf("%s: UpdateTable %v, ACTIVE after %v", g.Name, dur.Round(time.Millisecond), w.to.Sub(w.from).Round(time.Millisecond)))
		time.Sleep(300 * time.Millisecond)
	}
	tr.Stop()
	stopped = true
	counts := tr.counts()
	if len(tr.failures) > 0 {
		n := len(tr.failures)
		if n > 10 {
			tr.failures = tr.failures[:10]
		}
		t.Errorf("%d writes failed during the run; first: \n  %s", n, strings.Join(tr.failures, "\n  "))
	}
	nb, rb, lb := tr.stats(baseline)
	nd, rd, ld := tr.stats(builds...)
	t.Logf("FIGURES %s: %s; writes %v; before the builds %d writes in %v = %.0f/s (longest %v); during the builds %d writes in %v = %.0f/s (longest %v)",
		label, strings.Join(figures, "; "), counts, nb, baseline.to.Sub(baseline.from).Round(time.Millisecond), rb, lb.Round(time.Millisecond),
		nd, (builds[0].to.Sub(builds[0].from) + builds[1].to.Sub(builds[1].from)).Round(time.Millisecond), rd, ld.Round(time.Millisecond))
	var results []string
	for _, g := range []ibGSI{ibByG, ibByHR} {
		d := ibExpectIndexEqualsTable(t, clients[len(clients)-1], table, ibTrafficTableKey, g, async)
		results = append(results, g.Name+": "+d.String())
	}
	t.Logf("RESULT %s: %s", label, strings.Join(results, "; "))
	if s.Backend == "postgres" {
		t.Logf("BARRIER %s: %s", label, ibBarrierFigures(t, s, table))
	}
}

// ibBarrierFigures reads how long each build's barrier waited from the
// PostgreSQL view dynamopg.index_build_status (docs/index-build.md).
func ibBarrierFigures(t *testing.T, s *harness.Server, table string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.DB)
	if err != nil {
		return "connect: " + err.Error()
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT index_name, phase, coalesce(barrier_ms, -1), barrier_retries, rows_done, pages, retries
		FROM dynamopg.index_build_status WHERE table_name = $1 ORDER BY index_name`, table)
	if err != nil {
		return "query: " + err.Error()
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name, phase string
		var barrierMs, barrierRetries, pages, retries int64
		var rowsDone int64
		if err := rows.Scan(&name, &phase, &barrierMs, &barrierRetries, &rowsDone, &pages, &retries); err != nil {
			return "scan: " + err.Error()
		}
		out = append(out, fmt.Sprintf("%s %s barrier %d ms (%d lock timeouts), %d rows in %d pages, %d page retries", name, phase, barrierMs, barrierRetries, rowsDone, pages, retries))
	}
	if err := rows.Err(); err != nil {
		return "rows: " + err.Error()
	}
	return strings.Join(out, "; ")
}

// ibServer starts a dedicated server on a fresh database of the backend.
func ibServer(t *testing.T, backend string, args ...string) *harness.Server {
	t.Helper()
	var db string
	if backend == "postgres" {
		db = pgtest.URL(t)
	} else {
		db = "sqlite:" + t.TempDir() + "/ib.db"
	}
	return harness.StartDB(t, backend, db, args...)
}

// TestIndexBuildUnderTraffic: 2,000 items, 4 and then 8 writers; byG and
// byHR added mid-traffic with synchronous and asynchronous propagation; each
// index equals its table afterwards. The backends run in parallel (to keep
// the suite's wall time down), so the throughput figures are taken with the
// other backend's run on the same cores; compare them within a run.
func TestIndexBuildUnderTraffic(t *testing.T) {
	t.Parallel()
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			for _, prop := range []string{"sync", "async"} {
				t.Run(prop, func(t *testing.T) {
					s := ibServer(t, backend, "--index-propagation", prop)
					for _, writers := range []int{4, 8} {
						t.Run(fmt.Sprintf("writers=%d", writers), func(t *testing.T) {
							ibTrafficRun(t, fmt.Sprintf("%s %s %d writers", backend, prop, writers), s, []*dynamodb.Client{s.Client()}, writers, prop == "async")
						})
					}
				})
			}
		})
	}
}
