package bench

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// BenchmarkAsyncIndexLag measures how long an item takes to become visible
// in an asynchronously maintained GSI after its PutItem returned, at a
// steady write rate (1,000 writes/s), on PostgreSQL. Metrics: lag-p50-ms,
// lag-p99-ms, and the write rate achieved.
func BenchmarkAsyncIndexLag(b *testing.B) {
	for _, backend := range []string{"postgres", "sqlite"} {
		b.Run(backend, func(b *testing.B) {
			var db string
			if backend == "postgres" {
				db = pgtest.URL(b)
			} else {
				db = "sqlite:" + b.TempDir() + "/lag.db"
			}
			s := harness.StartDB(b, backend, db, "--index-propagation", "async")
			c := s.Client()
			ctx := context.Background()
			table := harness.TableName("lag")
			_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
				TableName:            aws.String(table),
				BillingMode:          types.BillingModePayPerRequest,
				AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}, {AttributeName: aws.String("g"), AttributeType: types.ScalarAttributeTypeS}},
				KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
					IndexName:  aws.String("byG"),
					KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String("g"), KeyType: types.KeyTypeHash}},
					Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
				}},
			})
			if err != nil {
				b.Fatal(err)
			}
			const rate = 1000 // writes per second
			n := max(b.N, 1000)
			lags := measureLag(b, c, table, n, rate)
			sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
			b.ReportMetric(ms(lags[len(lags)/2]), "lag-p50-ms")
			b.ReportMetric(ms(lags[len(lags)*99/100]), "lag-p99-ms")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// measureLag writes n items at the given rate, each under its own GSI key,
// and for each one polls the index until it is visible.
func measureLag(b *testing.B, c *dynamodb.Client, table string, n, rate int) []time.Duration {
	ctx := context.Background()
	lags := make([]time.Duration, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	b.ResetTimer()
	for i := 0; i < n; i++ {
		<-tick.C
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			g := fmt.Sprintf("g%08d", i)
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
				"pk": &types.AttributeValueMemberS{Value: fmt.Sprintf("k%08d", i)},
				"g":  &types.AttributeValueMemberS{Value: g},
			}})
			if err != nil {
				b.Error(err)
				return
			}
			returned := time.Now()
			deadline := returned.Add(30 * time.Second)
			for time.Now().Before(deadline) {
				out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("byG"),
					KeyConditionExpression:    aws.String("g = :g"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":g": &types.AttributeValueMemberS{Value: g}}})
				if err != nil {
					b.Error(err)
					return
				}
				if out.Count > 0 {
					lags[i] = time.Since(returned)
					return
				}
				time.Sleep(time.Millisecond)
			}
			b.Errorf("item %d not visible in the index after 30 s", i)
		}(i)
	}
	wg.Wait()
	b.StopTimer()
	return lags
}
