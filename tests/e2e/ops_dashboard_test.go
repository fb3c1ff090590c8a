package e2e

// The Grafana dashboard (docs/grafana/dynamopg.json) queries the metric
// names docs/operations.md documents and a running server exposes.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// dashboardMetrics returns the metric names the dashboard's queries select
// (every selector in it has a label matcher: name{…}).
func dashboardMetrics(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "grafana", "dynamopg.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	sel := regexp.MustCompile(`\b((?:dynamopg|go|process)_[a-z_]+)\{`)
	seen := map[string]bool{}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			for _, m := range sel.FindAllStringSubmatch(tg.Expr, -1) {
				seen[m[1]] = true
			}
		}
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// documentedMetrics returns the names of the metrics table of
// docs/operations.md; `…_x` in a dynamopg_db_pool_ row stands for
// dynamopg_db_pool_x.
func documentedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile("`((?:dynamopg_|…_)[a-z_]+)`")
	out := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| `dynamopg_") {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(line, -1) {
			n := m[1]
			if rest, ok := strings.CutPrefix(n, "…_"); ok {
				if !strings.HasPrefix(line, "| `dynamopg_db_pool_") {
					t.Fatalf("docs/operations.md: an abbreviation outside the pool rows: %s", line)
				}
				n = "dynamopg_db_pool_" + rest
			}
			out[n] = true
		}
	}
	return out
}

// scrapedNames returns the series names of a text-format scrape.
func scrapedNames(scrape string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(scrape, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.IndexAny(line, "{ "); i > 0 {
			out[line[:i]] = true
		}
	}
	return out
}

func TestOpsDashboardMetrics(t *testing.T) {
	names := dashboardMetrics(t)
	if len(names) < 15 {
		t.Fatalf("the dashboard queries %d metrics (%v); the parse is wrong", len(names), names)
	}
	docs := documentedMetrics(t)
	for _, n := range names {
		base := strings.TrimSuffix(n, "_bucket")
		if strings.HasPrefix(n, "dynamopg_") && !docs[base] {
			t.Errorf("the dashboard queries %s, which docs/operations.md does not document", n)
		}
	}

	// A server with an in-flight cap, a stream, a finished index build and
	// a refused request has a series of every family the dashboard reads.
	s := opsStart(t, "sqlite", "--max-in-flight", "64")
	c := s.Client()
	ctx := harness.Ctx(t)
	table := createHashTable(t, c, "ops_dash")
	_, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}})
	must(t, err)
	waitActive(t, c, table)
	put(t, c, table, Item{"pk": S("a"), "g": S("x")})
	_, _, err = ibCreateIndex(ctx, c, table, ibGSI{Name: "by_g", Hash: "g", HashType: "S", Projection: types.ProjectionTypeAll})
	must(t, err)
	for deadline := time.Now().Add(60 * time.Second); ibIndexStatus(ibDescribe(t, c, table), "by_g") != "ACTIVE"; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("index by_g not ACTIVE after 60 s")
		}
	}
	_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("ops_dash_missing")})
	expectNotFound(t, err)

	_, body := httpGet(t, s.URL+"/metrics")
	scraped := scrapedNames(body)
	for _, n := range names {
		if !scraped[n] {
			t.Errorf("the dashboard queries %s; the server exposes no such series", n)
		}
	}
	if t.Failed() {
		t.Logf("dashboard metrics: %s\nscrape:\n%s", strings.Join(names, " "), body)
	} else {
		t.Logf("the dashboard's %d metrics are documented and exposed: %s", len(names), fmt.Sprint(names))
	}
}
