package e2e

import (
	"math"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func TestItemRoundTripAllTypes(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createHashTable(t, c, "rt")
		item := Item{
			"pk":     S("all-types"),
			"s":      S("héllo wörld ✓"),
			"empty":  S(""),
			"n":      N("-56.789"),
			"b":      B([]byte{0, 1, 2, 0xff}),
			"emptyb": B([]byte{}),
			"t":      BOOL(true),
			"f":      BOOL(false),
			"null":   NULL(),
			"ss":     SS("c", "a", "b"),
			"ns":     NS("3", "-1", "2.5"),
			"bs":     BS([]byte("x"), []byte{0}, []byte("yz")),
			"l":      L(S("a"), N("1"), B([]byte("b")), BOOL(true), NULL(), SS("a"), NS("1"), BS([]byte("q")), L(), M(nil)),
			"m": M(Item{
				"s": S("a"), "n": N("1"), "nested": M(Item{"deeper": M(Item{"l": L(L(N("1"), N("2")), M(Item{"x": S("y")}))})}),
				"emptyl": L(), "emptym": M(nil),
			}),
			"with space":      S("attribute names can hold anything"),
			"ss_empty_member": SS("", "x"),
		}
		put(t, c, table, item)
		assertItem(t, "GetItem", get(t, c, table, Item{"pk": S("all-types")}), item)

		// Eventually consistent read of the same item.
		out, err := c.GetItem(harness.Ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("all-types")}})
		must(t, err)
		assertItem(t, "GetItem (eventually consistent)", out.Item, item)

		// Overwrite replaces the whole item.
		put(t, c, table, Item{"pk": S("all-types"), "only": S("this")})
		assertItem(t, "after overwrite", get(t, c, table, Item{"pk": S("all-types")}), Item{"pk": S("all-types"), "only": S("this")})

		del, err := c.DeleteItem(harness.Ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("all-types")}})
		must(t, err)
		if del.Attributes != nil {
			t.Errorf("DeleteItem without ReturnValues returned Attributes %v", show(canonItem(del.Attributes)))
		}
		assertItem(t, "after delete", get(t, c, table, Item{"pk": S("all-types")}), nil)

		// Deleting a missing item succeeds.
		_, err = c.DeleteItem(harness.Ctx(t), &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("never")}})
		must(t, err)
	})
}

func TestNumbersNormalized(t *testing.T) {
	t.Parallel()
	big := "9" + strings.Repeat("9", 37)
	cases := []struct{ in, want string }{
		{"1.50", "1.5"},
		{"1e2", "100"},
		{"1E2", "100"},
		{"-0", "0"},
		{"0.000", "0"},
		{"+7", "7"},
		{"00012", "12"},
		{"12.000", "12"},
		{"-0.0100", "-0.01"},
		{"1.5e-3", "0.0015"},
		{"123e-2", "1.23"},
		{"12345678901234567890123456789012345678", "12345678901234567890123456789012345678"},
		{"-1.2345678901234567890123456789012345678", "-1.2345678901234567890123456789012345678"},
		{"0000012345678901234567890123456789012345678", "12345678901234567890123456789012345678"},
		{"9.9999999999999999999999999999999999999E+125", big + strings.Repeat("0", 88)},
		{"1E-130", "0." + strings.Repeat("0", 129) + "1"},
		{"-1E-130", "-0." + strings.Repeat("0", 129) + "1"},
	}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createHashTable(t, c, "num")
		for _, tc := range cases {
			key := Item{"pk": S("n" + tc.in)}
			put(t, c, table, Item{"pk": key["pk"], "n": N(tc.in), "ns": NS(tc.in, "42"), "l": L(N(tc.in))})
			assertItem(t, "number "+tc.in, get(t, c, table, key),
				Item{"pk": key["pk"], "n": N(tc.want), "ns": NS(tc.want, "42"), "l": L(N(tc.want))})
		}
		// A number key normalizes too: 1.0 and 1 are the same key.
		nt := createRangeTable(t, c, "numkey", "N")
		put(t, c, nt, Item{"pk": S("a"), "sk": N("1.0"), "v": S("first")})
		put(t, c, nt, Item{"pk": S("a"), "sk": N("1"), "v": S("second")})
		assertItem(t, "number range key 1.0 == 1", get(t, c, nt, Item{"pk": S("a"), "sk": N("100e-2")}),
			Item{"pk": S("a"), "sk": N("1"), "v": S("second")})
	})
}

func TestBinaryAndRangeKeys(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createRangeTable(t, c, "bkey", "B")
		put(t, c, table, Item{"pk": S("h"), "sk": B([]byte{1, 2}), "v": N("1")})
		put(t, c, table, Item{"pk": S("h"), "sk": B([]byte{1, 2, 0}), "v": N("2")})
		put(t, c, table, Item{"pk": S("h2"), "sk": B([]byte{1, 2}), "v": N("3")})
		assertItem(t, "h/0102", get(t, c, table, Item{"pk": S("h"), "sk": B([]byte{1, 2})}), Item{"pk": S("h"), "sk": B([]byte{1, 2}), "v": N("1")})
		assertItem(t, "h/010200", get(t, c, table, Item{"pk": S("h"), "sk": B([]byte{1, 2, 0})}), Item{"pk": S("h"), "sk": B([]byte{1, 2, 0}), "v": N("2")})
		assertItem(t, "h2/0102", get(t, c, table, Item{"pk": S("h2"), "sk": B([]byte{1, 2})}), Item{"pk": S("h2"), "sk": B([]byte{1, 2}), "v": N("3")})
		assertItem(t, "h/01", get(t, c, table, Item{"pk": S("h"), "sk": B([]byte{1})}), nil)
	})
}

func TestGetMissingItem(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createHashTable(t, c, "miss")
		for _, consistent := range []bool{false, true} {
			out, err := c.GetItem(harness.Ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("nope")}, ConsistentRead: aws.Bool(consistent)})
			must(t, err)
			if out.Item != nil {
				t.Errorf("GetItem of a missing item (consistent=%v) returned Item %s; the service omits the field", consistent, show(canonItem(out.Item)))
			}
		}
		// With a projection, too.
		out, err := c.GetItem(harness.Ctx(t), &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("nope")}, ProjectionExpression: aws.String("a")})
		must(t, err)
		if out.Item != nil {
			t.Errorf("GetItem of a missing item with a projection returned Item %s", show(canonItem(out.Item)))
		}
	})
}

func TestProjectionExpression(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createHashTable(t, c, "proj")
		key := Item{"pk": S("p")}
		put(t, c, table, Item{
			"pk":     S("p"),
			"a":      M(Item{"b": S("ab"), "c": N("2"), "d": M(Item{"e": S("ade")})}),
			"l":      L(S("l0"), S("l1"), M(Item{"x": S("l2x"), "y": S("l2y")})),
			"status": S("open"),
			"misc":   N("9"),
			"a.b":    S("dotted name"),
		})
		cases := []struct {
			name  string
			expr  string
			names map[string]string
			want  Item
		}{
			{"top level", "pk, misc", nil, Item{"pk": S("p"), "misc": N("9")}},
			{"nested map", "a.b", nil, Item{"a": M(Item{"b": S("ab")})}},
			{"two nested of one map", "a.b, a.d.e", nil, Item{"a": M(Item{"b": S("ab"), "d": M(Item{"e": S("ade")})})}},
			{"list index", "l[1]", nil, Item{"l": L(S("l1"))}},
			{"list indexes keep order", "l[2].y, l[0]", nil, Item{"l": L(S("l0"), M(Item{"y": S("l2y")}))}},
			{"reserved word via #name", "#s", map[string]string{"#s": "status"}, Item{"status": S("open")}},
			{"dotted attribute name via #name", "#ab", map[string]string{"#ab": "a.b"}, Item{"a.b": S("dotted name")}},
			{"#names inside a path", "#a.#b", map[string]string{"#a": "a", "#b": "b"}, Item{"a": M(Item{"b": S("ab")})}},
			{"missing attributes are left out", "misc, nope", nil, Item{"misc": N("9")}},
			{"whole map", "a", nil, Item{"a": M(Item{"b": S("ab"), "c": N("2"), "d": M(Item{"e": S("ade")})})}},
		}
		for _, tc := range cases {
			out, err := c.GetItem(harness.Ctx(t), &dynamodb.GetItemInput{
				TableName: aws.String(table), Key: key, ProjectionExpression: aws.String(tc.expr), ExpressionAttributeNames: tc.names,
			})
			if err != nil {
				t.Errorf("%s (%s): %v", tc.name, tc.expr, err)
				continue
			}
			assertItem(t, tc.name+" ("+tc.expr+")", out.Item, tc.want)
		}
	})
}

func TestReturnValuesAllOld(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "rvold")
		key := Item{"pk": S("k")}

		out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k"), "v": N("-0015.789e6")}, ReturnValues: types.ReturnValueAllOld})
		must(t, err)
		if out.Attributes != nil {
			t.Errorf("PutItem ALL_OLD of a new item returned Attributes %s", show(canonItem(out.Attributes)))
		}
		out, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k"), "w": S("new")}, ReturnValues: types.ReturnValueAllOld})
		must(t, err)
		assertItem(t, "PutItem ALL_OLD", out.Attributes, Item{"pk": S("k"), "v": N("-15789000")})

		out, err = c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: Item{"pk": S("k"), "w": S("newer")}, ReturnValues: types.ReturnValueNone})
		must(t, err)
		if out.Attributes != nil {
			t.Errorf("PutItem NONE returned Attributes")
		}

		d, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key, ReturnValues: types.ReturnValueAllOld})
		must(t, err)
		assertItem(t, "DeleteItem ALL_OLD", d.Attributes, Item{"pk": S("k"), "w": S("newer")})

		d, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key, ReturnValues: types.ReturnValueAllOld})
		must(t, err)
		if d.Attributes != nil {
			t.Errorf("DeleteItem ALL_OLD of a missing item returned Attributes %s", show(canonItem(d.Attributes)))
		}
	})
}

func capacityEq(cc *types.ConsumedCapacity, table string, units float64, withTable bool) string {
	if cc == nil {
		return "ConsumedCapacity missing"
	}
	var errs []string
	if aws.ToString(cc.TableName) != table {
		errs = append(errs, "TableName="+aws.ToString(cc.TableName))
	}
	if cc.CapacityUnits == nil || math.Abs(*cc.CapacityUnits-units) > 1e-9 {
		errs = append(errs, "CapacityUnits="+show(cc.CapacityUnits)+" want "+show(units))
	}
	if withTable {
		if cc.Table == nil || cc.Table.CapacityUnits == nil || math.Abs(*cc.Table.CapacityUnits-units) > 1e-9 {
			errs = append(errs, "Table="+show(cc.Table)+" want CapacityUnits "+show(units))
		}
	} else if cc.Table != nil {
		errs = append(errs, "Table present with TOTAL: "+show(cc.Table))
	}
	if cc.GlobalSecondaryIndexes != nil || cc.LocalSecondaryIndexes != nil {
		errs = append(errs, "index capacity present on a table without indexes")
	}
	return strings.Join(errs, "; ")
}

func TestConsumedCapacity(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "cap")
		small := Item{"pk": S("small"), "v": S("x")}
		big := Item{"pk": S("big"), "v": S(strings.Repeat("b", 1500))}   // 2 write units, 1 read unit
		huge := Item{"pk": S("huge"), "v": S(strings.Repeat("h", 5000))} // 5 write units, 2 read units
		for _, rc := range []types.ReturnConsumedCapacity{types.ReturnConsumedCapacityTotal, types.ReturnConsumedCapacityIndexes} {
			withTable := rc == types.ReturnConsumedCapacityIndexes
			for _, tc := range []struct {
				item  Item
				units float64
			}{{small, 1}, {big, 2}, {huge, 5}} {
				out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: tc.item, ReturnConsumedCapacity: rc})
				must(t, err)
				if msg := capacityEq(out.ConsumedCapacity, table, tc.units, withTable); msg != "" {
					t.Errorf("PutItem %s %s: %s", tc.item["pk"].(*types.AttributeValueMemberS).Value, rc, msg)
				}
			}
			for _, tc := range []struct {
				key        string
				consistent bool
				units      float64
			}{{"small", false, 0.5}, {"small", true, 1}, {"huge", false, 1}, {"huge", true, 2}, {"missing", false, 0.5}, {"missing", true, 1}} {
				out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S(tc.key)}, ConsistentRead: aws.Bool(tc.consistent), ReturnConsumedCapacity: rc})
				must(t, err)
				if msg := capacityEq(out.ConsumedCapacity, table, tc.units, withTable); msg != "" {
					t.Errorf("GetItem %s consistent=%v %s: %s", tc.key, tc.consistent, rc, msg)
				}
			}
			out, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("big")}, ReturnConsumedCapacity: rc})
			must(t, err)
			if msg := capacityEq(out.ConsumedCapacity, table, 2, withTable); msg != "" {
				t.Errorf("DeleteItem big %s: %s", rc, msg)
			}
			out, err = c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: Item{"pk": S("missing")}, ReturnConsumedCapacity: rc})
			must(t, err)
			if msg := capacityEq(out.ConsumedCapacity, table, 1, withTable); msg != "" {
				t.Errorf("DeleteItem missing %s: %s", rc, msg)
			}
			u, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: Item{"pk": S("small")},
				UpdateExpression: aws.String("SET w = :w"), ExpressionAttributeValues: Item{":w": S("y")}, ReturnConsumedCapacity: rc})
			must(t, err)
			if msg := capacityEq(u.ConsumedCapacity, table, 1, withTable); msg != "" {
				t.Errorf("UpdateItem small %s: %s", rc, msg)
			}
		}
		// NONE (and absent) returns no ConsumedCapacity.
		out, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: small, ReturnConsumedCapacity: types.ReturnConsumedCapacityNone})
		must(t, err)
		if out.ConsumedCapacity != nil {
			t.Errorf("ReturnConsumedCapacity NONE returned %s", show(out.ConsumedCapacity))
		}
		g, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: Item{"pk": S("small")}})
		must(t, err)
		if g.ConsumedCapacity != nil {
			t.Errorf("GetItem without ReturnConsumedCapacity returned %s", show(g.ConsumedCapacity))
		}
	})
}
