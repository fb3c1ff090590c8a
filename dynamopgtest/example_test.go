package dynamopgtest_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/dynamopgtest"
)

// Start and Close, where no testing.TB is at hand; in a test, New(t) does
// both.
func Example() {
	ctx := context.Background()
	srv, err := dynamopgtest.Start(ctx)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	_, err = srv.Client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Orders"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		panic(err)
	}
	out, err := dynamodb.NewFromConfig(srv.Config).ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.TableNames)
	// Output: [Orders]
}
