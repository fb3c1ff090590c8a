package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func btPut(it Item) types.WriteRequest {
	return types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
}

func btDel(k Item) types.WriteRequest {
	return types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: k}}
}

// btExpectValidationRe asserts a ValidationException whose message matches re.
func btExpectValidationRe(t *testing.T, err error, re string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Errorf("expected ValidationException matching %q, got %v", re, err)
		return
	}
	if ae.ErrorCode() != "ValidationException" || !regexp.MustCompile(re).MatchString(ae.ErrorMessage()) {
		t.Errorf("error mismatch\n  want: ValidationException matching %s\n  got:  %s: %s", re, ae.ErrorCode(), ae.ErrorMessage())
	}
}

func TestBatchWriteItem(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		ht := createHashTable(t, c, "bw_h")
		rt := createRangeTable(t, c, "bw_r", "N")

		// 25 puts across two tables.
		req := map[string][]types.WriteRequest{}
		for i := 0; i < 13; i++ {
			req[ht] = append(req[ht], btPut(Item{"pk": S(fmt.Sprintf("h%d", i)), "v": N(strconv.Itoa(i))}))
		}
		for i := 0; i < 12; i++ {
			req[rt] = append(req[rt], btPut(Item{"pk": S("r"), "sk": N(strconv.Itoa(i)), "v": S("x")}))
		}
		out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: req})
		must(t, err)
		if len(out.UnprocessedItems) != 0 {
			t.Errorf("UnprocessedItems = %v, want empty", out.UnprocessedItems)
		}
		for i := 0; i < 13; i++ {
			assertItem(t, "hash table item", get(t, c, ht, Item{"pk": S(fmt.Sprintf("h%d", i))}), Item{"pk": S(fmt.Sprintf("h%d", i)), "v": N(strconv.Itoa(i))})
		}
		for i := 0; i < 12; i++ {
			assertItem(t, "range table item", get(t, c, rt, Item{"pk": S("r"), "sk": N(strconv.Itoa(i))}), Item{"pk": S("r"), "sk": N(strconv.Itoa(i)), "v": S("x")})
		}
		// The raw response has UnprocessedItems as an empty map.
		_, body := rawCall(t, s, "BatchWriteItem", fmt.Sprintf(`{"RequestItems":{%q:[{"PutRequest":{"Item":{"pk":{"S":"raw"}}}}]}}`, ht))
		if string(body) != `{"UnprocessedItems":{}}` {
			t.Errorf("raw BatchWriteItem response = %s, want {\"UnprocessedItems\":{}}", body)
		}

		// Puts, overwrites and deletes together; same pk with different sk is not a duplicate.
		out, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{
			ht: {btDel(Item{"pk": S("h0")}), btPut(Item{"pk": S("h1"), "v": S("replaced")}), btDel(Item{"pk": S("never-existed")})},
			rt: {btDel(Item{"pk": S("r"), "sk": N("0")}), btDel(Item{"pk": S("r"), "sk": N("1.0")}), btPut(Item{"pk": S("r"), "sk": N("100")})},
		}})
		must(t, err)
		if len(out.UnprocessedItems) != 0 {
			t.Errorf("UnprocessedItems = %v, want empty", out.UnprocessedItems)
		}
		assertItem(t, "deleted h0", get(t, c, ht, Item{"pk": S("h0")}), nil)
		assertItem(t, "replaced h1", get(t, c, ht, Item{"pk": S("h1")}), Item{"pk": S("h1"), "v": S("replaced")})
		assertItem(t, "deleted r/0", get(t, c, rt, Item{"pk": S("r"), "sk": N("0")}), nil)
		assertItem(t, "deleted r/1", get(t, c, rt, Item{"pk": S("r"), "sk": N("1")}), nil)
		assertItem(t, "put r/100", get(t, c, rt, Item{"pk": S("r"), "sk": N("100")}), Item{"pk": S("r"), "sk": N("100")})

		sentinelH := Item{"pk": S("sentinel"), "v": S("orig")}
		put(t, c, ht, sentinelH)
		checkNothingWritten := func(t *testing.T) {
			t.Helper()
			assertItem(t, "sentinel", get(t, c, ht, Item{"pk": S("sentinel")}), sentinelH)
			assertItem(t, "no partial write", get(t, c, ht, Item{"pk": S("partial")}), nil)
		}
		bw := func(req map[string][]types.WriteRequest) error {
			_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: req})
			return err
		}

		t.Run("26 across two tables", func(t *testing.T) {
			req := map[string][]types.WriteRequest{}
			req[ht] = append(req[ht], btPut(Item{"pk": S("partial")}), btDel(Item{"pk": S("sentinel")}))
			for i := 0; i < 24; i++ {
				req[rt] = append(req[rt], btPut(Item{"pk": S("t"), "sk": N(strconv.Itoa(i))}))
			}
			expectValidation(t, bw(req), "Too many items requested for the BatchWriteItem call")
			checkNothingWritten(t)
		})
		t.Run("26 in one table", func(t *testing.T) {
			var reqs []types.WriteRequest
			reqs = append(reqs, btPut(Item{"pk": S("partial")}))
			for i := 0; i < 25; i++ {
				reqs = append(reqs, btPut(Item{"pk": S(fmt.Sprintf("x%d", i))}))
			}
			btExpectValidationRe(t, bw(map[string][]types.WriteRequest{ht: reqs}),
				`^1 validation error detected: Value '\{.+\}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: \[Member must have length less than or equal to 25, Member must have length greater than or equal to 1\]$`)
			checkNothingWritten(t)
		})
		t.Run("duplicate puts", func(t *testing.T) {
			expectValidation(t, bw(map[string][]types.WriteRequest{ht: {btPut(Item{"pk": S("partial")}), btPut(Item{"pk": S("sentinel")}), btPut(Item{"pk": S("sentinel"), "v": S("2")})}}),
				"Provided list of item keys contains duplicates")
			checkNothingWritten(t)
		})
		t.Run("put and delete of one key", func(t *testing.T) {
			expectValidation(t, bw(map[string][]types.WriteRequest{ht: {btPut(Item{"pk": S("partial")}), btDel(Item{"pk": S("sentinel")}), btPut(Item{"pk": S("sentinel"), "v": S("new")})}}),
				"Provided list of item keys contains duplicates")
			checkNothingWritten(t)
		})
		t.Run("duplicate range keys written differently", func(t *testing.T) {
			expectValidation(t, bw(map[string][]types.WriteRequest{rt: {btDel(Item{"pk": S("r"), "sk": N("5")}), btDel(Item{"pk": S("r"), "sk": N("5.00")})}}),
				"Provided list of item keys contains duplicates")
			assertItem(t, "r/5 untouched", get(t, c, rt, Item{"pk": S("r"), "sk": N("5")}), Item{"pk": S("r"), "sk": N("5"), "v": S("x")})
		})
		t.Run("missing table", func(t *testing.T) {
			err := bw(map[string][]types.WriteRequest{ht: {btPut(Item{"pk": S("partial")})}, harness.TableName("bw_missing"): {btPut(Item{"pk": S("a")})}})
			expectNotFound(t, err)
			checkNothingWritten(t)
		})
		t.Run("key of the wrong type", func(t *testing.T) {
			expectValidation(t, bw(map[string][]types.WriteRequest{ht: {btPut(Item{"pk": S("partial")}), btPut(Item{"pk": N("1")})}}),
				"The provided key element does not match the schema")
			expectValidation(t, bw(map[string][]types.WriteRequest{rt: {btDel(Item{"pk": S("r")})}}),
				"The provided key element does not match the schema")
			checkNothingWritten(t)
		})
		t.Run("25 deletes exactly", func(t *testing.T) {
			var reqs []types.WriteRequest
			for i := 0; i < 25; i++ {
				reqs = append(reqs, btDel(Item{"pk": S(fmt.Sprintf("gone%d", i))}))
			}
			must(t, bw(map[string][]types.WriteRequest{ht: reqs}))
		})
	})
}

func TestBatchGetItem(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		ht := createHashTable(t, c, "bg_h")
		rt := createRangeTable(t, c, "bg_r", "N")
		for i := 0; i < 60; i += 25 {
			req := map[string][]types.WriteRequest{}
			for j := i; j < i+25 && j < 60; j++ {
				if j%2 == 0 {
					req[ht] = append(req[ht], btPut(Item{"pk": S(fmt.Sprintf("h%d", j)), "a": N(strconv.Itoa(j)), "b": S("bee"), "m": M(Item{"x": S("1"), "y": S("2")})}))
				} else {
					req[rt] = append(req[rt], btPut(Item{"pk": S("r"), "sk": N(strconv.Itoa(j)), "a": N(strconv.Itoa(j)), "b": S("bee")}))
				}
			}
			_, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: req})
			must(t, err)
		}

		// 100 keys over two tables, half of them missing.
		var hk, rk []Item
		for j := 0; j < 100; j++ {
			if j%2 == 0 {
				hk = append(hk, Item{"pk": S(fmt.Sprintf("h%d", j))})
			} else {
				rk = append(rk, Item{"pk": S("r"), "sk": N(strconv.Itoa(j))})
			}
		}
		out, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{
			ht: {Keys: hk, ProjectionExpression: aws.String("pk, #m.y"), ExpressionAttributeNames: map[string]string{"#m": "m"}},
			rt: {Keys: rk, ConsistentRead: aws.Bool(true)},
		}})
		must(t, err)
		if len(out.UnprocessedKeys) != 0 {
			t.Errorf("UnprocessedKeys = %v, want empty", out.UnprocessedKeys)
		}
		var want []string
		for j := 0; j < 60; j += 2 {
			want = append(want, fmt.Sprintf("h%d", j))
		}
		scCheckExactlyOnce(t, "hash table responses", out.Responses[ht], want)
		for _, it := range out.Responses[ht] {
			assertItem(t, "projected item", it, Item{"pk": it["pk"], "m": M(Item{"y": S("2")})})
		}
		want = nil
		for j := 1; j < 60; j += 2 {
			want = append(want, fmt.Sprintf("r|%d", j))
		}
		scCheckExactlyOnce(t, "range table responses", out.Responses[rt], want)
		for _, it := range out.Responses[rt] {
			if rdAttrNames(it) != "[a b pk sk]" {
				t.Errorf("unprojected item %s", show(canonItem(it)))
			}
		}

		// Only missing keys: the table appears with an empty list.
		out, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{ht: {Keys: []Item{{"pk": S("nope")}}}}})
		must(t, err)
		if r, ok := out.Responses[ht]; !ok || len(r) != 0 {
			t.Errorf("Responses for only-missing keys = %v (present %v), want an empty list", r, ok)
		}
		_, body := rawCall(t, s, "BatchGetItem", fmt.Sprintf(`{"RequestItems":{%q:{"Keys":[{"pk":{"S":"nope"}}]}}}`, ht))
		var raw map[string]any
		if err := json.Unmarshal(body, &raw); err != nil || show(raw) != show(map[string]any{"Responses": map[string]any{ht: []any{}}, "UnprocessedKeys": map[string]any{}}) {
			t.Errorf("raw BatchGetItem response = %s, want Responses {%q: []} and UnprocessedKeys {}", body, ht)
		}

		bg := func(req map[string]types.KeysAndAttributes) error {
			_, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			return err
		}
		t.Run("duplicate keys", func(t *testing.T) {
			expectValidation(t, bg(map[string]types.KeysAndAttributes{ht: {Keys: []Item{{"pk": S("h0")}, {"pk": S("h2")}, {"pk": S("h0")}}}}),
				"Provided list of item keys contains duplicates")
			expectValidation(t, bg(map[string]types.KeysAndAttributes{rt: {Keys: []Item{{"pk": S("r"), "sk": N("1")}, {"pk": S("r"), "sk": N("1.0")}}}}),
				"Provided list of item keys contains duplicates")
		})
		t.Run("101 keys across two tables", func(t *testing.T) {
			expectValidation(t, bg(map[string]types.KeysAndAttributes{ht: {Keys: hk}, rt: {Keys: append(append([]Item{}, rk...), Item{"pk": S("r"), "sk": N("1000")})}}),
				"Too many items requested for the BatchGetItem call")
		})
		t.Run("101 keys in one table", func(t *testing.T) {
			var keys []Item
			for j := 0; j < 101; j++ {
				keys = append(keys, Item{"pk": S(fmt.Sprintf("k%d", j))})
			}
			// The service's newer text (issue 18): no value, the member's own name.
			expectValidation(t, bg(map[string]types.KeysAndAttributes{ht: {Keys: keys}}),
				"1 validation error detected: Value at 'RequestItems."+ht+".member.Keys' failed to satisfy constraint: Member must have length less than or equal to 100")
		})
		t.Run("missing table", func(t *testing.T) {
			expectNotFound(t, bg(map[string]types.KeysAndAttributes{ht: {Keys: []Item{{"pk": S("h0")}}}, harness.TableName("bg_missing"): {Keys: []Item{{"pk": S("a")}}}}))
		})
		t.Run("key of the wrong shape", func(t *testing.T) {
			expectValidation(t, bg(map[string]types.KeysAndAttributes{rt: {Keys: []Item{{"pk": S("r")}}}}), "The provided key element does not match the schema")
			expectValidation(t, bg(map[string]types.KeysAndAttributes{ht: {Keys: []Item{{"pk": N("1")}}}}), "The provided key element does not match the schema")
		})
	})
}

// TestBatchGetItemResponseLimit reads 50 items of ~390 KB (19.5 MB) in one
// BatchGetItem: the response stops at the service's 16 MB limit and the keys
// it did not read come back in UnprocessedKeys, each key exactly once.
func TestBatchGetItemResponseLimit(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		ht := createHashTable(t, c, "bg_limit")
		blob := strings.Repeat("x", 390*1024)
		var keys []Item
		for j := 0; j < 50; j++ {
			pk := fmt.Sprintf("k%02d", j)
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: &ht, Item: Item{"pk": S(pk), "d": S(blob)}})
			must(t, err)
			keys = append(keys, Item{"pk": S(pk)})
		}
		out, err := c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{ht: {Keys: keys}}})
		must(t, err)
		got := out.Responses[ht]
		left := out.UnprocessedKeys[ht].Keys
		// 16 MiB holds 42 items of 390 KiB and a bit: the 43rd is read while
		// the response is still under the limit, the rest are not.
		if len(got) != 43 || len(left) != 7 {
			t.Fatalf("BatchGetItem of 50 items of 390 KB: %d items and %d unprocessed keys, want 43 and 7", len(got), len(left))
		}
		var want []string
		for _, k := range keys {
			want = append(want, k["pk"].(*types.AttributeValueMemberS).Value)
		}
		scCheckExactlyOnce(t, "returned and unprocessed keys", append(got, left...), want)
		for _, it := range got {
			if d, ok := it["d"].(*types.AttributeValueMemberS); !ok || d.Value != blob {
				t.Fatalf("item %v came back without its 390 KB attribute", it["pk"])
			}
		}
		// The unprocessed keys, sent again, are all read.
		out, err = c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: out.UnprocessedKeys})
		must(t, err)
		if len(out.Responses[ht]) != 7 || len(out.UnprocessedKeys) != 0 {
			t.Errorf("the unprocessed keys again: %d items and %d tables unprocessed, want 7 and none", len(out.Responses[ht]), len(out.UnprocessedKeys))
		}
	})
}
