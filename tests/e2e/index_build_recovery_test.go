package e2e

// The online index build across process failures: a server killed with
// SIGKILL in the middle of a backfill finishes the index after restart, and
// two server processes on one PostgreSQL database, both taking writes, build
// an index that equals the table.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// ibKillShapes are the indexes TestIndexBuildKillRestart builds: a
// single-attribute key, and a multi-attribute one (2 + 2, issue 19).
var ibKillShapes = []struct {
	name string
	g    ibGSI
	kce  string // a Query on the key attributes of the item written after the restart
}{
	{"single", ibGSI{Name: "gixK", Hash: "ga", HashType: "S", Range: "n", RangeType: "N",
		Projection: types.ProjectionTypeInclude, NonKey: []string{"g0"}}, "ga = :g"},
	{"multi", ibGSI{Name: "gixM", Hash: "ga", HashType: "S", MoreHash: []string{"gb", "S"},
		Range: "n", RangeType: "N", MoreRange: []string{"gc", "S"},
		Projection: types.ProjectionTypeInclude, NonKey: []string{"g0"}}, "ga = :g AND gb = :b"},
}

// TestIndexBuildKillRestart: kill -9 while the backfill runs, restart; the
// index is still there, finishes (recovery at startup) and equals the table.
func TestIndexBuildKillRestart(t *testing.T) {
	t.Parallel()
	for _, backend := range harness.Backends {
		for _, shape := range ibKillShapes {
			t.Run(backend+"/"+shape.name, func(t *testing.T) {
				t.Parallel()
				ibKillRestart(t, backend, shape.g, shape.kce)
			})
		}
	}
}

// ibKillRestart builds g on a fresh server of the backend, killed with
// SIGKILL mid-backfill and restarted.
func ibKillRestart(t *testing.T, backend string, g ibGSI, kce string) {
	s := ibServer(t, backend)
	c := s.Client()
	ctx := harness.Ctx(t)
	table := createHashTable(t, c, "ibkill")
	nItems := ibItemsFor(backend)
	ibLoad(t, c, table, nItems, ibBehaviourItem)

	// A writer keeps going until the kill, so that the build is
	// interrupted with writes maintaining the CREATING index too.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			it := ibBehaviourItem(i * 37 % (nItems + 1000))
			it["ga"] = S(fmt.Sprintf("w%d", i))
			cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, _ = c.PutItem(cctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: it})
			cancel()
		}
	}()

	start := time.Now()
	if _, _, err := ibCreateIndex(ctx, c, table, g); err != nil {
		t.Fatalf("Create: %v", err)
	}
	// Kill once the backfill is under way.
	var last string
	for time.Since(start) < 60*time.Second {
		d := ibDescribe(t, c, table)
		gd := ibFindGSI(d, g.Name)
		if gd == nil {
			t.Fatalf("index %s vanished during its build", g.Name)
		}
		last = string(gd.IndexStatus)
		if gd.IndexStatus != types.IndexStatusCreating || aws.ToBool(gd.Backfilling) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	if last != "CREATING" {
		close(stop)
		wg.Wait()
		t.Fatalf("the build finished (%s) before the kill; inconclusive, make the table bigger", last)
	}
	time.Sleep(30 * time.Millisecond)
	s.Kill()
	killedAt := time.Since(start)
	close(stop)
	wg.Wait()

	s.Restart(t)
	c = s.Client()
	restarted := time.Now()
	d := ibDescribe(t, c, table)
	if st := ibIndexStatus(d, g.Name); st != "CREATING" && st != "ACTIVE" {
		t.Fatalf("after restart the index is %s, want CREATING (then ACTIVE) or ACTIVE", st)
	}
	states := ibWatch(c, table, g.Name, restarted, 20*time.Millisecond, 90*time.Second)
	ibCheckLifecycle(t, states)
	t.Logf("FIGURES %s kill -9: killed %v into the build (index %s before the kill); ACTIVE %v after the restart; states after restart:\n%s",
		backend, killedAt.Round(time.Millisecond), last, time.Since(restarted).Round(time.Millisecond), ibStates(states))
	ibExpectIndexEqualsTable(t, c, table, []string{"pk"}, g, false)
	// The recovered index is maintained by new writes.
	put(t, c, table, Item{"pk": S("after-restart"), "ga": S("zz"), "gb": S("zb"), "gc": S("zc"), "n": N("1"), "g0": S("x")})
	vals := Item{":g": S("zz")}
	if strings.Contains(kce, ":b") {
		vals[":b"] = S("zb")
	}
	res, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(g.Name),
		KeyConditionExpression: aws.String(kce), ExpressionAttributeValues: vals})
	if err != nil || len(res.Items) != 1 {
		t.Errorf("Query of the recovered index for a new write: %v, %d items", err, len(res.Items))
	}
}

// TestIndexBuildTwoProcesses: two server processes on one PostgreSQL
// database, writers on both, byG added through one and byHR through the
// other mid-traffic: 0 failed writes and each index equals the table.
func TestIndexBuildTwoProcesses(t *testing.T) {
	t.Parallel()
	for _, prop := range []string{"sync", "async"} {
		t.Run(prop, func(t *testing.T) {
			t.Parallel()
			db := pgtest.URL(t)
			a := harness.StartDB(t, "postgres", db, "--index-propagation", prop)
			b := harness.StartDB(t, "postgres", db, "--index-propagation", prop)
			ibTrafficRun(t, "postgres two processes "+prop+" 4+4 writers", a, []*dynamodb.Client{a.Client(), b.Client()}, 4, prop == "async")
		})
	}
}
