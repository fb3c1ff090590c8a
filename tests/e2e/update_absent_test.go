package e2e

// An UpdateItem whose actions only remove (REMOVE, DELETE; or only DELETE
// in AttributeUpdates) on an item that does not exist creates nothing
// (issue 18, items): no item, no Attributes for ALL_NEW, no stream record.
// Before, it created an item holding the key alone. An update that sets
// anything, or no update at all, still creates the item.

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func TestUpdateOnlyRemovesAbsentItem(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name, desc := createStreamTable(t, c, "updabsent", types.StreamViewTypeNewAndOldImages)
		var err error

		for i, tc := range []struct {
			expr string
			vals Item
		}{
			{"REMOVE a", nil},
			{"REMOVE a, b", nil},
			{"DELETE s :v", Item{":v": SS("x")}},
			{"REMOVE a DELETE s :v", Item{":v": SS("x")}},
		} {
			key := Item{"pk": S("absent-" + string(rune('a'+i)))}
			for _, rv := range []types.ReturnValue{types.ReturnValueAllNew, types.ReturnValueUpdatedNew, types.ReturnValueAllOld} {
				out, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: key,
					UpdateExpression: aws.String(tc.expr), ExpressionAttributeValues: tc.vals, ReturnValues: rv})
				must(t, err)
				if out.Attributes != nil {
					t.Errorf("%s (%s) on an absent item: Attributes %s", tc.expr, rv, show(canonItem(out.Attributes)))
				}
			}
			if it := get(t, c, name, key); it != nil {
				t.Errorf("%s on an absent item created %s", tc.expr, show(canonItem(it)))
			}
		}
		legacyKey := Item{"pk": S("absent-legacy")}
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: legacyKey,
			AttributeUpdates: map[string]types.AttributeValueUpdate{"a": {Action: types.AttributeActionDelete}}})
		must(t, err)
		if it := get(t, c, name, legacyKey); it != nil {
			t.Errorf("AttributeUpdates DELETE on an absent item created %s", show(canonItem(it)))
		}
		txKey := Item{"pk": S("absent-tx")}
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{TableName: aws.String(name), Key: txKey, UpdateExpression: aws.String("REMOVE a")}},
		}})
		must(t, err)
		if it := get(t, c, name, txKey); it != nil {
			t.Errorf("a transaction's REMOVE on an absent item created %s", show(canonItem(it)))
		}

		// Still created: an update that sets something, or none at all.
		setKey, bareKey := Item{"pk": S("made-set")}, Item{"pk": S("made-bare")}
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: setKey,
			UpdateExpression: aws.String("REMOVE a SET b = :v"), ExpressionAttributeValues: Item{":v": N("1")}})
		must(t, err)
		assertItem(t, "REMOVE and SET", get(t, c, name, setKey), Item{"pk": S("made-set"), "b": N("1")})
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(name), Key: bareKey})
		must(t, err)
		assertItem(t, "no update", get(t, c, name, bareKey), Item{"pk": S("made-bare")})

		// The stream holds the two creations only.
		sc := streamsClient(s)
		recs, _ := readAll(t, sc, shardIterator(t, sc, *desc.LatestStreamArn, stypes.ShardIteratorTypeTrimHorizon, ""))
		var keys []string
		for _, r := range recs {
			keys = append(keys, sAttr(r.Dynamodb.Keys["pk"]))
		}
		if len(keys) != 2 || keys[0] != "made-set" || keys[1] != "made-bare" {
			t.Errorf("stream records for %q, want made-set and made-bare only", keys)
		}
	})
}
