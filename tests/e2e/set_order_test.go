package e2e

// Set members come back in one stable order (issue 18, sets), DynamoDB
// Local's: strings and binaries by their bytes, numbers by value, whatever
// order the request wrote them in and after ADD and DELETE. Before, a set
// came back in the order it was written.

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func setMembers(v types.AttributeValue) any {
	switch v := v.(type) {
	case *types.AttributeValueMemberSS:
		return v.Value
	case *types.AttributeValueMemberNS:
		return v.Value
	case *types.AttributeValueMemberBS:
		out := make([]string, len(v.Value))
		for i, b := range v.Value {
			out[i] = string(b)
		}
		return out
	}
	return fmt.Sprintf("not a set: %T", v)
}

func expectSet(t *testing.T, what string, got types.AttributeValue, want ...string) {
	t.Helper()
	if g := setMembers(got); !reflect.DeepEqual(g, want) {
		t.Errorf("%s: %q, want %q", what, g, want)
	}
}

func TestSetOrder(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "setorder")
		key := Item{"pk": S("k")}
		put(t, c, table, Item{"pk": S("k"),
			"ss": SS("pear", "apple", "Zebra", "é", "banana"),
			"ns": NS("10", "9", "-1", "1e2", "0.5", "-0.25", "99.99"),
			"bs": BS([]byte("b"), []byte{0xff}, []byte("a"), []byte("ab")),
			"m":  M(Item{"nested": SS("z", "y", "x")}),
		})
		it := get(t, c, table, key)
		expectSet(t, "SS", it["ss"], "Zebra", "apple", "banana", "pear", "é")
		expectSet(t, "NS", it["ns"], "-1", "-0.25", "0.5", "9", "10", "99.99", "100")
		expectSet(t, "BS", it["bs"], "a", "ab", "b", "\xff")
		expectSet(t, "nested SS", it["m"].(*types.AttributeValueMemberM).Value["nested"], "x", "y", "z")

		out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(table), Key: key,
			UpdateExpression:          aws.String("ADD ss :s, ns :n DELETE bs :b"),
			ExpressionAttributeValues: Item{":s": SS("cherry", "aardvark"), ":n": NS("-5", "50"), ":b": BS([]byte("ab"))},
			ReturnValues:              types.ReturnValueAllNew,
		})
		must(t, err)
		expectSet(t, "SS after ADD", out.Attributes["ss"], "Zebra", "aardvark", "apple", "banana", "cherry", "pear", "é")
		expectSet(t, "NS after ADD", out.Attributes["ns"], "-5", "-1", "-0.25", "0.5", "9", "10", "50", "99.99", "100")
		expectSet(t, "BS after DELETE", out.Attributes["bs"], "a", "b", "\xff")
		it = get(t, c, table, key)
		expectSet(t, "stored SS after ADD", it["ss"], "Zebra", "aardvark", "apple", "banana", "cherry", "pear", "é")

		// Query, Scan and PartiQL answer from the same items.
		sc, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
		must(t, err)
		expectSet(t, "Scan NS", sc.Items[0]["ns"], "-5", "-1", "-0.25", "0.5", "9", "10", "50", "99.99", "100")
		_, err = c.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(`INSERT INTO "` + table + `" VALUE {'pk': 'p', 'ns': <<3, 1, 2>>, 'ss': <<'b', 'a'>>}`)})
		must(t, err)
		it = get(t, c, table, Item{"pk": S("p")})
		expectSet(t, "PartiQL NS", it["ns"], "1", "2", "3")
		expectSet(t, "PartiQL SS", it["ss"], "a", "b")
	})
}
