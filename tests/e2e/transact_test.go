package e2e

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// ---------------------------------------------------------------------------
// Transaction helpers

func txPut(table string, item Item) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: item}}
}

func txDelete(table string, key Item) types.TransactWriteItem {
	return types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(table), Key: key}}
}

func txCheck(table string, key Item, cond string) types.TransactWriteItem {
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: aws.String(table), Key: key, ConditionExpression: aws.String(cond)}}
}

func txUpdate(table string, key Item, upd, cond string, values Item) types.TransactWriteItem {
	u := &types.Update{TableName: aws.String(table), Key: key, UpdateExpression: aws.String(upd), ExpressionAttributeValues: values}
	if cond != "" {
		u.ConditionExpression = aws.String(cond)
	}
	return types.TransactWriteItem{Update: u}
}

// expectCanceled asserts err is TransactionCanceledException with the
// service's message for the codes and one reason per code, in order.
func expectCanceled(t *testing.T, err error, codes ...string) *types.TransactionCanceledException {
	t.Helper()
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("expected TransactionCanceledException %v, got %v", codes, err)
	}
	want := "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"
	if got := tce.ErrorMessage(); got != want {
		t.Errorf("TransactionCanceledException message\n  got:  %s\n  want: %s", got, want)
	}
	if len(tce.CancellationReasons) != len(codes) {
		t.Fatalf("%d cancellation reasons, want %d", len(tce.CancellationReasons), len(codes))
	}
	for i, r := range tce.CancellationReasons {
		if aws.ToString(r.Code) != codes[i] {
			t.Errorf("reason %d: code %q, want %q", i, aws.ToString(r.Code), codes[i])
		}
	}
	return tce
}

func balanceOf(t *testing.T, it Item, name string) int {
	t.Helper()
	v, ok := it[name].(*types.AttributeValueMemberN)
	if !ok {
		t.Fatalf("item %s has no number %s", show(canonItem(it)), name)
	}
	n, err := strconv.Atoi(v.Value)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// ---------------------------------------------------------------------------

// Put, Update, Delete and ConditionCheck across two tables commit together;
// a failed condition cancels all of them with the service's reasons.
func TestTransactWriteAllOrNothing(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		ctx := harness.Ctx(t)
		a := createHashTable(t, c, "txa")
		b := createRangeTable(t, c, "txb", "N")
		put(t, c, a, Item{"pk": S("a1"), "v": N("1")})
		put(t, c, a, Item{"pk": S("a2"), "v": N("2")})
		put(t, c, b, Item{"pk": S("b"), "sk": N("1"), "v": N("3")})

		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txPut(a, Item{"pk": S("a3"), "v": N("30")}),
			txUpdate(a, Item{"pk": S("a1")}, "SET v = v + :one", "v = :one", Item{":one": N("1")}),
			txDelete(a, Item{"pk": S("a2")}),
			txCheck(b, Item{"pk": S("b"), "sk": N("1")}, "attribute_exists(pk)"),
			txPut(b, Item{"pk": S("b"), "sk": N("2"), "v": N("4")}),
		}})
		must(t, err)
		assertItem(t, "a1", get(t, c, a, Item{"pk": S("a1")}), Item{"pk": S("a1"), "v": N("2")})
		assertItem(t, "a2", get(t, c, a, Item{"pk": S("a2")}), nil)
		assertItem(t, "a3", get(t, c, a, Item{"pk": S("a3")}), Item{"pk": S("a3"), "v": N("30")})
		assertItem(t, "b/2", get(t, c, b, Item{"pk": S("b"), "sk": N("2")}), Item{"pk": S("b"), "sk": N("2"), "v": N("4")})

		// The first member's condition fails: nothing of the others happens.
		upd := txUpdate(a, Item{"pk": S("a1")}, "SET v = :v", "v = :v", Item{":v": N("99")})
		upd.Update.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			upd,
			txPut(a, Item{"pk": S("a4")}),
		}})
		tce := expectCanceled(t, err, "ConditionalCheckFailed", "None")
		r := tce.CancellationReasons[0]
		if aws.ToString(r.Message) != "The conditional request failed" {
			t.Errorf("reason message %q", aws.ToString(r.Message))
		}
		assertItem(t, "reason Item (ALL_OLD)", r.Item, Item{"pk": S("a1"), "v": N("2")})
		if tce.CancellationReasons[1].Item != nil || tce.CancellationReasons[1].Message != nil {
			t.Errorf("reason None carries %v %v", tce.CancellationReasons[1].Item, aws.ToString(tce.CancellationReasons[1].Message))
		}
		assertItem(t, "a4 after the cancelled transaction", get(t, c, a, Item{"pk": S("a4")}), nil)
		assertItem(t, "a1 after the cancelled transaction", get(t, c, a, Item{"pk": S("a1")}), Item{"pk": S("a1"), "v": N("2")})

		// A failed ConditionCheck in the middle, no ALL_OLD: no Item.
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txDelete(a, Item{"pk": S("a1")}),
			txCheck(b, Item{"pk": S("b"), "sk": N("9")}, "attribute_exists(pk)"),
			txPut(b, Item{"pk": S("b"), "sk": N("3")}),
		}})
		tce = expectCanceled(t, err, "None", "ConditionalCheckFailed", "None")
		if tce.CancellationReasons[1].Item != nil {
			t.Errorf("reason Item without ALL_OLD: %s", show(canonItem(tce.CancellationReasons[1].Item)))
		}
		assertItem(t, "a1 after the second cancelled transaction", get(t, c, a, Item{"pk": S("a1")}), Item{"pk": S("a1"), "v": N("2")})
		assertItem(t, "b/3 after the second cancelled transaction", get(t, c, b, Item{"pk": S("b"), "sk": N("3")}), nil)
	})
}

// Bad input gets the service's error and writes nothing.
func TestTransactWriteValidation(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		ctx := harness.Ctx(t)
		a := createHashTable(t, c, "txv")
		put(t, c, a, Item{"pk": S("x"), "v": N("1")})
		fresh := Item{"pk": S("fresh")}

		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txPut(a, fresh),
			txUpdate(a, Item{"pk": S("x")}, "SET v = :v", "", Item{":v": N("2")}),
			txCheck(a, Item{"pk": S("x")}, "attribute_exists(pk)"),
		}})
		expectValidation(t, err, "Transaction request cannot include multiple operations on one item")

		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{}})
		expectValidation(t, err, "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1")
		_, err = c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{}})
		expectValidation(t, err, "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1")

		many := make([]types.TransactWriteItem, 101)
		gets := make([]types.TransactGetItem, 101)
		for i := range many {
			k := Item{"pk": S(fmt.Sprintf("m%03d", i))}
			many[i] = txPut(a, k)
			gets[i] = types.TransactGetItem{Get: &types.Get{TableName: aws.String(a), Key: k}}
		}
		for _, err := range []error{
			func() error {
				_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: many})
				return err
			}(),
			func() error {
				_, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: gets})
				return err
			}(),
		} {
			var ae smithy.APIError
			if !errors.As(err, &ae) || ae.ErrorCode() != "ValidationException" ||
				!strings.HasPrefix(ae.ErrorMessage(), "1 validation error detected: Value '") ||
				!strings.HasSuffix(ae.ErrorMessage(), "' at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100") {
				t.Errorf("101 items: got %v", err)
			}
		}
		// 100 is allowed.
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: many[:100]})
		must(t, err)

		// An unknown table in one member: nothing of the others.
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txPut(a, fresh),
			txPut(harness.TableName("txnone"), Item{"pk": S("y")}),
		}})
		expectNotFound(t, err)

		// A bad expression in one member: nothing of the others.
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txPut(a, fresh),
			txUpdate(a, Item{"pk": S("x")}, "SET v = :v", "", Item{":v": N("2"), ":a": N("3")}),
		}})
		expectValidation(t, err, "Value provided in ExpressionAttributeValues unused in expressions: keys: {:a}")
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			txPut(a, fresh),
			txUpdate(a, Item{"pk": S("x")}, "SET pk = :v", "", Item{":v": S("z")}),
		}})
		expectValidation(t, err, "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key")

		assertItem(t, "fresh after the rejected requests", get(t, c, a, Item{"pk": S("fresh")}), nil)
		assertItem(t, "x after the rejected requests", get(t, c, a, Item{"pk": S("x")}), Item{"pk": S("x"), "v": N("1")})
	})
}

// TransactGetItems: order kept, projections per item, missing items as
// empty responses, capacity 2 units per item.
func TestTransactGetItems(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		ctx := harness.Ctx(t)
		a := createHashTable(t, c, "txg")
		b := createRangeTable(t, c, "txg", "N")
		put(t, c, a, Item{"pk": S("a1"), "x": S("ax"), "y": N("1"), "m": M(Item{"k": S("deep"), "o": S("other")})})
		put(t, c, b, Item{"pk": S("b"), "sk": N("1"), "x": S("bx"), "big": S(strings.Repeat("z", 5000))})
		put(t, c, b, Item{"pk": S("b"), "sk": N("2"), "x": S("small")})
		out, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{
			TransactItems: []types.TransactGetItem{
				{Get: &types.Get{TableName: aws.String(b), Key: Item{"pk": S("b"), "sk": N("1")}, ProjectionExpression: aws.String("#x, sk"), ExpressionAttributeNames: map[string]string{"#x": "x"}}},
				{Get: &types.Get{TableName: aws.String(a), Key: Item{"pk": S("missing")}}},
				{Get: &types.Get{TableName: aws.String(a), Key: Item{"pk": S("a1")}, ProjectionExpression: aws.String("m.k, y")}},
				{Get: &types.Get{TableName: aws.String(b), Key: Item{"pk": S("b"), "sk": N("2")}, ProjectionExpression: aws.String("nothere")}},
			},
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
		must(t, err)
		if len(out.Responses) != 4 {
			t.Fatalf("%d responses", len(out.Responses))
		}
		assertItem(t, "response 0", out.Responses[0].Item, Item{"x": S("bx"), "sk": N("1")})
		assertItem(t, "response 1 (missing)", out.Responses[1].Item, nil)
		assertItem(t, "response 2", out.Responses[2].Item, Item{"y": N("1"), "m": M(Item{"k": S("deep")})})
		// A present item whose projection selects nothing: no Item at all.
		if out.Responses[3].Item != nil {
			t.Errorf("response 3 (projection selects nothing): Item %v, want none", out.Responses[3].Item)
		}
		got := map[string]float64{}
		for _, cc := range out.ConsumedCapacity {
			got[aws.ToString(cc.TableName)] = aws.ToFloat64(cc.CapacityUnits)
		}
		// a: two items of <= 4 KB (one missing) = 2 × 2; b: one 5 KB item and one small = 2 × 2 + 2.
		if got[a] != 4 || got[b] != 6 || len(got) != 2 {
			t.Errorf("TransactGetItems ConsumedCapacity = %v, want %s: 4, %s: 6", got, a, b)
		}

		_, err = c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String(a), Key: Item{"pk": S("a1")}}},
			{Get: &types.Get{TableName: aws.String(a), Key: Item{"pk": S("a1")}, ProjectionExpression: aws.String("y")}},
		}})
		expectValidation(t, err, "Transaction request cannot include multiple operations on one item")
		_, err = c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{
			{Get: &types.Get{TableName: aws.String(harness.TableName("txnone")), Key: Item{"pk": S("a1")}}},
		}})
		expectNotFound(t, err)
	})
}

// ReturnConsumedCapacity of TransactWriteItems: 2 × the single-item units
// per member (the larger of the item before and after, per KB), INDEXES
// splits the table's from each index's.
func TestTransactWriteCapacity(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		ctx := harness.Ctx(t)
		name := harness.TableName("txcap")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(name),
			AttributeDefinitions: attrDefs("pk", "S", "g", "S"),
			KeySchema:            keySchema("pk"),
			BillingMode:          types.BillingModePayPerRequest,
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
				IndexName:  aws.String("gix"),
				KeySchema:  keySchema("g"),
				Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
			}},
		})
		must(t, err)
		waitActive(t, c, name)
		put(t, c, name, Item{"pk": S("big"), "pad": S(strings.Repeat("p", 2500))}) // 3 KB

		out, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			TransactItems: []types.TransactWriteItem{
				txPut(name, Item{"pk": S("n1"), "g": S("x")}),                              // 1 KB, in the index
				txUpdate(name, Item{"pk": S("big")}, "SET q = :q", "", Item{":q": N("1")}), // 3 KB
				txCheck(name, Item{"pk": S("n2")}, "attribute_not_exists(pk)"),             // absent: 1 unit
			},
			ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes,
		})
		must(t, err)
		if len(out.ConsumedCapacity) != 1 {
			t.Fatalf("ConsumedCapacity %d entries", len(out.ConsumedCapacity))
		}
		cc := out.ConsumedCapacity[0]
		if aws.ToString(cc.TableName) != name || cc.Table == nil || aws.ToFloat64(cc.Table.CapacityUnits) != 2*(1+3+1) {
			t.Errorf("table capacity: %s", show(cc))
		}
		gi, ok := cc.GlobalSecondaryIndexes["gix"]
		if !ok || aws.ToFloat64(gi.CapacityUnits) != 1 || aws.ToFloat64(cc.CapacityUnits) != 11 {
			t.Errorf("index capacity: %s", show(cc))
		}

		out, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			TransactItems:          []types.TransactWriteItem{txDelete(name, Item{"pk": S("n1")})},
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
		must(t, err)
		if len(out.ConsumedCapacity) != 1 || aws.ToFloat64(out.ConsumedCapacity[0].CapacityUnits) != 3 || out.ConsumedCapacity[0].Table != nil {
			t.Errorf("TOTAL capacity of a delete (2 + 1 for the index): %s", show(out.ConsumedCapacity))
		}
	})
}

// ---------------------------------------------------------------------------
// ClientRequestToken

// incrementTx adds 1 to the counter item c of table.
func incrementTx(table, token string) *dynamodb.TransactWriteItemsInput {
	return &dynamodb.TransactWriteItemsInput{
		ClientRequestToken: aws.String(token),
		TransactItems: []types.TransactWriteItem{
			txUpdate(table, Item{"pk": S("c")}, "ADD n :one", "", Item{":one": N("1")}),
		},
	}
}

func counter(t *testing.T, c *dynamodb.Client, table string) int {
	t.Helper()
	it := get(t, c, table, Item{"pk": S("c")})
	if it == nil {
		return 0
	}
	return balanceOf(t, it, "n")
}

// expectMismatch asserts IdempotentParameterMismatchException with its text.
func expectMismatch(t *testing.T, err error) {
	t.Helper()
	var ipm *types.IdempotentParameterMismatchException
	if !errors.As(err, &ipm) {
		t.Errorf("expected IdempotentParameterMismatchException, got %v", err)
		return
	}
	expectAPIError(t, err, "IdempotentParameterMismatchException", "The request uses the same client token as a previous, but different, request.")
}

func TestTransactIdempotency(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "txidem")
		token := "tok-" + table[len(table)-12:]

		_, err := c.TransactWriteItems(ctx, incrementTx(table, token))
		must(t, err)
		out, err := c.TransactWriteItems(ctx, func() *dynamodb.TransactWriteItemsInput {
			in := incrementTx(table, token)
			in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal // the response may differ
			return in
		}())
		must(t, err)
		if n := counter(t, c, table); n != 1 {
			t.Errorf("counter after a replay = %d, want 1", n)
		}
		if len(out.ConsumedCapacity) != 1 || aws.ToFloat64(out.ConsumedCapacity[0].ReadCapacityUnits) != 2 {
			t.Errorf("replay ConsumedCapacity = %s, want 2 read units", show(out.ConsumedCapacity))
		}

		// JSON key order does not make another request.
		body := fmt.Sprintf(`{"ClientRequestToken":%q,"TransactItems":[{"Update":{"ExpressionAttributeValues":{":one":{"N":"1"}},"UpdateExpression":"ADD n :one","Key":{"pk":{"S":"c"}},"TableName":%q}}]}`, token, table)
		resp, data := rawCall(t, s, "TransactWriteItems", body)
		if resp.StatusCode != 200 {
			t.Errorf("reordered replay: %d %s", resp.StatusCode, data)
		}
		if n := counter(t, c, table); n != 1 {
			t.Errorf("counter after a reordered replay = %d, want 1", n)
		}

		// Another request with the token.
		in := incrementTx(table, token)
		in.TransactItems[0].Update.ExpressionAttributeValues[":one"] = N("2")
		_, err = c.TransactWriteItems(ctx, in)
		expectMismatch(t, err)
		if n := counter(t, c, table); n != 1 {
			t.Errorf("counter after a mismatch = %d, want 1", n)
		}

		// A cancelled transaction does not record its token: the same token
		// with another request then runs.
		tok2 := token + "-2"
		_, err = c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			ClientRequestToken: aws.String(tok2),
			TransactItems:      []types.TransactWriteItem{txCheck(table, Item{"pk": S("c")}, "attribute_not_exists(pk)")},
		})
		expectCanceled(t, err, "ConditionalCheckFailed")
		_, err = c.TransactWriteItems(ctx, incrementTx(table, tok2))
		must(t, err)
		if n := counter(t, c, table); n != 2 {
			t.Errorf("counter after the token of a cancelled transaction = %d, want 2", n)
		}

		// Identical requests with one token racing: exactly one writes.
		tok3 := token + "-3"
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				if _, err := c.TransactWriteItems(ctx, incrementTx(table, tok3)); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("racing replay: %v", err)
		}
		if n := counter(t, c, table); n != 3 {
			t.Errorf("counter after 8 racing calls with one token = %d, want 3", n)
		}
	})
}

// Tokens live in the database: they survive a restart.
func TestTransactTokenSurvivesRestart(t *testing.T) {
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			s := harness.Start(t, backend)
			c := s.Client()
			table := createHashTable(t, c, "txrestart")
			_, err := c.TransactWriteItems(harness.Ctx(t), incrementTx(table, "restart-token"))
			must(t, err)
			s.Restart(t)
			c = s.Client()
			_, err = c.TransactWriteItems(harness.Ctx(t), incrementTx(table, "restart-token"))
			must(t, err)
			if n := counter(t, c, table); n != 1 {
				t.Errorf("counter after a replay across a restart = %d, want 1", n)
			}
			in := incrementTx(table, "restart-token")
			in.TransactItems[0].Update.UpdateExpression = aws.String("ADD n :one, m :one")
			_, err = c.TransactWriteItems(harness.Ctx(t), in)
			expectMismatch(t, err)
		})
	}
}

// Two server processes on one PostgreSQL database share their tokens.
func TestTransactTokenSharedByServers(t *testing.T) {
	first := harness.Start(t, "postgres")
	second := harness.StartDB(t, "postgres", first.DB)
	c1, c2 := first.Client(), second.Client()
	table := createHashTable(t, c1, "txshared")
	ctx := harness.Ctx(t)

	_, err := c1.TransactWriteItems(ctx, incrementTx(table, "shared-token"))
	must(t, err)
	_, err = c2.TransactWriteItems(ctx, incrementTx(table, "shared-token"))
	must(t, err)
	if n := counter(t, c2, table); n != 1 {
		t.Errorf("counter after a replay on the other server = %d, want 1", n)
	}
	in := incrementTx(table, "shared-token")
	in.TransactItems[0].Update.Key = Item{"pk": S("d")}
	_, err = c2.TransactWriteItems(ctx, in)
	expectMismatch(t, err)

	// One token racing on both servers: one write.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		c := []*dynamodb.Client{c1, c2}[i%2]
		wg.Go(func() {
			if _, err := c.TransactWriteItems(ctx, incrementTx(table, "shared-race")); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("racing on two servers: %v", err)
	}
	if n := counter(t, c1, table); n != 2 {
		t.Errorf("counter after racing on two servers = %d, want 2", n)
	}
}

// DYNAMOPG_TX_TOKEN_TTL shortens the window: after it the token is new.
func TestTransactTokenExpiry(t *testing.T) {
	t.Setenv("DYNAMOPG_TX_TOKEN_TTL", "1s")
	for _, backend := range harness.Backends {
		t.Run(backend, func(t *testing.T) {
			s := harness.Start(t, backend)
			c := s.Client()
			table := createHashTable(t, c, "txexpiry")
			_, err := c.TransactWriteItems(harness.Ctx(t), incrementTx(table, "expiring"))
			must(t, err)
			_, err = c.TransactWriteItems(harness.Ctx(t), incrementTx(table, "expiring"))
			must(t, err)
			if n := counter(t, c, table); n != 1 {
				t.Fatalf("counter after a replay = %d, want 1", n)
			}
			time.Sleep(1200 * time.Millisecond)
			_, err = c.TransactWriteItems(harness.Ctx(t), incrementTx(table, "expiring"))
			must(t, err)
			if n := counter(t, c, table); n != 2 {
				t.Errorf("counter after the window = %d, want 2", n)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Concurrency

// 16 goroutines × 25 transfers between 10 accounts (conditional on the
// balance) race each other and plain UpdateItem writes on the same items,
// SDK retries off. Every call succeeds or is cancelled with
// ConditionalCheckFailed or TransactionConflict (plain writes: succeed or
// TransactionConflictException); the sum of the balances stays the same.
func TestTransactConcurrentTransfers(t *testing.T) {
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "txbank")
		const accounts, start = 10, 1000
		acct := func(i int) Item { return Item{"pk": S(fmt.Sprintf("acct%02d", i))} }
		for i := range accounts {
			put(t, c, table, Item{"pk": S(fmt.Sprintf("acct%02d", i)), "bal": N(strconv.Itoa(start)), "touched": N("0")})
		}

		const workers, each, plainWorkers, plainEach = 16, 25, 4, 50
		var mu sync.Mutex
		counts := map[string]int{}
		count := func(k string) { mu.Lock(); counts[k]++; mu.Unlock() }
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(w), 7))
				for range each {
					from := r.IntN(accounts)
					to := (from + 1 + r.IntN(accounts-1)) % accounts
					amt := N(strconv.Itoa(1 + r.IntN(400)))
					_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
						txUpdate(table, acct(from), "SET bal = bal - :a", "bal >= :a", Item{":a": amt}),
						txUpdate(table, acct(to), "SET bal = bal + :a", "", Item{":a": amt}),
					}})
					var tce *types.TransactionCanceledException
					switch {
					case err == nil:
						count("committed")
					case errors.As(err, &tce):
						codes := make([]string, len(tce.CancellationReasons))
						for i, r := range tce.CancellationReasons {
							codes[i] = aws.ToString(r.Code)
						}
						k := "cancelled " + strings.Join(codes, ",")
						if !strings.Contains(k, "ConditionalCheckFailed") && !strings.Contains(k, "TransactionConflict") {
							t.Errorf("cancelled without a reason: %v", err)
						}
						count(k)
					default:
						t.Errorf("transfer: %v", err)
						count("error")
					}
				}
			})
		}
		for p := range plainWorkers {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(p), 11))
				for range plainEach {
					_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
						TableName:                 aws.String(table),
						Key:                       acct(r.IntN(accounts)),
						UpdateExpression:          aws.String("ADD touched :one"),
						ExpressionAttributeValues: Item{":one": N("1")},
					})
					var tc *types.TransactionConflictException
					switch {
					case err == nil:
						count("plain ok")
					case errors.As(err, &tc):
						count("plain TransactionConflict")
					default:
						t.Errorf("plain UpdateItem: %v", err)
						count("plain error")
					}
				}
			})
		}
		wg.Wait()

		sum, touched := 0, 0
		for i := range accounts {
			it := get(t, c, table, acct(i))
			b := balanceOf(t, it, "bal")
			if b < 0 {
				t.Errorf("account %d: balance %d < 0", i, b)
			}
			sum += b
			touched += balanceOf(t, it, "touched")
		}
		if sum != accounts*start {
			t.Errorf("sum of balances = %d, want %d", sum, accounts*start)
		}
		if touched != counts["plain ok"] {
			t.Errorf("touched = %d, want the %d plain writes that succeeded", touched, counts["plain ok"])
		}
		t.Logf("%s: transfers %v; sum %d", s.Backend, counts, sum)
	})
}
