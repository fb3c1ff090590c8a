package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/jackc/pgx/v5"
)

// ---- async index lag ---------------------------------------------------

type lagResult struct {
	Backend      string  `json:"backend"`
	Rate         int     `json:"rate_asked"`
	AchievedRate float64 `json:"rate_achieved"`
	Samples      int     `json:"samples"`
	P50Ms        float64 `json:"p50_ms"`
	P99Ms        float64 `json:"p99_ms"`
	MaxMs        float64 `json:"max_ms"`
	Polls        int     `json:"poller_queries"`
	// CPU is the CPU per timed write from the first timed write until
	// every write was seen: the server and PostgreSQL (the writes, the
	// queue workers' steps and the poller's Queries), and how busy the
	// server CPUs were, whoever used them. Lag is a queue: when the
	// server CPUs are near 1.0 busy it grows without bound, so read
	// the lag beside this.
	CPU cpuUse `json:"cpu"`
	// QueueDBUsPerWrite is the part of DBUsPerOp spent by the queue
	// workers' own backends (PostgreSQL only).
	QueueDBUsPerWrite float64 `json:"queue_db_us_per_write,omitempty"`
	Error             string  `json:"error,omitempty"`
}

// lagPollEvery is the pause between the lag poller's rounds of Queries.
const lagPollEvery = time.Millisecond

// lagPollRuns bounds the Queries of one round of the lag poller.
const lagPollRuns = 8

// lagWarmup is how long the lag run writes and polls, at its rate, before
// the writes it times: for about the first second and a half on a fresh
// table and server, the poller's Queries take 200-300 ms each (cold
// connections, statements and plans), which would otherwise be the run's
// p99.
const lagWarmup = 2 * time.Second

// lagPollArg is the hidden first argument of the lag poller's process:
// `dynamobench __lag-poll ADDR TABLE N`.
const lagPollArg = "__lag-poll"

// measureLag writes at rate/s for dur on a server with async indexes and
// times every write from PutItem returned to the item showing on the GSI.
// Every item has GSI key g = "lag" and its sequence number as the GSI sort
// key. The writes are raw requests from this process; one poller, in a
// process of its own (lagPoll) so that the writers cannot starve it,
// Queries the GSI for the sequence numbers not yet seen every
// lagPollEvery and prints each item's sequence number and the time it
// first saw it. This process tells it the writes that failed (on its
// stdin) and closes its stdin when every write has been seen.
//
// One poller keeps the measurement's own load fixed (one Query in flight):
// a poller per write would put rate × lag / 1 ms Queries in flight, more
// than the server answers once lag grows, and measure that.
func measureLag(ctx context.Context, env *benchEnv, backend string, rate int, dur time.Duration) lagResult {
	r := lagResult{Backend: backend, Rate: rate}
	fmt.Fprintf(os.Stderr, "== async index lag on %s\n", backend)
	srv, err := startDynamopg(ctx, env, backend, "--index-propagation", "async")
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer srv.stop()
	table := fmt.Sprintf("lag_%d", time.Now().UnixNano()%1e9)
	_, err = srv.client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("seq"), AttributeType: types.ScalarAttributeTypeN}},
		KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("byG"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("seq"), KeyType: types.KeyTypeRange}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
	})
	if err != nil {
		r.Error = err.Error()
		return r
	}
	warm := int(lagWarmup.Seconds() * float64(rate))
	n := warm + int(dur.Seconds()*float64(rate))
	returned := make([]atomic.Int64, n) // unix ns; 0: not yet, -1: failed
	seen := make([]atomic.Int64, n)     // unix ns the poller first saw it

	self, err := os.Executable()
	if err != nil {
		r.Error = err.Error()
		return r
	}
	poller := exec.CommandContext(ctx, self, lagPollArg, srv.addr, table, strconv.Itoa(n))
	poller.Stderr = os.Stderr
	toPoller, err := poller.StdinPipe()
	if err != nil {
		r.Error = err.Error()
		return r
	}
	fromPoller, err := poller.StdoutPipe()
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if err := poller.Start(); err != nil {
		r.Error = err.Error()
		return r
	}
	var firstErr atomic.Value
	var progress atomic.Int64 // unix ns of the last write first seen
	progress.Store(time.Now().UnixNano())
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(fromPoller)
		for sc.Scan() {
			line := sc.Text()
			if msg, ok := strings.CutPrefix(line, "E "); ok {
				firstErr.CompareAndSwap(nil, "poller: "+msg)
				continue
			}
			if q, ok := strings.CutPrefix(line, "Q "); ok {
				r.Polls, _ = strconv.Atoi(q)
				continue
			}
			a, b, _ := strings.Cut(line, " ")
			i, err1 := strconv.Atoi(a)
			ns, err2 := strconv.ParseInt(b, 10, 64)
			if err1 == nil && err2 == nil && i >= 0 && i < n {
				seen[i].Store(ns)
				progress.Store(time.Now().UnixNano())
			}
		}
	}()
	var failMu sync.Mutex
	fail := func(i int, err error) {
		returned[i].Store(-1)
		firstErr.CompareAndSwap(nil, err.Error())
		failMu.Lock()
		fmt.Fprintf(toPoller, "%d\n", i)
		failMu.Unlock()
	}

	conns := make(chan *rawConn, 256)
	var wg sync.WaitGroup
	interval := time.Second / time.Duration(rate)
	start := time.Now()
	var timedStart time.Time
	meter := cpuMeter{server: srv.pid}
	if backend == "postgres" {
		if pg, err := env.postgres(ctx); err == nil {
			meter.db = pg.postmaster
		}
	}
	var cpu0 cpuSample
	var queue0 time.Duration
	head := tableField(table) + `,"Item":{"pk":{"S":"k`
	for i := 0; i < n && ctx.Err() == nil; i++ {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		if i == warm {
			// The timed writes keep the rate from here: a warm-up that fell
			// behind would otherwise open them with a burst of its backlog.
			cpu0, queue0 = meter.sample(), queueWorkersCPU(ctx, srv, backend)
			timedStart = time.Now()
			start = timedStart.Add(-time.Duration(i) * interval)
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var c *rawConn
			select {
			case c = <-conns:
			default:
				c = newRawConn(srv.addr, "PutItem")
			}
			c.body = appendKey(append(c.body[:0], head...), "", i, 8)
			c.body = append(c.body, `"},"g":{"S":"lag"},"seq":{"N":"`...)
			c.body = strconv.AppendInt(c.body, int64(i), 10)
			c.body = append(c.body, `"}}}`...)
			status, resp, err := c.do(c.body)
			if err == nil && status != 200 {
				err = fmt.Errorf("PutItem: HTTP %d: %s", status, trunc(string(resp), 200))
			}
			if err != nil {
				c.close()
				fail(i, err)
				return
			}
			returned[i].Store(time.Now().UnixNano())
			select {
			case conns <- c:
			default:
				c.close()
			}
		}(i)
	}
	sent := time.Since(timedStart)
	wg.Wait()
	close(conns)
	for c := range conns {
		c.close()
	}
	// Wait until every write that succeeded has been seen, or for 30 s
	// without one more.
	for ctx.Err() == nil {
		pending := 0
		for i := range n {
			if returned[i].Load() > 0 && seen[i].Load() == 0 {
				pending++
			}
		}
		if pending == 0 {
			break
		}
		if time.Since(time.Unix(0, progress.Load())) > 30*time.Second {
			firstErr.CompareAndSwap(nil, fmt.Sprintf("%d writes not visible on the index after 30 s", pending))
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.CPU = cpuPerOp(cpu0, meter.sample(), int64(n-warm))
	if backend == "postgres" {
		r.QueueDBUsPerWrite = round1(float64((queueWorkersCPU(ctx, srv, backend) - queue0).Microseconds()) / float64(n-warm))
	}
	toPoller.Close()
	<-readDone
	_ = poller.Wait()

	var ok []time.Duration
	for i := warm; i < n; i++ {
		if ret, s := returned[i].Load(), seen[i].Load(); ret > 0 && s > 0 {
			ok = append(ok, time.Duration(max(s-ret, 0)))
		}
	}
	sort.Slice(ok, func(i, j int) bool { return ok[i] < ok[j] })
	r.Samples = len(ok)
	r.AchievedRate = float64(n-warm) / sent.Seconds()
	if len(ok) > 0 {
		r.P50Ms, r.P99Ms, r.MaxMs = msf(ok[len(ok)/2]), msf(ok[min(len(ok)-1, len(ok)*99/100)]), msf(ok[len(ok)-1])
	}
	if e, has := firstErr.Load().(string); has && e != "" {
		r.Error = fmt.Sprintf("%d of %d timed writes failed or never showed; first: %s", n-warm-len(ok), n-warm, e)
	}
	fmt.Fprintf(os.Stderr, "   %d samples at %.0f writes/s, p50 %.2f ms, p99 %.2f ms, %d Queries; cpu/write µs: server %.1f db %.1f (queue workers %.1f), busy %.2f (cpus %.2f) %s\n",
		r.Samples, r.AchievedRate, r.P50Ms, r.P99Ms, r.Polls, r.CPU.ServerUsPerOp, r.CPU.DBUsPerOp, r.QueueDBUsPerWrite,
		r.CPU.ServerCoresBusy, r.CPU.ServerCPUsBusy, r.Error)
	return r
}

// queueWorkersCPU is the CPU time of the PostgreSQL backends of srv's queue
// workers (application_name dynamopg-queue, pgstore.WorkerApplicationName),
// 0 on SQLite or when it cannot be read.
func queueWorkersCPU(ctx context.Context, srv *proc, backend string) time.Duration {
	if backend != "postgres" {
		return 0
	}
	conn, err := pgx.Connect(ctx, srv.db)
	if err != nil {
		return 0
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity
	 WHERE datname = current_database() AND application_name = 'dynamopg-queue'`)
	if err != nil {
		return 0
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return 0
	}
	var total time.Duration
	for _, pid := range pids {
		total += cpuOf(int(pid))
	}
	return total
}

// maybeLagPoll runs the lag poller when os.Args asks for it, and exits.
func maybeLagPoll() {
	if len(os.Args) < 2 || os.Args[1] != lagPollArg {
		return
	}
	if len(os.Args) != 5 {
		fatalf("%s ADDR TABLE N", lagPollArg)
	}
	n, err := strconv.Atoi(os.Args[4])
	if err != nil {
		fatalf("%s: %v", lagPollArg, err)
	}
	lagPoll(os.Args[2], os.Args[3], n, os.Stdin, os.Stdout)
	os.Exit(0)
}

// lagPoll Queries the lag table's GSI until in ends (or every write has
// been seen), writing "SEQ UNIXNANO" for each write the first time a Query
// returns it, "E message" for an error and, at the end, "Q count" of the
// Queries made. in gives the sequence numbers of writes that failed.
//
// Each round reads only the sequence numbers still pending: the runs of
// unseen writes, the last one open-ended (writes to come; pendingRuns).
// Reading everything from the lowest unseen write instead made one late
// write cost a re-read of every write after it on each round: the
// measurement's own load grew with the lag it measured.
func lagPoll(addr, table string, n int, in io.Reader, out io.Writer) {
	w := bufio.NewWriter(out)
	defer w.Flush()
	var mu sync.Mutex
	skip := make([]bool, n) // seen or failed
	left := n
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			if i, err := strconv.Atoi(sc.Text()); err == nil && i >= 0 && i < n {
				mu.Lock()
				if !skip[i] {
					skip[i] = true
					left--
				}
				mu.Unlock()
			}
		}
	}()
	c := newRawConn(addr, "Query")
	defer c.close()
	head := tableField(table) + `,"IndexName":"byG","ExpressionAttributeValues":{":g":{"S":"lag"},":a":{"N":"`
	var resp struct {
		Items []struct {
			Seq struct{ N string } `json:"seq"`
		}
		LastEvaluatedKey json.RawMessage
	}
	queries := 0
	defer func() { fmt.Fprintf(w, "Q %d\n", queries) }()
	for {
		select {
		case <-done:
			return
		default:
		}
		mu.Lock()
		runs := pendingRuns(skip, lagPollRuns)
		finished := left == 0
		mu.Unlock()
		if finished {
			return
		}
		for _, run := range runs {
			var start json.RawMessage
			for {
				c.body = strconv.AppendInt(append(c.body[:0], head...), int64(run[0]), 10)
				cond := "g = :g AND seq >= :a"
				if run[1] >= 0 {
					c.body = strconv.AppendInt(append(c.body, `"},":b":{"N":"`...), int64(run[1]), 10)
					cond = "g = :g AND seq BETWEEN :a AND :b"
				}
				c.body = append(c.body, `"}},"KeyConditionExpression":"`+cond+`"`...)
				if start != nil {
					c.body = append(append(c.body, `,"ExclusiveStartKey":`...), start...)
				}
				c.body = append(c.body, '}')
				status, body, err := c.do(c.body)
				queries++
				if err == nil && status != 200 {
					err = fmt.Errorf("Query: HTTP %d: %s", status, trunc(string(body), 200))
				}
				if err == nil {
					resp.Items, resp.LastEvaluatedKey = resp.Items[:0], nil
					err = json.Unmarshal(body, &resp)
				}
				if err != nil {
					fmt.Fprintf(w, "E %s\n", err)
					w.Flush()
					time.Sleep(100 * time.Millisecond)
					break
				}
				now := time.Now().UnixNano()
				mu.Lock()
				for _, it := range resp.Items {
					if i, err := strconv.Atoi(it.Seq.N); err == nil && i >= 0 && i < n && !skip[i] {
						skip[i] = true
						left--
						fmt.Fprintf(w, "%d %d\n", i, now)
					}
				}
				mu.Unlock()
				if len(resp.LastEvaluatedKey) == 0 || string(resp.LastEvaluatedKey) == "null" {
					break
				}
				start = append(start[:0], resp.LastEvaluatedKey...)
			}
		}
		w.Flush()
		time.Sleep(lagPollEvery)
	}
}

// pendingRuns returns the sequence numbers not skipped (seen or failed)
// as at most maxRuns inclusive ranges [a, b] in order, the last one open
// ([a, -1]) when it reaches the end of the run. Beyond maxRuns, the runs
// with the smallest gaps between them are merged (re-reading those gaps).
func pendingRuns(skip []bool, maxRuns int) [][2]int {
	var runs [][2]int
	for i := range skip {
		if skip[i] {
			continue
		}
		if n := len(runs); n > 0 && runs[n-1][1] == i-1 {
			runs[n-1][1] = i
		} else {
			runs = append(runs, [2]int{i, i})
		}
	}
	for len(runs) > maxRuns {
		best := 0
		for j := 1; j < len(runs)-1; j++ {
			if runs[j+1][0]-runs[j][1] < runs[best+1][0]-runs[best][1] {
				best = j
			}
		}
		runs[best][1] = runs[best+1][1]
		runs = append(runs[:best+1], runs[best+2:]...)
	}
	if n := len(runs); n > 0 && runs[n-1][1] == len(skip)-1 {
		runs[n-1][1] = -1
	}
	return runs
}
