package e2e

// `dynamopg status` against a running server's database, on both backends:
// the command reads through the store contract, read-only.

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func TestStatusCommand(t *testing.T) {
	harness.Each(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		ctx := harness.Ctx(t)
		c := s.Client()
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String("Status"),
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS},
			},
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
				IndexName:  aws.String("byG"),
				KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			}},
			BillingMode: types.BillingModePayPerRequest,
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"a", "b", "c"} {
			if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Status"),
				Item: Item{"pk": S(k), "g": S("x")}}); err != nil {
				t.Fatal(err)
			}
		}

		out, err := exec.CommandContext(ctx, harness.Binary(t), "status", "--db", s.DB, "--format", "json").CombinedOutput()
		if err != nil {
			t.Fatalf("status --format json: %v\n%s", err, out)
		}
		var r struct {
			DB     string `json:"db"`
			Engine string `json:"engine"`
			Tables []struct {
				Name      string `json:"name"`
				Status    string `json:"status"`
				Items     int64  `json:"items"`
				Estimated bool   `json:"items_estimated"`
				Indexes   []struct {
					Name, Kind, Status, Propagation string
				} `json:"indexes"`
			} `json:"tables"`
			Queue []struct {
				Table string `json:"table"`
				Depth int64  `json:"depth"`
			} `json:"queue"`
			Recovery *struct {
				IntervalMs int32 `json:"interval_ms"`
			} `json:"recovery"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("status output is not JSON: %v\n%s", err, out)
		}
		want := map[string]string{"sqlite": "sqlite", "postgres": "postgresql"}[s.Backend]
		if r.Engine != want || len(r.Tables) != 1 || r.Tables[0].Name != "Status" || r.Tables[0].Status != "ACTIVE" {
			t.Fatalf("status: %s", out)
		}
		tb := r.Tables[0]
		if len(tb.Indexes) != 1 || tb.Indexes[0].Name != "byG" || tb.Indexes[0].Kind != "GSI" || tb.Indexes[0].Status != "ACTIVE" ||
			tb.Indexes[0].Propagation != "sync" {
			t.Errorf("indexes: %+v", tb.Indexes)
		}
		switch s.Backend {
		case "sqlite":
			if tb.Estimated || tb.Items != 3 || r.Recovery != nil {
				t.Errorf("sqlite: items %d (estimated %v), recovery %+v; want exactly 3, no recovery worker", tb.Items, tb.Estimated, r.Recovery)
			}
		case "postgres":
			if !tb.Estimated || r.Recovery == nil || r.Recovery.IntervalMs <= 0 {
				t.Errorf("postgres: estimated %v, recovery %+v; want an estimate and the recovery worker's state", tb.Estimated, r.Recovery)
			}
		}

		text, err := exec.CommandContext(ctx, harness.Binary(t), "status", "--db", s.DB).CombinedOutput()
		if err != nil {
			t.Fatalf("status: %v\n%s", err, text)
		}
		for _, w := range []string{"TABLES (1)", "Status", "GSI byG", "PROPAGATION QUEUE"} {
			if !strings.Contains(string(text), w) {
				t.Errorf("status text lacks %q:\n%s", w, text)
			}
		}
	})
}

// A file that is not a dynamopg database is refused with a reason, and
// status never creates or changes one.
func TestStatusCommandRefusesOtherFiles(t *testing.T) {
	ctx := harness.Ctx(t)
	path := t.TempDir() + "/absent.db"
	out, err := exec.CommandContext(ctx, harness.Binary(t), "status", "--db", "sqlite:"+path).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "no such file") {
		t.Errorf("status of a missing file: err %v\n%s", err, out)
	}
}
