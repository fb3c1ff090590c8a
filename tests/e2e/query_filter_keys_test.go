package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// A Query's FilterExpression may not read a key attribute of the table or
// index being queried (issue 18): the key condition is where those go.
// Before, such a filter was accepted.
func TestQueryFilterOnKeys(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := ixCreate(t, c, "qfkeys")
		put(t, c, table, Item{"pk": S("p"), "sk": S("a"), "lsk": N("1"), "g2": S("g"), "g2r": N("2"), "x": N("3"), "inc": N("4")})
		msg := "Filter Expression can only contain non-primary key attributes: Primary key attribute: "
		for _, tc := range []struct {
			index, key, filter, bad string
			vals                    Item
		}{
			{"", "pk = :p", "sk = :v", "sk", Item{":p": S("p"), ":v": S("a")}},
			{"", "pk = :p", "x = :v OR pk = :p", "pk", Item{":p": S("p"), ":v": N("3")}},
			{"", "pk = :p AND sk = :s", "attribute_exists(sk.deeper)", "sk", Item{":p": S("p"), ":s": S("a")}},
			{"lsi", "pk = :p", "lsk > :v", "lsk", Item{":p": S("p"), ":v": N("0")}},
			{"gix", "g2 = :g", "g2r = :v", "g2r", Item{":g": S("g"), ":v": N("2")}},
			{"gix", "g2 = :g", "size(g2) > :v", "g2", Item{":g": S("g"), ":v": N("0")}},
		} {
			in := &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String(tc.key),
				FilterExpression: aws.String(tc.filter), ExpressionAttributeValues: tc.vals}
			if tc.index != "" {
				in.IndexName = aws.String(tc.index)
			}
			_, err := c.Query(ctx, in)
			expectValidation(t, err, msg+tc.bad)
		}
		// The base table's sort key is not a key of the GSI: it may be filtered on there.
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("gix"),
			KeyConditionExpression: aws.String("g2 = :g"), FilterExpression: aws.String("inc = :v"),
			ExpressionAttributeValues: Item{":g": S("g"), ":v": N("4")}})
		must(t, err)
		if out.Count != 1 {
			t.Errorf("a filter on a non-key attribute of the index: %d items", out.Count)
		}
	})
}
