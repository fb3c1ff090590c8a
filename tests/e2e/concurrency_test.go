package e2e

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func TestConcurrentConditionalCreate(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createHashTable(t, c, "cc_create")
		const n = 32
		ctx := harness.Ctx(t)
		var wg sync.WaitGroup
		errs := make([]error, n)
		start := make(chan struct{})
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				<-start
				_, errs[i] = c.PutItem(ctx, &dynamodb.PutItemInput{
					TableName:           aws.String(table),
					Item:                Item{"pk": S("the-one"), "winner": N(fmt.Sprint(i))},
					ConditionExpression: aws.String("attribute_not_exists(pk)"),
				})
			}(i)
		}
		close(start)
		wg.Wait()
		winners, failed := -1, 0
		for i, err := range errs {
			var ccf *types.ConditionalCheckFailedException
			switch {
			case err == nil:
				if winners != -1 {
					t.Errorf("both %d and %d succeeded", winners, i)
				}
				winners = i
			case errors.As(err, &ccf):
				failed++
			default:
				t.Errorf("put %d: unexpected error %v", i, err)
			}
		}
		if winners == -1 || failed != n-1 {
			t.Fatalf("successes/failures = %v/%d, want exactly one success and %d ConditionalCheckFailed", winners != -1, failed, n-1)
		}
		assertItem(t, "the winner's item", get(t, c, table, Item{"pk": S("the-one")}), Item{"pk": S("the-one"), "winner": N(fmt.Sprint(winners))})
	})
}

func TestConcurrentCounter(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createHashTable(t, c, "cc_counter")
		const goroutines, each = 16, 25
		ctx := harness.Ctx(t)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var failures []error
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < each; i++ {
					_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
						TableName:                 aws.String(table),
						Key:                       Item{"pk": S("counter")},
						UpdateExpression:          aws.String("SET n = if_not_exists(n, :zero) + :one"),
						ExpressionAttributeValues: Item{":zero": N("0"), ":one": N("1")},
					})
					if err != nil {
						mu.Lock()
						failures = append(failures, err)
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		if len(failures) > 0 {
			t.Errorf("%d of %d updates failed; first: %v", len(failures), goroutines*each, failures[0])
		}
		assertItem(t, "counter", get(t, c, table, Item{"pk": S("counter")}), Item{"pk": S("counter"), "n": N(fmt.Sprint(goroutines*each - len(failures)))})
		if len(failures) == 0 {
			got := get(t, c, table, Item{"pk": S("counter")})
			if n, ok := got["n"].(*types.AttributeValueMemberN); !ok || n.Value != "400" {
				t.Errorf("counter = %v, want exactly 400", show(canonItem(got)))
			}
		}
	})
}
