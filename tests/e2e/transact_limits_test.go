package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// TestTransactSizeLimit: items adding up to more than 4 MB are refused with
// the service's text and nothing is written; just under passes.
func TestTransactSizeLimit(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createHashTable(t, c, "txsize")
		big := strings.Repeat("x", 390*1024)
		items := func(n int, prefix string) []types.TransactWriteItem {
			var out []types.TransactWriteItem
			for i := 0; i < n; i++ {
				out = append(out, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table),
					Item: Item{"pk": S(fmt.Sprintf("%s%02d", prefix, i)), "v": S(big)}}})
			}
			return out
		}
		_, err := c.TransactWriteItems(harness.Ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: items(11, "over")})
		expectValidation(t, err, "Transaction request cannot be larger than 4 MB")
		if got := get(t, c, table, Item{"pk": S("over00")}); got != nil {
			t.Errorf("a refused transaction wrote an item")
		}
		if _, err := c.TransactWriteItems(harness.Ctx(t), &dynamodb.TransactWriteItemsInput{TransactItems: items(10, "under")}); err != nil {
			t.Errorf("10 items of 390 KB (3.9 MB) refused: %v", err)
		}
	})
}
