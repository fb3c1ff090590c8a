package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// TestTableARNAsTableName: the operations that name one table take its ARN
// in TableName as well as its name.
func TestTableARNAsTableName(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := createHashTable(t, c, "arn")
		desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		must(t, err)
		arn := desc.Table.TableArn

		byARN, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: arn})
		must(t, err)
		if aws.ToString(byARN.Table.TableName) != name || aws.ToString(byARN.Table.TableArn) != aws.ToString(arn) {
			t.Errorf("DescribeTable by ARN: name %q arn %q", aws.ToString(byARN.Table.TableName), aws.ToString(byARN.Table.TableArn))
		}
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: arn, Item: Item{"pk": S("a"), "v": N("1")}})
		must(t, err)
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: arn, Key: Item{"pk": S("a")},
			UpdateExpression: aws.String("SET v = v + :one"), ExpressionAttributeValues: Item{":one": N("1")}})
		must(t, err)
		got, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: arn, Key: Item{"pk": S("a")}, ConsistentRead: aws.Bool(true)})
		must(t, err)
		if v, ok := got.Item["v"].(*types.AttributeValueMemberN); !ok || v.Value != "2" {
			t.Errorf("GetItem by ARN: %v, want v = 2", got.Item)
		}
		q, err := c.Query(ctx, &dynamodb.QueryInput{TableName: arn, KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: Item{":p": S("a")}})
		must(t, err)
		sc, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: arn})
		must(t, err)
		if q.Count != 1 || sc.Count != 1 {
			t.Errorf("Query by ARN: %d items, Scan by ARN: %d, want 1 and 1", q.Count, sc.Count)
		}
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: arn, Key: Item{"pk": S("a")}})
		must(t, err)
		_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: arn})
		must(t, err)
	})
}
