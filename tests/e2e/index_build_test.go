package e2e

// End-to-end tests of the online index build (issue 5): UpdateTable adds a
// global secondary index to a live table, returns at once with the index
// CREATING, and the store backfills it while writes go on. This file has
// the shared helpers and the behaviour tests (the service's answers while
// an index is CREATING); index_build_traffic_test.go has the build under
// write traffic and index_build_recovery_test.go kill -9 and two server
// processes.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// ibMsgLimit is the service's refusal of a second index change during a build.
const ibMsgLimit = "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"

func ibNoIndex(name string) string { return "The table does not have the specified index: " + name }

func ibMismatch(k, exp, act, ix string) string {
	return fmt.Sprintf("One or more parameter values were invalid: Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", k, exp, act, ix)
}

// ibGSI describes a global secondary index a test adds with UpdateTable.
type ibGSI struct {
	Name             string
	Hash, HashType   string
	Range, RangeType string // empty for a hash-only index
	Projection       types.ProjectionType
	NonKey           []string // INCLUDE
	Provisioned      bool     // the table is PROVISIONED: send throughput
	ExtraDefs        []string // more AttributeDefinitions name/type pairs to send
	// MoreHash and MoreRange are name/type pairs of a multi-attribute key's
	// further partition and sort attributes (MoreRange needs Range).
	MoreHash, MoreRange []string
}

// keyNames are the index's key attributes in KeySchema order.
func (g ibGSI) keyNames() []string {
	names := []string{g.Hash}
	for i := 0; i < len(g.MoreHash); i += 2 {
		names = append(names, g.MoreHash[i])
	}
	if g.Range != "" {
		names = append(names, g.Range)
		for i := 0; i < len(g.MoreRange); i += 2 {
			names = append(names, g.MoreRange[i])
		}
	}
	return names
}

func (g ibGSI) action() *types.CreateGlobalSecondaryIndexAction {
	a := &types.CreateGlobalSecondaryIndexAction{
		IndexName:  aws.String(g.Name),
		Projection: &types.Projection{ProjectionType: g.Projection},
	}
	for i, n := range g.keyNames() {
		kt := types.KeyTypeHash
		if i > len(g.MoreHash)/2 {
			kt = types.KeyTypeRange
		}
		a.KeySchema = append(a.KeySchema, types.KeySchemaElement{AttributeName: aws.String(n), KeyType: kt})
	}
	if g.Projection == types.ProjectionTypeInclude {
		a.Projection.NonKeyAttributes = g.NonKey
	}
	if g.Provisioned {
		a.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	}
	return a
}

func (g ibGSI) defs() []types.AttributeDefinition {
	kv := append([]string{g.Hash, g.HashType}, g.MoreHash...)
	if g.Range != "" {
		kv = append(append(kv, g.Range, g.RangeType), g.MoreRange...)
	}
	return attrDefs(append(kv, g.ExtraDefs...)...)
}

// ibCreateIndex sends UpdateTable with one GSI Create and times it.
func ibCreateIndex(ctx context.Context, c *dynamodb.Client, table string, g ibGSI) (*dynamodb.UpdateTableOutput, time.Duration, error) {
	t0 := time.Now()
	out, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName:                   aws.String(table),
		AttributeDefinitions:        g.defs(),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: g.action()}},
	})
	return out, time.Since(t0), err
}

// ibDeleteIndex sends UpdateTable with one GSI Delete.
func ibDeleteIndex(ctx context.Context, c *dynamodb.Client, table, index string) error {
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
		TableName: aws.String(table),
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{
			Delete: &types.DeleteGlobalSecondaryIndexAction{IndexName: aws.String(index)},
		}},
	})
	return err
}

func ibDescribe(t *testing.T, c *dynamodb.Client, table string) *types.TableDescription {
	t.Helper()
	out, err := c.DescribeTable(harness.Ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatalf("DescribeTable %s: %v", table, err)
	}
	return out.Table
}

func ibFindGSI(d *types.TableDescription, name string) *types.GlobalSecondaryIndexDescription {
	if d == nil {
		return nil
	}
	for i := range d.GlobalSecondaryIndexes {
		if aws.ToString(d.GlobalSecondaryIndexes[i].IndexName) == name {
			return &d.GlobalSecondaryIndexes[i]
		}
	}
	return nil
}

func ibIndexStatus(d *types.TableDescription, name string) string {
	if g := ibFindGSI(d, name); g != nil {
		return string(g.IndexStatus)
	}
	return "absent"
}

// ibDefs renders a table's AttributeDefinitions as sorted "name:type".
func ibDefs(d *types.TableDescription) []string {
	var out []string
	for _, a := range d.AttributeDefinitions {
		out = append(out, aws.ToString(a.AttributeName)+":"+string(a.AttributeType))
	}
	sort.Strings(out)
	return out
}

// ibState is one DescribeTable sample while an index builds.
type ibState struct {
	At          time.Duration
	TableStatus string
	Status      string // IndexStatus, or "absent"
	Backfilling *bool
	Err         error
}

func (s ibState) String() string {
	bf := "nil"
	if s.Backfilling != nil {
		bf = fmt.Sprint(*s.Backfilling)
	}
	if s.Err != nil {
		return fmt.Sprintf("%v: error %v", s.At.Round(time.Millisecond), s.Err)
	}
	return fmt.Sprintf("%v: table %s index %s backfilling %s", s.At.Round(time.Millisecond), s.TableStatus, s.Status, bf)
}

// ibWatch polls DescribeTable until the index is no longer CREATING (ACTIVE
// or absent) or the timeout, and returns the distinct states it saw (each
// change once, with the time since since).
func ibWatch(c *dynamodb.Client, table, index string, since time.Time, every, timeout time.Duration) []ibState {
	var states []ibState
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		cancel()
		st := ibState{At: time.Since(since), Err: err}
		if err == nil {
			st.TableStatus = string(out.Table.TableStatus)
			st.Status = ibIndexStatus(out.Table, index)
			if g := ibFindGSI(out.Table, index); g != nil {
				st.Backfilling = g.Backfilling
			}
		}
		if n := len(states); n == 0 || !ibSameState(states[n-1], st) {
			states = append(states, st)
		}
		if err == nil && st.Status != string(types.IndexStatusCreating) {
			return states
		}
		if time.Now().After(deadline) {
			return states
		}
		time.Sleep(every)
	}
}

func ibSameState(a, b ibState) bool {
	if (a.Err == nil) != (b.Err == nil) {
		return false
	}
	return a.TableStatus == b.TableStatus && a.Status == b.Status && reflect.DeepEqual(a.Backfilling, b.Backfilling)
}

// ibCheckLifecycle asserts the service's sequence: CREATING with Backfilling
// false, then true, then ACTIVE with Backfilling absent; the table ACTIVE
// in every sample. It returns whether Backfilling false and true were seen.
func ibCheckLifecycle(t *testing.T, states []ibState) (sawFalse, sawTrue bool) {
	t.Helper()
	if len(states) == 0 {
		t.Fatal("no DescribeTable samples")
	}
	for i, s := range states {
		if s.Err != nil {
			t.Errorf("DescribeTable during the build: %v", s.Err)
			continue
		}
		if s.TableStatus != "ACTIVE" {
			t.Errorf("sample %d (%s): table status %s, want ACTIVE throughout the build", i, s, s.TableStatus)
		}
		switch s.Status {
		case "CREATING":
			if s.Backfilling == nil {
				t.Errorf("sample %d (%s): a CREATING index must carry Backfilling (false, then true)", i, s)
			} else if *s.Backfilling {
				sawTrue = true
			} else {
				sawFalse = true
				if sawTrue {
					t.Errorf("sample %d (%s): Backfilling went back from true to false", i, s)
				}
			}
		case "ACTIVE":
			if i != len(states)-1 {
				t.Errorf("sample %d (%s): ACTIVE before the last sample", i, s)
			}
			if s.Backfilling != nil {
				t.Errorf("sample %d (%s): an ACTIVE index must not carry Backfilling", i, s)
			}
		default:
			t.Errorf("sample %d (%s): unexpected index status", i, s)
		}
	}
	last := states[len(states)-1]
	if last.Status != "ACTIVE" {
		t.Fatalf("index did not become ACTIVE; states:\n%s", ibStates(states))
	}
	return sawFalse, sawTrue
}

func ibStates(states []ibState) string {
	var b strings.Builder
	for _, s := range states {
		b.WriteString("  " + s.String() + "\n")
	}
	return b.String()
}

// ibLoad writes n items with BatchWriteItem from 4 goroutines.
func ibLoad(t *testing.T, c *dynamodb.Client, table string, n int, gen func(i int) Item) {
	t.Helper()
	var wg sync.WaitGroup
	errc := make(chan error, 4)
	const batch = 25
	next := make(chan int)
	go func() {
		for i := 0; i < n; i += batch {
			next <- i
		}
		close(next)
	}()
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for from := range next {
				var reqs []types.WriteRequest
				for i := from; i < from+batch && i < n; i++ {
					reqs = append(reqs, btPut(gen(i)))
				}
				pending := map[string][]types.WriteRequest{table: reqs}
				for tries := 0; len(pending) > 0; tries++ {
					if tries > 20 {
						errc <- fmt.Errorf("BatchWriteItem: items left unprocessed after 20 tries")
						return
					}
					out, err := c.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: pending})
					if err != nil {
						errc <- fmt.Errorf("BatchWriteItem: %w", err)
						return
					}
					pending = out.UnprocessedItems
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
}

// ibScanAll scans a table (index "") or an index, all pages.
func ibScanAll(t *testing.T, c *dynamodb.Client, table, index string) []Item {
	t.Helper()
	items, err := ibScanAllErr(c, table, index)
	if err != nil {
		t.Fatalf("Scan %s %s: %v", table, index, err)
	}
	return items
}

func ibScanAllErr(c *dynamodb.Client, table, index string) ([]Item, error) {
	var out []Item
	var start Item
	for {
		in := &dynamodb.ScanInput{TableName: aws.String(table), ExclusiveStartKey: start}
		if index != "" {
			in.IndexName = aws.String(index)
		} else {
			in.ConsistentRead = aws.Bool(true)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, err := c.Scan(ctx, in)
		cancel()
		if err != nil {
			return nil, err
		}
		out = append(out, res.Items...)
		if res.LastEvaluatedKey == nil {
			return out, nil
		}
		start = res.LastEvaluatedKey
	}
}

// ibBaseKey renders an item's table key as a string.
func ibBaseKey(it Item, tableKey []string) string {
	var parts []string
	for _, k := range tableKey {
		parts = append(parts, show(canon(it[k])))
	}
	return strings.Join(parts, "|")
}

// ibProject is what the index should hold for a table item, or nil when the
// item lacks an index key attribute (a sparse index).
func ibProject(it Item, tableKey []string, g ibGSI) Item {
	for _, n := range g.keyNames() {
		if _, ok := it[n]; !ok {
			return nil
		}
	}
	switch g.Projection {
	case types.ProjectionTypeAll:
		return it
	}
	out := Item{}
	names := append(append([]string{}, tableKey...), g.keyNames()...)
	if g.Projection == types.ProjectionTypeInclude {
		names = append(names, g.NonKey...)
	}
	for _, n := range names {
		if v, ok := it[n]; ok {
			out[n] = v
		}
	}
	return out
}

// ibDiff is how an index differs from the projection of its table.
type ibDiff struct {
	Expected, Indexed            int // rows the table implies, rows the index holds
	Missing, Extra, Stale, Twice int
	Examples                     []string
}

func (d ibDiff) Bad() bool { return d.Missing+d.Extra+d.Stale+d.Twice != 0 }

func (d ibDiff) String() string {
	return fmt.Sprintf("%d rows expected, %d indexed: %d missing, %d extra, %d stale, %d indexed twice",
		d.Expected, d.Indexed, d.Missing, d.Extra, d.Stale, d.Twice)
}

// ibCompare compares an index scan with the projection of a table scan.
func ibCompare(tableKey []string, g ibGSI, tableItems, indexItems []Item) ibDiff {
	var d ibDiff
	example := func(format string, a ...any) {
		if len(d.Examples) < 6 {
			d.Examples = append(d.Examples, fmt.Sprintf(format, a...))
		}
	}
	want := map[string]Item{}
	for _, it := range tableItems {
		if p := ibProject(it, tableKey, g); p != nil {
			want[ibBaseKey(it, tableKey)] = p
		}
	}
	d.Expected = len(want)
	d.Indexed = len(indexItems)
	got := map[string]Item{}
	for _, it := range indexItems {
		k := ibBaseKey(it, tableKey)
		if _, dup := got[k]; dup {
			d.Twice++
			example("twice: %s", show(canonItem(it)))
			continue
		}
		got[k] = it
	}
	for k, w := range want {
		ix, ok := got[k]
		switch {
		case !ok:
			d.Missing++
			example("missing: %s", show(canonItem(w)))
		case !reflect.DeepEqual(canonItem(ix), canonItem(w)):
			d.Stale++
			example("stale: index %s, table %s", show(canonItem(ix)), show(canonItem(w)))
		}
	}
	for k, ix := range got {
		if _, ok := want[k]; !ok {
			d.Extra++
			example("extra: %s", show(canonItem(ix)))
		}
	}
	return d
}

// ibSettle scans the index until it has not changed for quiet (async
// propagation drains its queue), bounded by timeout, and returns the last
// scan and whether it settled.
func ibSettle(t *testing.T, c *dynamodb.Client, table, index string, quiet, timeout time.Duration) ([]Item, bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ibScanAll(t, c, table, index)
	since := time.Now()
	for time.Now().Before(deadline) {
		time.Sleep(250 * time.Millisecond)
		cur := ibScanAll(t, c, table, index)
		if !ibSameScan(last, cur) {
			last, since = cur, time.Now()
			continue
		}
		if time.Since(since) >= quiet {
			return cur, true
		}
	}
	return last, false
}

func ibSameScan(a, b []Item) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(items []Item) []string {
		out := make([]string, len(items))
		for i, it := range items {
			out[i] = show(canonItem(it))
		}
		sort.Strings(out)
		return out
	}
	return reflect.DeepEqual(key(a), key(b))
}

// ibExpectIndexEqualsTable scans table and index and reports the difference.
func ibExpectIndexEqualsTable(t *testing.T, c *dynamodb.Client, table string, tableKey []string, g ibGSI, async bool) ibDiff {
	t.Helper()
	var ix []Item
	if async {
		var ok bool
		ix, ok = ibSettle(t, c, table, g.Name, 1500*time.Millisecond, 30*time.Second)
		if !ok {
			t.Errorf("index %s did not settle within 30 s after the writers stopped", g.Name)
		}
	} else {
		ix = ibScanAll(t, c, table, g.Name)
	}
	tbl := ibScanAll(t, c, table, "")
	d := ibCompare(tableKey, g, tbl, ix)
	if d.Bad() {
		t.Errorf("index %s differs from its table: %s\n  %s", g.Name, d, strings.Join(d.Examples, "\n  "))
	} else {
		t.Logf("index %s equals its table: %s", g.Name, d)
	}
	return d
}

func ibErrCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// ---------------------------------------------------------------------------
// Behaviour while an index is CREATING

// ibBehaviourItems is the size of the table the behaviour and kill tests
// build on: large enough that the build is still running after the checks
// (PostgreSQL's backfill measured ~400 rows/s under a writer, SQLite's ~2,400).
const ibBehaviourItems = 6000

func ibItemsFor(backend string) int {
	if backend == "postgres" {
		return 3000
	}
	return ibBehaviourItems
}

func ibBehaviourItem(i int) Item {
	return Item{
		"pk": S(fmt.Sprintf("k%05d", i)),
		"g0": S(fmt.Sprintf("x%02d", i%50)),
		"ga": S(fmt.Sprintf("a%02d", i%100)),
		"gb": S(fmt.Sprintf("b%02d", i%100)),
		"gc": S(fmt.Sprintf("c%02d", i%100)),
		"n":  N(fmt.Sprint(i)),
		"v":  S("payload-" + strings.Repeat("v", 40)),
	}
}

// TestIndexBuildBehaviour: UpdateTable with a GSI Create returns at once
// with the index CREATING; while it is CREATING, reads naming it, a second
// change and wrong-typed writes get the service's answers; two Creates at
// once, exactly one wins; AttributeDefinitions merge and prune; a Delete
// removes the index at once; a full build goes CREATING (Backfilling false,
// true) then ACTIVE while the table stays ACTIVE and writable.
func TestIndexBuildBehaviour(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := harness.TableName("ibbeh")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:             aws.String(table),
			AttributeDefinitions:  attrDefs("pk", "S", "g0", "S"),
			KeySchema:             keySchema("pk"),
			BillingMode:           types.BillingModeProvisioned,
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
				IndexName: aws.String("gix0"), KeySchema: keySchema("g0"),
				Projection:            &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
				ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)},
			}},
		})
		must(t, err)
		waitActive(t, c, table)
		t0 := time.Now()
		nItems := ibItemsFor(s.Backend)
		ibLoad(t, c, table, nItems, ibBehaviourItem)
		t.Logf("loaded %d items in %v", nItems, time.Since(t0).Round(time.Millisecond))
		tableKey := []string{"pk"}

		// Two Creates sent at the same instant: exactly one wins.
		gA := ibGSI{Name: "gixA", Hash: "ga", HashType: "S", Projection: types.ProjectionTypeAll, Provisioned: true}
		gB := ibGSI{Name: "gixB", Hash: "gb", HashType: "S", Projection: types.ProjectionTypeAll, Provisioned: true}
		type result struct {
			g   ibGSI
			out *dynamodb.UpdateTableOutput
			dur time.Duration
			err error
		}
		results := make([]result, 2)
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for i, g := range []ibGSI{gA, gB} {
			wg.Add(1)
			go func(i int, g ibGSI) {
				defer wg.Done()
				<-gate
				out, dur, err := ibCreateIndex(context.Background(), c, table, g)
				results[i] = result{g, out, dur, err}
			}(i, g)
		}
		close(gate)
		wg.Wait()
		var win, lose *result
		for i := range results {
			if results[i].err == nil {
				if win != nil {
					t.Fatalf("two Creates at the same instant both succeeded (%s in %v, %s in %v)",
						win.g.Name, win.dur, results[i].g.Name, results[i].dur)
				}
				win = &results[i]
			} else {
				lose = &results[i]
			}
		}
		if win == nil {
			t.Fatalf("two Creates at the same instant both failed: %v; %v", results[0].err, results[1].err)
		}
		expectAPIError(t, lose.err, "LimitExceededException", ibMsgLimit)
		g := win.g
		t.Logf("concurrent Creates: %s won in %v, %s refused in %v", g.Name, win.dur.Round(time.Millisecond), lose.g.Name, lose.dur.Round(time.Millisecond))

		if st := ibIndexStatus(win.out.TableDescription, g.Name); st != "CREATING" {
			t.Errorf("UpdateTable answer: index %s status %s, want CREATING", g.Name, st)
		}

		// The index is CREATING: DescribeTable shows it with Backfilling,
		// the table ACTIVE, the new definition merged.
		d := ibDescribe(t, c, table)
		if string(d.TableStatus) != "ACTIVE" {
			t.Errorf("table status %s during the build, want ACTIVE", d.TableStatus)
		}
		gd := ibFindGSI(d, g.Name)
		if gd == nil || gd.IndexStatus != types.IndexStatusCreating {
			t.Fatalf("DescribeTable right after the Create: index %s status %s, want CREATING (build too fast for this check?)", g.Name, ibIndexStatus(d, g.Name))
		}
		if gd.Backfilling == nil {
			t.Errorf("CREATING index %s: Backfilling absent, want false or true", g.Name)
		}
		wantDefs := []string{g.Hash + ":S", "g0:S", "pk:S"}
		sort.Strings(wantDefs)
		if got := ibDefs(d); !reflect.DeepEqual(got, wantDefs) {
			t.Errorf("AttributeDefinitions after the Create: %v, want %v", got, wantDefs)
		}

		// Reads naming a CREATING index.
		_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(g.Name),
			KeyConditionExpression: aws.String("#h = :v"), ExpressionAttributeNames: map[string]string{"#h": g.Hash},
			ExpressionAttributeValues: Item{":v": S("a01")}})
		expectValidation(t, err, ibNoIndex(g.Name))
		_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String(g.Name)})
		expectValidation(t, err, ibNoIndex(g.Name))
		_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String(g.Name), Segment: aws.Int32(0), TotalSegments: aws.Int32(2)})
		expectValidation(t, err, ibNoIndex(g.Name))

		// A second Create, a Delete of another GSI, two Creates in one request.
		gC := ibGSI{Name: "gixC", Hash: "gc", HashType: "S", Range: "n", RangeType: "N",
			Projection: types.ProjectionTypeInclude, NonKey: []string{"g0"}, Provisioned: true}
		_, _, err = ibCreateIndex(ctx, c, table, gC)
		expectAPIError(t, err, "LimitExceededException", ibMsgLimit)
		err = ibDeleteIndex(ctx, c, table, "gix0")
		expectAPIError(t, err, "LimitExceededException", ibMsgLimit)
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName:            aws.String(table),
			AttributeDefinitions: append(gC.defs(), lose.g.defs()...),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{
				{Create: gC.action()}, {Create: lose.g.action()},
			},
		})
		expectAPIError(t, err, "LimitExceededException", ibMsgLimit)
		// A throughput update is not refused.
		_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(6), WriteCapacityUnits: aws.Int64(6)}})
		if err != nil {
			t.Errorf("throughput UpdateTable during the build: %v, want success", err)
		}

		// Writes: a wrong-typed or empty value for the new key is refused in
		// every write path; a right-typed one is written.
		sentinelKey := Item{"pk": S("k00007")}
		before := get(t, c, table, sentinelKey)
		bad := ibMismatch(g.Hash, "S", "N", g.Name)
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k00007"), g.Hash: N("1")}})
		expectValidation(t, err, bad)
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k00007"), g.Hash: S("")}})
		expectValidation(t, err, fmt.Sprintf("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: %s, IndexKey: %s", g.Name, g.Hash))
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: sentinelKey,
			UpdateExpression: aws.String("SET #h = :n"), ExpressionAttributeNames: map[string]string{"#h": g.Hash}, ExpressionAttributeValues: Item{":n": N("1")}})
		expectValidation(t, err, bad)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: sentinelKey,
			UpdateExpression: aws.String("SET #h = :e"), ExpressionAttributeNames: map[string]string{"#h": g.Hash}, ExpressionAttributeValues: Item{":e": S("")}})
		expectValidation(t, err, "One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an empty string value.")
		_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			table: {btPut(Item{"pk": S("k00007"), g.Hash: N("1")})}}})
		expectValidation(t, err, bad)
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(table), Item: Item{"pk": S("k00007"), g.Hash: N("1")}}}}})
		ibExpectTxValidation(t, err, bad)
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String(table), Key: sentinelKey, UpdateExpression: aws.String("SET #h = :n"),
				ExpressionAttributeNames: map[string]string{"#h": g.Hash}, ExpressionAttributeValues: Item{":n": N("1")}}}}})
		ibExpectTxValidation(t, err, bad)
		assertItem(t, "item after refused writes", get(t, c, table, sentinelKey), before)
		// The table stays writable: a right-typed write to the new key.
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: sentinelKey,
			UpdateExpression: aws.String("SET #h = :s"), ExpressionAttributeNames: map[string]string{"#h": g.Hash}, ExpressionAttributeValues: Item{":s": S("zz")}})
		if err != nil {
			t.Errorf("right-typed UpdateItem during the build: %v", err)
		}

		// All of the above ran while the index was CREATING.
		d = ibDescribe(t, c, table)
		if st := ibIndexStatus(d, g.Name); st != "CREATING" {
			t.Fatalf("index %s is %s after the checks: the checks above did not all run during the build (make the table bigger)", g.Name, st)
		}
		if ibIndexStatus(d, "gix0") != "ACTIVE" {
			t.Errorf("gix0 is %s after the refused Delete, want ACTIVE", ibIndexStatus(d, "gix0"))
		}
		if ibFindGSI(d, lose.g.Name) != nil || ibFindGSI(d, "gixC") != nil {
			t.Errorf("a refused Create left its index in DescribeTable: %v", d.GlobalSecondaryIndexes)
		}
		if d.ProvisionedThroughput == nil || aws.ToInt64(d.ProvisionedThroughput.ReadCapacityUnits) != 6 {
			t.Errorf("throughput update during the build not applied: %+v", d.ProvisionedThroughput)
		}

		// A Delete of the building index is accepted and removes it at once.
		if err := ibDeleteIndex(ctx, c, table, g.Name); err != nil {
			t.Fatalf("Delete of the CREATING index %s: %v, want success", g.Name, err)
		}
		d = ibDescribe(t, c, table)
		if ibFindGSI(d, g.Name) != nil {
			t.Errorf("index %s still in DescribeTable after its Delete: %s", g.Name, ibIndexStatus(d, g.Name))
		}
		if got, want := ibDefs(d), []string{"g0:S", "pk:S"}; !reflect.DeepEqual(got, want) {
			t.Errorf("AttributeDefinitions after the Delete: %v, want %v (pruned)", got, want)
		}
		_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String(g.Name)})
		expectValidation(t, err, ibNoIndex(g.Name))
		// With the index gone its key is an ordinary attribute again.
		put(t, c, table, Item{"pk": S("untyped"), g.Hash: N("1")})

		// A full build: CREATING (Backfilling false, then true), then ACTIVE,
		// with the table ACTIVE and writable throughout.
		stopWriter := make(chan struct{})
		var writes, writeFails int
		var maxWrite time.Duration
		var wwg sync.WaitGroup
		wwg.Add(1)
		go func() {
			defer wwg.Done()
			for i := 0; ; i++ {
				select {
				case <-stopWriter:
					return
				default:
				}
				w0 := time.Now()
				_, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table),
					Item: ibBehaviourItem(nItems + i%500)})
				if dt := time.Since(w0); dt > maxWrite {
					maxWrite = dt
				}
				writes++
				if err != nil {
					writeFails++
					t.Errorf("PutItem during the build: %v", err)
				}
			}
		}()
		start := time.Now()
		out, dur, err := ibCreateIndex(ctx, c, table, gC)
		if err != nil {
			close(stopWriter)
			wwg.Wait()
			t.Fatalf("Create %s after the Delete: %v", gC.Name, err)
		}
		if st := ibIndexStatus(out.TableDescription, gC.Name); st != "CREATING" {
			t.Errorf("UpdateTable answer: index %s status %s, want CREATING", gC.Name, st)
		}
		t.Logf("UpdateTable Create took %v", dur)
		states := ibWatch(c, table, gC.Name, start, 5*time.Millisecond, 90*time.Second)
		buildTime := time.Since(start)
		close(stopWriter)
		wwg.Wait()
		sawFalse, sawTrue := ibCheckLifecycle(t, states)
		if !sawTrue {
			t.Errorf("never saw Backfilling true during a %v build; states:\n%s", buildTime, ibStates(states))
		}
		t.Logf("FIGURES %s behaviour: UpdateTable %v; build of %d items %v (%.0f rows/s); Backfilling false seen %v, true seen %v; %d writes during the build, %d failed, longest %v; states:\n%s",
			s.Backend, dur.Round(time.Millisecond), nItems, buildTime.Round(time.Millisecond),
			float64(nItems)/buildTime.Seconds(), sawFalse, sawTrue, writes, writeFails, maxWrite.Round(time.Millisecond), ibStates(states))
		if got, want := ibDefs(ibDescribe(t, c, table)), []string{"g0:S", "gc:S", "n:N", "pk:S"}; !reflect.DeepEqual(got, want) {
			t.Errorf("AttributeDefinitions with gC ACTIVE: %v, want %v", got, want)
		}
		// The index answers and equals its table.
		res, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(gC.Name),
			KeyConditionExpression: aws.String("gc = :c"), ExpressionAttributeValues: Item{":c": S("c42")}})
		if err != nil {
			t.Errorf("Query of the ACTIVE index: %v", err)
		} else if len(res.Items) < nItems/100 {
			t.Errorf("Query of the ACTIVE index gc = c42: %d items, want at least %d", len(res.Items), nItems/100)
		}
		ibExpectIndexEqualsTable(t, c, table, tableKey, gC, false)

		// Delete of an ACTIVE index: gone from DescribeTable at once, pruned.
		if err := ibDeleteIndex(ctx, c, table, gC.Name); err != nil {
			t.Fatalf("Delete of the ACTIVE index: %v", err)
		}
		d = ibDescribe(t, c, table)
		if ibFindGSI(d, gC.Name) != nil {
			t.Errorf("index %s still in DescribeTable after its Delete", gC.Name)
		}
		if got, want := ibDefs(d), []string{"g0:S", "pk:S"}; !reflect.DeepEqual(got, want) {
			t.Errorf("AttributeDefinitions after deleting gC: %v, want %v", got, want)
		}
		_, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(gC.Name),
			KeyConditionExpression: aws.String("gc = :c"), ExpressionAttributeValues: Item{":c": S("c42")}})
		expectValidation(t, err, ibNoIndex(gC.Name))
		put(t, c, table, Item{"pk": S("after-delete"), "gc": N("5"), "n": S("x")})
	})
}

// ibExpectTxValidation accepts the two shapes a transaction's index key
// refusal can take: a ValidationException with msg, or a
// TransactionCanceledException whose one reason is ValidationError with msg.
func ibExpectTxValidation(t *testing.T, err error, msg string) {
	t.Helper()
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		if len(tce.CancellationReasons) != 1 || aws.ToString(tce.CancellationReasons[0].Code) != "ValidationError" ||
			aws.ToString(tce.CancellationReasons[0].Message) != msg {
			t.Errorf("TransactWriteItems Update refusal: %v, reasons %+v; want ValidationError %q", err, tce.CancellationReasons, msg)
		}
		return
	}
	expectValidation(t, err, msg)
}

// TestIndexBuildExistingWrongTypedItem: an item written before the index
// existed with a wrong-typed value for its key is left out of the index (the
// service's index key violation), the build still finishes, and an
// UpdateItem of that item is refused on the whole updated item.
func TestIndexBuildExistingWrongTypedItem(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "ibwrong")
		put(t, c, table, Item{"pk": S("good"), "gw": S("x")})
		put(t, c, table, Item{"pk": S("wrong"), "gw": N("5")})
		put(t, c, table, Item{"pk": S("none"), "o": S("y")})
		g := ibGSI{Name: "gixW", Hash: "gw", HashType: "S", Projection: types.ProjectionTypeAll}
		start := time.Now()
		if _, _, err := ibCreateIndex(ctx, c, table, g); err != nil {
			t.Fatalf("Create: %v", err)
		}
		states := ibWatch(c, table, g.Name, start, 10*time.Millisecond, 30*time.Second)
		if last := states[len(states)-1]; last.Status != "ACTIVE" {
			t.Fatalf("index with a wrong-typed item in the table: ended %s, want ACTIVE (the service skips the item); states:\n%s", last.Status, ibStates(states))
		}
		ix := ibScanAll(t, c, table, g.Name)
		if len(ix) != 1 || ibBaseKey(ix[0], []string{"pk"}) != `{"S":"good"}` {
			t.Errorf("index holds %s, want only the item good", show(canonItemList(ix)))
		}
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("wrong")},
			UpdateExpression: aws.String("SET o = :o"), ExpressionAttributeValues: Item{":o": S("z")}})
		expectValidation(t, err, ibMismatch("gw", "S", "N", "gixW"))
	})
}

func canonItemList(items []Item) []any {
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = canonItem(it)
	}
	return out
}

// TestIndexBuildExistingOversizedKey: an item written before the index
// existed whose value for the index key is over the service's limit (2,048
// bytes for an index partition key, 1,024 for its sort key) is left out of
// the index, and the build finishes; the items at the limit are indexed.
func TestIndexBuildExistingOversizedKey(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "ibbig")
		put(t, c, table, Item{"pk": S("at-limit"), "gb": S(strings.Repeat("x", 2048)), "gr": S(strings.Repeat("r", 1024))})
		put(t, c, table, Item{"pk": S("hash-over"), "gb": S(strings.Repeat("x", 2049)), "gr": S("r")})
		put(t, c, table, Item{"pk": S("range-over"), "gb": S("x"), "gr": S(strings.Repeat("r", 1025))})
		g := ibGSI{Name: "gixBig", Hash: "gb", HashType: "S", Range: "gr", RangeType: "S", Projection: types.ProjectionTypeKeysOnly}
		start := time.Now()
		if _, _, err := ibCreateIndex(ctx, c, table, g); err != nil {
			t.Fatalf("Create: %v", err)
		}
		states := ibWatch(c, table, g.Name, start, 10*time.Millisecond, 30*time.Second)
		if last := states[len(states)-1]; last.Status != "ACTIVE" {
			t.Fatalf("index with oversized keys in the table: ended %s, want ACTIVE (the service skips the items); states:\n%s", last.Status, ibStates(states))
		}
		ix := ibScanAll(t, c, table, g.Name)
		if len(ix) != 1 || ibBaseKey(ix[0], []string{"pk"}) != `{"S":"at-limit"}` {
			t.Errorf("index holds %s, want only the item at-limit", show(canonItemList(ix)))
		}
	})
}
