package e2e

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// ixCreate creates the index test table:
//
//	base key   pk (S) + sk (S)
//	lsi        pk + lsk (N), KEYS_ONLY
//	gkx         g1 (S), hash only, KEYS_ONLY
//	gix         g2 (S) + g2r (N), INCLUDE [inc]
//	gax         g3 (S), ALL
func ixCreate(t *testing.T, c *dynamodb.Client, prefix string) string {
	t.Helper()
	name := harness.TableName(prefix)
	_, err := c.CreateTable(harness.Ctx(t), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: attrDefs("pk", "S", "sk", "S", "lsk", "N", "g1", "S", "g2", "S", "g2r", "N", "g3", "S"),
		KeySchema:            keySchema("pk", "sk"),
		BillingMode:          types.BillingModePayPerRequest,
		LocalSecondaryIndexes: []types.LocalSecondaryIndex{{
			IndexName: aws.String("lsi"), KeySchema: keySchema("pk", "lsk"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		}},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("gkx"), KeySchema: keySchema("g1"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}},
			{IndexName: aws.String("gix"), KeySchema: keySchema("g2", "g2r"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"inc"}}},
			{IndexName: aws.String("gax"), KeySchema: keySchema("g3"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
		},
	})
	if err != nil {
		t.Fatalf("CreateTable %s: %v", name, err)
	}
	waitActive(t, c, name)
	return name
}

func ixQuery(t *testing.T, c *dynamodb.Client, table, index, cond string, vals Item) []Item {
	t.Helper()
	return rdItems(rdQueryAll(t, c, dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(index),
		KeyConditionExpression: aws.String(cond), ExpressionAttributeValues: vals}))
}

func ixScan(t *testing.T, c *dynamodb.Client, table, index string) []Item {
	t.Helper()
	return rdItems(rdScanAll(t, c, dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String(index)}))
}

// ixByKey indexes items by their table key.
func ixByKey(items []Item) map[string]Item {
	out := map[string]Item{}
	for _, it := range items {
		out[scKeyOf(it)] = it
	}
	return out
}

func ixProject(it Item, names ...string) Item {
	out := Item{}
	for _, n := range names {
		if v, ok := it[n]; ok {
			out[n] = v
		}
	}
	return out
}

func TestIndexProjectionsAndSparseness(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := ixCreate(t, c, "ix_proj")
		full := Item{"pk": S("p"), "sk": S("full"), "lsk": N("1"), "g1": S("G1"), "g2": S("G2"), "g2r": N("5"), "g3": S("G3"),
			"inc": S("included"), "other": S("not projected"), "m": M(Item{"a": N("1")})}
		none := Item{"pk": S("p"), "sk": S("none"), "inc": S("i"), "other": S("o")}
		onlyG2 := Item{"pk": S("p"), "sk": S("g2only"), "g2": S("G2"), "inc": S("i2")} // lacks g2r: not in gix
		onlyG1 := Item{"pk": S("q"), "sk": S("g1only"), "g1": S("G1"), "lsk": N("2"), "other": S("x")}
		for _, it := range []Item{full, none, onlyG2, onlyG1} {
			put(t, c, table, it)
		}
		keys := func(items []Item) []string {
			var out []string
			for _, it := range items {
				out = append(out, scKeyOf(it))
			}
			sort.Strings(out)
			return out
		}

		// LSI, KEYS_ONLY: table key + index key.
		got := ixQuery(t, c, table, "lsi", "pk = :p", Item{":p": S("p")})
		rdEqual(t, "lsi query keys", keys(got), []string{"p|full"})
		if len(got) == 1 {
			assertItem(t, "lsi projected item", got[0], ixProject(full, "pk", "sk", "lsk"))
		}
		got = ixScan(t, c, table, "lsi")
		rdEqual(t, "lsi scan keys", keys(got), []string{"p|full", "q|g1only"})
		for k, it := range ixByKey(got) {
			if rdAttrNames(it) != "[lsk pk sk]" {
				t.Errorf("lsi scan item %s: %s", k, show(canonItem(it)))
			}
		}
		// An LSI can fetch all attributes from the table.
		out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("lsi"), KeyConditionExpression: aws.String("pk = :p AND lsk = :l"),
			ExpressionAttributeValues: Item{":p": S("p"), ":l": N("1")}, Select: types.SelectAllAttributes, ConsistentRead: aws.Bool(true)})
		must(t, err)
		if len(out.Items) == 1 {
			assertItem(t, "lsi ALL_ATTRIBUTES", out.Items[0], full)
		} else {
			t.Errorf("lsi ALL_ATTRIBUTES: %d items", len(out.Items))
		}

		// ... and so can a ProjectionExpression naming an attribute the LSI does not project.
		out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("lsi"), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: Item{":p": S("p")}, ProjectionExpression: aws.String("sk, #o"), ExpressionAttributeNames: map[string]string{"#o": "other"}})
		must(t, err)
		if len(out.Items) == 1 {
			assertItem(t, "lsi projection of a non-projected attribute", out.Items[0], Item{"sk": S("full"), "other": S("not projected")})
		} else {
			t.Errorf("lsi projection query: %d items", len(out.Items))
		}

		// gkx, KEYS_ONLY hash-only GSI.
		got = ixQuery(t, c, table, "gkx", "g1 = :g", Item{":g": S("G1")})
		rdEqual(t, "gkx query keys", keys(got), []string{"p|full", "q|g1only"})
		want := ixByKey([]Item{ixProject(full, "pk", "sk", "g1"), ixProject(onlyG1, "pk", "sk", "g1")})
		for k, it := range ixByKey(got) {
			assertItem(t, "gkx item "+k, it, want[k])
		}
		rdEqual(t, "gkx scan keys", keys(ixScan(t, c, table, "gkx")), []string{"p|full", "q|g1only"})

		// gix, INCLUDE [inc].
		got = ixQuery(t, c, table, "gix", "g2 = :g", Item{":g": S("G2")})
		rdEqual(t, "gix query keys", keys(got), []string{"p|full"})
		if len(got) == 1 {
			assertItem(t, "gix projected item", got[0], ixProject(full, "pk", "sk", "g2", "g2r", "inc"))
		}
		got = ixScan(t, c, table, "gix")
		rdEqual(t, "gix scan keys", keys(got), []string{"p|full"})

		// gax, ALL.
		got = ixQuery(t, c, table, "gax", "g3 = :g", Item{":g": S("G3")})
		if len(got) == 1 {
			assertItem(t, "gax item", got[0], full)
		} else {
			t.Errorf("gax query: %d items", len(got))
		}
		rdEqual(t, "gax scan keys", keys(ixScan(t, c, table, "gax")), []string{"p|full"})

		// Projection on an index, Select COUNT on an index, ALL_PROJECTED_ATTRIBUTES.
		out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("gix"), KeyConditionExpression: aws.String("g2 = :g AND g2r BETWEEN :a AND :b"),
			ExpressionAttributeValues: Item{":g": S("G2"), ":a": N("1"), ":b": N("9")}, ProjectionExpression: aws.String("inc, sk")})
		must(t, err)
		if len(out.Items) == 1 {
			assertItem(t, "gix projection", out.Items[0], Item{"inc": S("included"), "sk": S("full")})
		} else {
			t.Errorf("gix projection query: %d items", len(out.Items))
		}
		out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("gkx"), KeyConditionExpression: aws.String("g1 = :g"),
			ExpressionAttributeValues: Item{":g": S("G1")}, Select: types.SelectCount})
		must(t, err)
		if out.Count != 2 || out.Items != nil {
			t.Errorf("gkx COUNT = %d items %v", out.Count, out.Items)
		}
		out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("gix"), KeyConditionExpression: aws.String("g2 = :g"),
			ExpressionAttributeValues: Item{":g": S("G2")}, Select: types.SelectAllProjectedAttributes})
		must(t, err)
		if len(out.Items) != 1 || rdAttrNames(out.Items[0]) != "[g2 g2r inc pk sk]" {
			t.Errorf("gix ALL_PROJECTED_ATTRIBUTES = %s", show(out.Items))
		}
		// Filter on an index.
		out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("gkx"), KeyConditionExpression: aws.String("g1 = :g"),
			FilterExpression: aws.String("pk = :q"), ExpressionAttributeValues: Item{":g": S("G1"), ":q": S("q")}})
		must(t, err)
		if out.Count != 1 || out.ScannedCount != 2 {
			t.Errorf("gkx filter Count/ScannedCount = %d/%d, want 1/2", out.Count, out.ScannedCount)
		}
	})
}

func TestIndexMaintenance(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := ixCreate(t, c, "ix_maint")
		put(t, c, table, Item{"pk": S("a"), "sk": S("1"), "g1": S("old"), "g2": S("X"), "g2r": N("1"), "inc": S("v1"), "lsk": N("10"), "g3": S("A")})
		count := func(index, cond string, vals Item) []string {
			var out []string
			for _, it := range ixQuery(t, c, table, index, cond, vals) {
				out = append(out, scKeyOf(it))
			}
			return out
		}
		rdEqual(t, "gkx old before", count("gkx", "g1 = :g", Item{":g": S("old")}), []string{"a|1"})

		// UpdateItem moves the item between index keys.
		_, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a"), "sk": S("1")},
			UpdateExpression: aws.String("SET g1 = :n, g2r = :r, inc = :i, lsk = :l"), ExpressionAttributeValues: Item{":n": S("new"), ":r": N("2"), ":i": S("v2"), ":l": N("20")}})
		must(t, err)
		rdEqual(t, "gkx old after update", count("gkx", "g1 = :g", Item{":g": S("old")}), nil)
		rdEqual(t, "gkx new after update", count("gkx", "g1 = :g", Item{":g": S("new")}), []string{"a|1"})
		rdEqual(t, "gix r=1 after update", count("gix", "g2 = :g AND g2r = :r", Item{":g": S("X"), ":r": N("1")}), nil)
		got := ixQuery(t, c, table, "gix", "g2 = :g AND g2r = :r", Item{":g": S("X"), ":r": N("2")})
		if len(got) == 1 {
			assertItem(t, "gix after update", got[0], Item{"pk": S("a"), "sk": S("1"), "g2": S("X"), "g2r": N("2"), "inc": S("v2")})
		} else {
			t.Errorf("gix r=2 after update: %d items", len(got))
		}
		rdEqual(t, "lsi 10 after update", count("lsi", "pk = :p AND lsk = :l", Item{":p": S("a"), ":l": N("10")}), nil)
		rdEqual(t, "lsi 20 after update", count("lsi", "pk = :p AND lsk = :l", Item{":p": S("a"), ":l": N("20")}), []string{"a|1"})

		// Updating a projected non-key attribute shows in the index.
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a"), "sk": S("1")},
			UpdateExpression: aws.String("SET inc = :i, #o = :o"), ExpressionAttributeNames: map[string]string{"#o": "other"}, ExpressionAttributeValues: Item{":i": S("v3"), ":o": S("o")}})
		must(t, err)
		got = ixQuery(t, c, table, "gix", "g2 = :g", Item{":g": S("X")})
		if len(got) == 1 {
			assertItem(t, "gix after non-key update", got[0], Item{"pk": S("a"), "sk": S("1"), "g2": S("X"), "g2r": N("2"), "inc": S("v3")})
		}
		got = ixQuery(t, c, table, "gax", "g3 = :g", Item{":g": S("A")})
		if len(got) != 1 || got[0]["other"] == nil {
			t.Errorf("gax after non-key update: %s", show(got))
		}

		// REMOVE of an index key takes the item out of that index only.
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("a"), "sk": S("1")}, UpdateExpression: aws.String("REMOVE g1")})
		must(t, err)
		rdEqual(t, "gkx after REMOVE", count("gkx", "g1 = :g", Item{":g": S("new")}), nil)
		rdEqual(t, "gkx scan after REMOVE", rdStr(ixScan(t, c, table, "gkx"), "pk"), nil)
		rdEqual(t, "gix after REMOVE g1", count("gix", "g2 = :g", Item{":g": S("X")}), []string{"a|1"})

		// PutItem replacing the item replaces its index entries.
		put(t, c, table, Item{"pk": S("a"), "sk": S("1"), "g1": S("put"), "g3": S("B")})
		rdEqual(t, "gix after replacing put", count("gix", "g2 = :g", Item{":g": S("X")}), nil)
		rdEqual(t, "gax A after replacing put", count("gax", "g3 = :g", Item{":g": S("A")}), nil)
		rdEqual(t, "gax B after replacing put", count("gax", "g3 = :g", Item{":g": S("B")}), []string{"a|1"})
		rdEqual(t, "lsi after replacing put", count("lsi", "pk = :p", Item{":p": S("a")}), nil)
		rdEqual(t, "gkx after replacing put", count("gkx", "g1 = :g", Item{":g": S("put")}), []string{"a|1"})

		// DeleteItem removes it from every index.
		_, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("a"), "sk": S("1")}})
		must(t, err)
		for _, ix := range []string{"lsi", "gkx", "gix", "gax"} {
			if got := ixScan(t, c, table, ix); len(got) != 0 {
				t.Errorf("%s after delete: %s", ix, show(got))
			}
		}

		// BatchWriteItem maintains indexes too.
		_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
			btPut(Item{"pk": S("b"), "sk": S("1"), "g1": S("bw")}), btPut(Item{"pk": S("b"), "sk": S("2"), "g1": S("bw")}),
		}}})
		must(t, err)
		rdEqual(t, "gkx after batch put", count("gkx", "g1 = :g", Item{":g": S("bw")}), []string{"b|1", "b|2"})
		_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {btDel(Item{"pk": S("b"), "sk": S("1")})}}})
		must(t, err)
		rdEqual(t, "gkx after batch delete", count("gkx", "g1 = :g", Item{":g": S("bw")}), []string{"b|2"})
	})
}

// TestIndexTieBreakPaging stores many items under one index key: they come
// back ordered by the base table key, and paging at every page size in both
// directions gives that order exactly.
func TestIndexTieBreakPaging(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := ixCreate(t, c, "ix_tie")
		type row struct{ pk, sk string }
		var rows []row
		for i := 0; i < 24; i++ {
			r := row{fmt.Sprintf("p%d", (i*5)%7), fmt.Sprintf("s%02d", (i*7)%24)}
			rows = append(rows, r)
			put(t, c, table, Item{"pk": S(r.pk), "sk": S(r.sk), "g1": S("same"), "g2": S("same"), "g2r": N("7"), "g3": S("same"), "lsk": N("1")})
		}
		// Other index keys around the tie group.
		put(t, c, table, Item{"pk": S("z"), "sk": S("z"), "g1": S("samf"), "g2": S("same"), "g2r": N("8"), "g3": S("sam")})
		put(t, c, table, Item{"pk": S("z"), "sk": S("y"), "g2": S("same"), "g2r": N("6.5")})
		sort.Slice(rows, func(i, j int) bool {
			if rows[i].pk != rows[j].pk {
				return rows[i].pk < rows[j].pk
			}
			return rows[i].sk < rows[j].sk
		})
		var want []string
		for _, r := range rows {
			want = append(want, r.pk+"|"+r.sk)
		}
		keysOf := func(items []Item) []string {
			var out []string
			for _, it := range items {
				out = append(out, scKeyOf(it))
			}
			return out
		}
		for _, tc := range []struct {
			index, cond string
			vals        Item
			want        []string
		}{
			{"gkx", "g1 = :g", Item{":g": S("same")}, want},
			{"gax", "g3 = :g", Item{":g": S("same")}, want},
			{"gix", "g2 = :g AND g2r = :r", Item{":g": S("same"), ":r": N("7")}, want},
			{"gix", "g2 = :g", Item{":g": S("same")}, append(append([]string{"z|y"}, want...), "z|z")},
		} {
			for _, fwd := range []bool{true, false} {
				in := dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String(tc.index),
					KeyConditionExpression: aws.String(tc.cond), ExpressionAttributeValues: tc.vals, ScanIndexForward: aws.Bool(fwd)}
				exp := tc.want
				if !fwd {
					exp = rdReverse(tc.want)
				}
				unpaged := keysOf(rdItems(rdQueryAll(t, c, in)))
				rdEqual(t, fmt.Sprintf("%s %s forward=%v order (base key tie-break)", tc.index, tc.cond, fwd), unpaged, exp)
				for limit := 1; limit <= len(exp)+1; limit++ {
					q := in
					q.Limit = aws.Int32(int32(limit))
					got := keysOf(rdItems(rdQueryAll(t, c, q)))
					if fmt.Sprint(got) != fmt.Sprint(unpaged) {
						t.Errorf("%s %s forward=%v Limit %d:\n  got:     %q\n  unpaged: %q", tc.index, tc.cond, fwd, limit, got, unpaged)
					}
				}
			}
		}
		// Scan of an index pages exactly too.
		full := keysOf(ixScan(t, c, table, "gix"))
		if len(full) != 26 {
			t.Errorf("gix scan: %d items, want 26", len(full))
		}
		for _, limit := range []int32{1, 5, 26} {
			got := keysOf(rdItems(rdScanAll(t, c, dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("gix"), Limit: aws.Int32(limit)})))
			rdEqual(t, fmt.Sprintf("gix scan Limit %d", limit), got, full)
		}
		// LastEvaluatedKey of an index read holds the table key and the index key.
		out, err := c.Query(harness.Ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("gix"), Limit: aws.Int32(1),
			KeyConditionExpression: aws.String("g2 = :g"), ExpressionAttributeValues: Item{":g": S("same")}})
		must(t, err)
		assertItem(t, "gix LastEvaluatedKey", out.LastEvaluatedKey, Item{"pk": S("z"), "sk": S("y"), "g2": S("same"), "g2r": N("6.5")})
		out, err = c.Query(harness.Ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), IndexName: aws.String("gkx"), Limit: aws.Int32(1),
			KeyConditionExpression: aws.String("g1 = :g"), ExpressionAttributeValues: Item{":g": S("same")}})
		must(t, err)
		if len(out.LastEvaluatedKey) != 3 || out.LastEvaluatedKey["g1"] == nil {
			t.Errorf("gkx LastEvaluatedKey = %s, want pk, sk and g1", show(canonItem(out.LastEvaluatedKey)))
		}
	})
}

func TestIndexErrors(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := ixCreate(t, c, "ix_err")
		sentinel := Item{"pk": S("s"), "sk": S("s"), "g1": S("orig")}
		put(t, c, table, sentinel)
		q := func(in dynamodb.QueryInput) error {
			in.TableName = aws.String(table)
			_, err := c.Query(ctx, &in)
			return err
		}
		gv := Item{":g": S("orig")}
		expectValidation(t, q(dynamodb.QueryInput{IndexName: aws.String("gkx"), KeyConditionExpression: aws.String("g1 = :g"), ExpressionAttributeValues: gv, Select: types.SelectAllAttributes}),
			"Select type ALL_ATTRIBUTES is not supported for global secondary index gkx because its projection type is not ALL")
		expectValidation(t, q(dynamodb.QueryInput{IndexName: aws.String("gix"), KeyConditionExpression: aws.String("g2 = :g"), ExpressionAttributeValues: gv, Select: types.SelectAllAttributes}),
			"Select type ALL_ATTRIBUTES is not supported for global secondary index gix because its projection type is not ALL")
		must(t, q(dynamodb.QueryInput{IndexName: aws.String("gax"), KeyConditionExpression: aws.String("g3 = :g"), ExpressionAttributeValues: gv, Select: types.SelectAllAttributes}))
		_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("gkx"), Select: types.SelectAllAttributes})
		expectValidation(t, err, "Select type ALL_ATTRIBUTES is not supported for global secondary index gkx because its projection type is not ALL")
		expectValidation(t, q(dynamodb.QueryInput{IndexName: aws.String("gkx"), KeyConditionExpression: aws.String("g1 = :g"), ExpressionAttributeValues: gv, ConsistentRead: aws.Bool(true)}),
			"Consistent reads are not supported on global secondary indexes")
		_, err = c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), IndexName: aws.String("gax"), ConsistentRead: aws.Bool(true)})
		expectValidation(t, err, "Consistent reads are not supported on global secondary indexes")
		expectValidation(t, q(dynamodb.QueryInput{IndexName: aws.String("gkx"), KeyConditionExpression: aws.String("pk = :g"), ExpressionAttributeValues: gv}),
			"Query condition missed key schema element: g1")
		expectValidation(t, q(dynamodb.QueryInput{IndexName: aws.String("GKX"), KeyConditionExpression: aws.String("g1 = :g"), ExpressionAttributeValues: gv}),
			"The table does not have the specified index: GKX")
		// A start key for an index read must carry the index key too.
		expectValidation(t, q(dynamodb.QueryInput{IndexName: aws.String("gkx"), KeyConditionExpression: aws.String("g1 = :g"), ExpressionAttributeValues: gv,
			ExclusiveStartKey: Item{"pk": S("s"), "sk": S("s")}}),
			"The provided starting key is invalid: The provided key element does not match the schema")

		// Writes with a wrong-typed index key.
		mismatch := func(k, exp, act, ix string) string {
			return fmt.Sprintf("One or more parameter values were invalid: Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", k, exp, act, ix)
		}
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("s"), "sk": S("s"), "g1": N("1")}})
		expectValidation(t, err, mismatch("g1", "S", "N", "gkx"))
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("s"), "sk": S("s"), "g2r": S("x")}})
		expectValidation(t, err, mismatch("g2r", "N", "S", "gix"))
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("s"), "sk": S("s"), "lsk": SS("x")}})
		expectValidation(t, err, mismatch("lsk", "N", "SS", "lsi"))
		_, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("s"), "sk": S("s"), "g3": B([]byte("b"))}})
		expectValidation(t, err, mismatch("g3", "S", "B", "gax"))
		_, err = c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("s"), "sk": S("s")},
			UpdateExpression: aws.String("SET g1 = :v"), ExpressionAttributeValues: Item{":v": N("1")}})
		expectValidation(t, err, mismatch("g1", "S", "N", "gkx"))
		_, err = c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {btPut(Item{"pk": S("s"), "sk": S("s"), "g2": BOOL(true)})}}})
		expectValidation(t, err, mismatch("g2", "S", "BOOL", "gix"))
		assertItem(t, "sentinel after refused writes", get(t, c, table, Item{"pk": S("s"), "sk": S("s")}), sentinel)
		rdEqual(t, "gkx still has the sentinel", rdStr(ixQuery(t, c, table, "gkx", "g1 = :g", gv), "pk"), []string{"s"})
	})
}

// keep imports used when trimming cases
var _ = bytes.Equal
var _ = strconv.Itoa
