// Package e2e is dynamopg's end-to-end suite: every test talks to a running
// dynamopg process (SQLite and PostgreSQL backends) through the AWS SDK, raw
// HTTP, the AWS CLI or boto3, and asserts what the real DynamoDB service
// does, including its exact error texts.
package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }

// Item is one DynamoDB item (or key).
type Item = map[string]types.AttributeValue

// Attribute value constructors.
func S(v string) types.AttributeValue  { return &types.AttributeValueMemberS{Value: v} }
func N(v string) types.AttributeValue  { return &types.AttributeValueMemberN{Value: v} }
func B(v []byte) types.AttributeValue  { return &types.AttributeValueMemberB{Value: v} }
func BOOL(v bool) types.AttributeValue { return &types.AttributeValueMemberBOOL{Value: v} }
func NULL() types.AttributeValue       { return &types.AttributeValueMemberNULL{Value: true} }
func SS(v ...string) types.AttributeValue {
	return &types.AttributeValueMemberSS{Value: v}
}
func NS(v ...string) types.AttributeValue {
	return &types.AttributeValueMemberNS{Value: v}
}
func BS(v ...[]byte) types.AttributeValue {
	return &types.AttributeValueMemberBS{Value: v}
}
func L(v ...types.AttributeValue) types.AttributeValue {
	if v == nil {
		v = []types.AttributeValue{}
	}
	return &types.AttributeValueMemberL{Value: v}
}
func M(v Item) types.AttributeValue {
	if v == nil {
		v = Item{}
	}
	return &types.AttributeValueMemberM{Value: v}
}

// ---------------------------------------------------------------------------
// Error assertions

// expectValidation asserts err is a ValidationException with exactly msg.
func expectValidation(t *testing.T, err error, msg string) {
	t.Helper()
	expectAPIError(t, err, "ValidationException", msg)
}

// expectAPIError asserts err is a service error with the code and message.
func expectAPIError(t *testing.T, err error, code, msg string) {
	t.Helper()
	if err == nil {
		t.Errorf("expected %s %q, got success", code, msg)
		return
	}
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Errorf("expected %s %q, got non-API error: %v", code, msg, err)
		return
	}
	if ae.ErrorCode() != code || ae.ErrorMessage() != msg {
		t.Errorf("error mismatch\n  want: %s: %s\n  got:  %s: %s", code, msg, ae.ErrorCode(), ae.ErrorMessage())
	}
}

// expectCCF asserts err is ConditionalCheckFailedException "The conditional
// request failed" and returns it.
func expectCCF(t *testing.T, err error) *types.ConditionalCheckFailedException {
	t.Helper()
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		t.Errorf("expected ConditionalCheckFailedException, got %v", err)
		return nil
	}
	if got := ccf.ErrorMessage(); got != "The conditional request failed" {
		t.Errorf("ConditionalCheckFailedException message = %q, want %q", got, "The conditional request failed")
	}
	return ccf
}

// expectNotFound asserts err is ResourceNotFoundException "Requested resource not found".
func expectNotFound(t *testing.T, err error) {
	t.Helper()
	var nf *types.ResourceNotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("expected ResourceNotFoundException, got %v", err)
		return
	}
	if got := nf.ErrorMessage(); got != "Requested resource not found" {
		t.Errorf("ResourceNotFoundException message = %q, want %q", got, "Requested resource not found")
	}
}

// expectInUse asserts err is ResourceInUseException with exactly msg.
func expectInUse(t *testing.T, err error, msg string) {
	t.Helper()
	var iu *types.ResourceInUseException
	if !errors.As(err, &iu) {
		t.Errorf("expected ResourceInUseException %q, got %v", msg, err)
		return
	}
	if got := iu.ErrorMessage(); got != msg {
		t.Errorf("ResourceInUseException message = %q, want %q", got, msg)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// ---------------------------------------------------------------------------
// Tables

// waitActive waits with the SDK's TableExists waiter until the table is ACTIVE.
func waitActive(t *testing.T, c *dynamodb.Client, name string) *types.TableDescription {
	t.Helper()
	w := dynamodb.NewTableExistsWaiter(c, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 50 * time.Millisecond
		o.MaxDelay = 500 * time.Millisecond
	})
	out, err := w.WaitForOutput(harness.Ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 30*time.Second)
	if err != nil {
		t.Fatalf("waiting for table %s: %v", name, err)
	}
	return out.Table
}

func attrDefs(kv ...string) []types.AttributeDefinition {
	var out []types.AttributeDefinition
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, types.AttributeDefinition{AttributeName: aws.String(kv[i]), AttributeType: types.ScalarAttributeType(kv[i+1])})
	}
	return out
}

func keySchema(hash string, rng ...string) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}}
	if len(rng) > 0 {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(rng[0]), KeyType: types.KeyTypeRange})
	}
	return ks
}

// createHashTable creates an on-demand table keyed by pk (S) and waits for it.
func createHashTable(t *testing.T, c *dynamodb.Client, prefix string) string {
	t.Helper()
	name := harness.TableName(prefix)
	_, err := c.CreateTable(harness.Ctx(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S"),
		KeySchema:            keySchema("pk"),
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
	waitActive(t, c, name)
	return name
}

// createRangeTable creates an on-demand table keyed by pk (S) and sk (the given type).
func createRangeTable(t *testing.T, c *dynamodb.Client, prefix, skType string) string {
	t.Helper()
	name := harness.TableName(prefix)
	_, err := c.CreateTable(harness.Ctx(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S", "sk", skType),
		KeySchema:            keySchema("pk", "sk"),
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
	waitActive(t, c, name)
	return name
}

// ---------------------------------------------------------------------------
// Items

func put(t *testing.T, c *dynamodb.Client, table string, item Item) {
	t.Helper()
	_, err := c.PutItem(harness.Ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
	if err != nil {
		t.Fatalf("PutItem: %v", err)
	}
}

// get reads an item with a consistent read; nil when absent.
func get(t *testing.T, c *dynamodb.Client, table string, key Item) Item {
	t.Helper()
	out, err := c.GetItem(harness.Ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatalf("GetItem: %v", err)
	}
	return out.Item
}

// canon turns an attribute value into a comparable, printable form: sets are
// sorted (DynamoDB does not keep set order), numbers are left as the strings
// the server returned.
func canon(av types.AttributeValue) any {
	switch v := av.(type) {
	case nil:
		return nil
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Value)}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": v.Value}
	case *types.AttributeValueMemberSS:
		s := append([]string{}, v.Value...)
		sort.Strings(s)
		return map[string]any{"SS": s}
	case *types.AttributeValueMemberNS:
		s := append([]string{}, v.Value...)
		sort.Strings(s)
		return map[string]any{"NS": s}
	case *types.AttributeValueMemberBS:
		s := make([]string, len(v.Value))
		for i, b := range v.Value {
			s[i] = base64.StdEncoding.EncodeToString(b)
		}
		sort.Strings(s)
		return map[string]any{"BS": s}
	case *types.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, e := range v.Value {
			l[i] = canon(e)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		return map[string]any{"M": canonItem(v.Value)}
	default:
		return fmt.Sprintf("unknown %T", av)
	}
}

func canonItem(it Item) any {
	if it == nil {
		return nil
	}
	m := make(map[string]any, len(it))
	for k, v := range it {
		m[k] = canon(v)
	}
	return m
}

func show(x any) string {
	b, _ := json.Marshal(x)
	return string(b)
}

// assertItem compares two items (or two nils); sets compare as sets.
func assertItem(t *testing.T, what string, got, want Item) {
	t.Helper()
	if want == nil {
		if got != nil {
			t.Errorf("%s: want no item (field absent), got %s", what, show(canonItem(got)))
		}
		return
	}
	g, w := canonItem(got), canonItem(want)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n  got:  %s\n  want: %s", what, show(g), show(w))
	}
}

// ---------------------------------------------------------------------------
// Raw HTTP (for request shapes the SDK would not send)

// rawCall posts a JSON 1.0 request to the server.
func rawCall(t *testing.T, s *harness.Server, op, body string) (*http.Response, []byte) {
	t.Helper()
	return rawCallTarget(t, s, op, false, body)
}

// rawCallTarget posts a JSON 1.0 request of the DynamoDB API or, with
// streams, of the DynamoDB Streams API.
func rawCallTarget(t *testing.T, s *harness.Server, op string, streams bool, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(harness.Ctx(t), http.MethodPost, s.URL+"/", bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	if op != "" {
		prefix := "DynamoDB_20120810."
		if streams {
			prefix = "DynamoDBStreams_20120810."
		}
		req.Header.Set("X-Amz-Target", prefix+op)
	}
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDTEST/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0000")
	req.Header.Set("X-Amz-Date", time.Now().UTC().Format("20060102T150405Z"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// rawError decodes a JSON 1.0 error body: the short __type (after '#') and the message.
func rawError(body []byte) (code, msg string) {
	var e map[string]any
	if json.Unmarshal(body, &e) != nil {
		return "", string(body)
	}
	typ, _ := e["__type"].(string)
	if i := strings.LastIndex(typ, "#"); i >= 0 {
		typ = typ[i+1:]
	}
	if m, ok := e["message"].(string); ok {
		msg = m
	} else if m, ok := e["Message"].(string); ok {
		msg = m
	}
	return typ, msg
}

// expectRawValidation sends a raw request and asserts a 400 ValidationException with msg.
func expectRawValidation(t *testing.T, s *harness.Server, op, body, msg string) {
	t.Helper()
	resp, data := rawCall(t, s, op, body)
	code, got := rawError(data)
	if resp.StatusCode != 400 || code != "ValidationException" || got != msg {
		t.Errorf("%s %s\n  want: 400 ValidationException: %s\n  got:  %d %s: %s", op, body, msg, resp.StatusCode, code, got)
	}
}
