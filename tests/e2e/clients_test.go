package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// clientEnv is the environment for the AWS CLI and boto3: fixed credentials
// and region, and no user configuration files.
func clientEnv(t *testing.T) []string {
	dir := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "AWS_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"AWS_ACCESS_KEY_ID=AKIDLOCAL",
		"AWS_SECRET_ACCESS_KEY=local-secret",
		"AWS_DEFAULT_REGION=us-east-1",
		"AWS_REGION=us-east-1",
		"AWS_CONFIG_FILE="+filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(dir, "credentials"),
		"AWS_PAGER=",
		"AWS_MAX_ATTEMPTS=1",
	)
}

func TestAWSCLI(t *testing.T) {
	t.Parallel()
	awsBin, err := exec.LookPath("aws")
	if err != nil {
		skipUnlessCI(t, "aws CLI not installed")
	}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		env := clientEnv(t)
		table := harness.TableName("cli")
		run := func(args ...string) []byte {
			t.Helper()
			cmd := exec.CommandContext(harness.Ctx(t), awsBin, append([]string{"dynamodb", "--endpoint-url", s.URL, "--output", "json"}, args...)...)
			cmd.Env = env
			out, err := cmd.Output()
			if err != nil {
				var stderr string
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = string(ee.Stderr)
				}
				t.Fatalf("aws %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
			}
			return out
		}
		out := run("create-table", "--table-name", table,
			"--attribute-definitions", "AttributeName=Artist,AttributeType=S", "AttributeName=Song,AttributeType=S",
			"--key-schema", "AttributeName=Artist,KeyType=HASH", "AttributeName=Song,KeyType=RANGE",
			"--billing-mode", "PAY_PER_REQUEST")
		var created struct {
			TableDescription struct{ TableName, TableStatus string }
		}
		if err := json.Unmarshal(out, &created); err != nil || created.TableDescription.TableName != table {
			t.Fatalf("create-table output %s (%v)", out, err)
		}
		run("wait", "table-exists", "--table-name", table)
		run("put-item", "--table-name", table, "--item",
			`{"Artist":{"S":"Arcade Fire"},"Song":{"S":"Wake Up"},"Year":{"N":"2004"},"Tags":{"SS":["indie","rock"]}}`)
		out = run("get-item", "--table-name", table, "--consistent-read", "--key", `{"Artist":{"S":"Arcade Fire"},"Song":{"S":"Wake Up"}}`)
		var got struct {
			Item map[string]map[string]any
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("get-item output %s: %v", out, err)
		}
		if got.Item["Year"]["N"] != "2004" || got.Item["Artist"]["S"] != "Arcade Fire" || got.Item["Song"]["S"] != "Wake Up" || len(got.Item["Tags"]["SS"].([]any)) != 2 {
			t.Errorf("get-item returned %s", out)
		}
		out = run("list-tables")
		if !strings.Contains(string(out), `"`+table+`"`) {
			t.Errorf("list-tables does not list %s: %s", table, out)
		}
		run("delete-table", "--table-name", table)
	})
}

const boto3Script = `
import sys, json, boto3
from botocore.config import Config
url, table = sys.argv[1], sys.argv[2]
c = boto3.client("dynamodb", endpoint_url=url, config=Config(retries={"max_attempts": 1}))
d = c.create_table(TableName=table,
    AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
    KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
    BillingMode="PAY_PER_REQUEST")
assert d["TableDescription"]["TableName"] == table, d
c.get_waiter("table_exists").wait(TableName=table, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
c.put_item(TableName=table, Item={"pk": {"S": "k"}, "n": {"N": "1.50"}, "b": {"B": b"\x00\x01"}, "l": {"L": [{"BOOL": True}, {"NULL": True}]}})
r = c.get_item(TableName=table, Key={"pk": {"S": "k"}}, ConsistentRead=True)
item = r["Item"]
assert item["n"] == {"N": "1.5"}, item
assert item["b"] == {"B": b"\x00\x01"}, item
assert item["l"] == {"L": [{"BOOL": True}, {"NULL": True}]}, item
try:
    c.put_item(TableName=table, Item={"pk": {"S": "k"}}, ConditionExpression="attribute_not_exists(pk)")
    raise SystemExit("conditional put succeeded")
except c.exceptions.ConditionalCheckFailedException as e:
    assert e.response["Error"]["Message"] == "The conditional request failed", e.response
try:
    c.describe_table(TableName=table + "-missing")
    raise SystemExit("describe of a missing table succeeded")
except c.exceptions.ResourceNotFoundException:
    pass
u = c.update_item(TableName=table, Key={"pk": {"S": "k"}}, UpdateExpression="ADD n :one",
    ExpressionAttributeValues={":one": {"N": "1"}}, ReturnValues="UPDATED_NEW")
assert u["Attributes"] == {"n": {"N": "2.5"}}, u
c.delete_table(TableName=table)
print("ok")
`

func TestBoto3(t *testing.T) {
	t.Parallel()
	py := pythonWithBoto3()
	if py == "" {
		skipUnlessCI(t, "no python3 with boto3 installed")
	}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		cmd := exec.CommandContext(harness.Ctx(t), py, "-c", boto3Script, s.URL, harness.TableName("boto"))
		cmd.Env = clientEnv(t)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "ok" {
			t.Errorf("boto3 script: %v\n%s", err, out)
		}
	})
}

// pythonWithBoto3 is the first python3 that imports boto3: the one on PATH
// (a pyenv or venv with pip's boto3), else the system's (Debian's
// python3-boto3, which .ci/run installs where it is missing); "" when none.
func pythonWithBoto3() string {
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		py, err := exec.LookPath(name)
		if err == nil && exec.Command(py, "-c", "import boto3").Run() == nil {
			return py
		}
	}
	return ""
}

// skipUnlessCI skips a test whose client tool is missing on a developer's
// machine, but fails it under CI=true: CI machines have the tools, and a
// skipped test there would pass for nothing.
func skipUnlessCI(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}
