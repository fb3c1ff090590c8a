package dynamopgtest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/dynamopgtest"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func createTable(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	_, err := c.CreateTable(ctx(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
}

func put(t *testing.T, c *dynamodb.Client, table, pk, v string) {
	t.Helper()
	_, err := c.PutItem(ctx(t), &dynamodb.PutItemInput{TableName: aws.String(table),
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "v": &types.AttributeValueMemberS{Value: v}}})
	if err != nil {
		t.Fatalf("PutItem: %v", err)
	}
}

// get returns the item's v, "" when the item is absent.
func get(t *testing.T, c *dynamodb.Client, table, pk string) string {
	t.Helper()
	out, err := c.GetItem(ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}})
	if err != nil {
		t.Fatalf("GetItem: %v", err)
	}
	if v, ok := out.Item["v"].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// Many servers at once, each with its own in-memory database: the same
// table name in each holds that server's item only.
func TestParallelServers(t *testing.T) {
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			srv := dynamopgtest.New(t)
			createTable(t, srv.Client, "Orders")
			put(t, srv.Client, "Orders", "k", fmt.Sprint("server ", i))
			if got, want := get(t, srv.Client, "Orders", "k"), fmt.Sprint("server ", i); got != want {
				t.Errorf("item = %q, want %q", got, want)
			}
			// Config is usable on its own, as an application would.
			other := dynamodb.NewFromConfig(srv.Config)
			out, err := other.ListTables(ctx(t), &dynamodb.ListTablesInput{})
			if err != nil || len(out.TableNames) != 1 || out.TableNames[0] != "Orders" {
				t.Errorf("ListTables through Config: %v %v", out, err)
			}
		})
	}
}

// A SQLite file outlives its server: a second server on it reads the item.
func TestSQLiteFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	first, err := dynamopgtest.Start(ctx(t), dynamopgtest.WithSQLiteFile(path))
	if err != nil {
		t.Fatal(err)
	}
	createTable(t, first.Client, "Tab")
	put(t, first.Client, "Tab", "k", "kept")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second := dynamopgtest.New(t, dynamopgtest.WithSQLiteFile(path))
	if got := get(t, second.Client, "Tab", "k"); got != "kept" {
		t.Errorf("after a restart on the file: %q, want %q", got, "kept")
	}
}

func TestPostgres(t *testing.T) {
	srv := dynamopgtest.New(t, dynamopgtest.WithPostgres(pgtest.URL(t)))
	createTable(t, srv.Client, "Tab")
	put(t, srv.Client, "Tab", "k", "on postgres")
	if got := get(t, srv.Client, "Tab", "k"); got != "on postgres" {
		t.Errorf("item = %q", got)
	}
}

// Close stops serving, and a second Close is harmless.
func TestClose(t *testing.T) {
	srv, err := dynamopgtest.Start(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(srv.URL + "/health"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/health before Close: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	hc := &http.Client{Transport: &http.Transport{}}
	if resp, err := hc.Get(srv.URL + "/health"); err == nil {
		resp.Body.Close()
		t.Errorf("/health answered %d after Close", resp.StatusCode)
	}
	_, err = srv.Client.ListTables(ctx(t), &dynamodb.ListTablesInput{})
	if err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ListTables after Close: %v, want a connection error", err)
	}
}

func TestBadDatabase(t *testing.T) {
	_, err := dynamopgtest.Start(ctx(t), dynamopgtest.WithSQLiteFile(filepath.Join(t.TempDir(), "missing-dir", "x.db")))
	if err == nil {
		t.Fatal("Start on a file in a missing directory succeeded")
	}
}
