package e2e

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// ---------------------------------------------------------------------------
// Read helpers shared by query_test.go, scan_test.go and indexes_test.go.

// rdPage is one page of a Query or Scan.
type rdPage struct {
	items   []Item
	count   int32
	scanned int32
	last    Item
}

// rdQueryAll runs a Query to the end, feeding LastEvaluatedKey back as
// ExclusiveStartKey, and returns every page.
func rdQueryAll(t *testing.T, c *dynamodb.Client, in dynamodb.QueryInput) []rdPage {
	t.Helper()
	var pages []rdPage
	for i := 0; i < 1000; i++ {
		req := in
		out, err := c.Query(harness.Ctx(t), &req)
		if err != nil {
			t.Fatalf("Query (page %d): %v", i, err)
		}
		pages = append(pages, rdPage{out.Items, out.Count, out.ScannedCount, out.LastEvaluatedKey})
		if len(out.LastEvaluatedKey) == 0 {
			return pages
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	t.Fatalf("Query did not finish after 1000 pages")
	return nil
}

// rdScanAll is rdQueryAll for Scan.
func rdScanAll(t *testing.T, c *dynamodb.Client, in dynamodb.ScanInput) []rdPage {
	t.Helper()
	var pages []rdPage
	for i := 0; i < 1000; i++ {
		req := in
		out, err := c.Scan(harness.Ctx(t), &req)
		if err != nil {
			t.Fatalf("Scan (page %d): %v", i, err)
		}
		pages = append(pages, rdPage{out.Items, out.Count, out.ScannedCount, out.LastEvaluatedKey})
		if len(out.LastEvaluatedKey) == 0 {
			return pages
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	t.Fatalf("Scan did not finish after 1000 pages")
	return nil
}

// rdItems concatenates the items of all pages.
func rdItems(pages []rdPage) []Item {
	var out []Item
	for _, p := range pages {
		out = append(out, p.items...)
	}
	return out
}

// rdStr renders one attribute of each item as a string (S, N, or hex for B;
// "<missing>" when absent), for order comparisons.
func rdStr(items []Item, name string) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		switch v := it[name].(type) {
		case *types.AttributeValueMemberS:
			out = append(out, v.Value)
		case *types.AttributeValueMemberN:
			out = append(out, v.Value)
		case *types.AttributeValueMemberB:
			out = append(out, fmt.Sprintf("%x", v.Value))
		case nil:
			out = append(out, "<missing>")
		default:
			out = append(out, fmt.Sprintf("%T", v))
		}
	}
	return out
}

func rdReverse(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

func rdEqual(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n  got:  %q\n  want: %q", what, got, want)
	}
}

// rdAttrNames is the sorted set of attribute names of an item.
func rdAttrNames(it Item) string {
	names := make([]string, 0, len(it))
	for k := range it {
		names = append(names, k)
	}
	sortStrings(names)
	return fmt.Sprint(names)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// rdCheckPaging queries (or scans) with every Limit from 1 to n+1 and checks
// that the pages concatenate to want exactly: no repeats, no gaps, and every
// page but the last holds exactly Limit items.
func rdCheckQueryPaging(t *testing.T, c *dynamodb.Client, in dynamodb.QueryInput, attrName string, want []string) {
	t.Helper()
	for limit := 1; limit <= len(want)+1; limit++ {
		q := in
		q.Limit = aws.Int32(int32(limit))
		pages := rdQueryAll(t, c, q)
		got := rdStr(rdItems(pages), attrName)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Limit %d (forward=%v): paged sequence\n  got:  %q\n  want: %q", limit, aws.ToBool(in.ScanIndexForward) || in.ScanIndexForward == nil, got, want)
			continue
		}
		for i, p := range pages {
			if i < len(pages)-1 && len(p.items) != limit {
				t.Errorf("Limit %d: page %d has %d items", limit, i, len(p.items))
			}
			if int(p.count) != len(p.items) || int(p.scanned) != len(p.items) {
				t.Errorf("Limit %d: page %d Count/ScannedCount = %d/%d with %d items", limit, i, p.count, p.scanned, len(p.items))
			}
		}
		// A page that ends exactly on the last item carries a LastEvaluatedKey
		// and is followed by an empty page (the service only knows it reached the
		// end when it looks again); when Limit exceeds the result count there is
		// a single page without LastEvaluatedKey.
		if limit > len(want) && len(pages) != 1 {
			t.Errorf("Limit %d > %d items: %d pages, want 1", limit, len(want), len(pages))
		}
	}
}

// ---------------------------------------------------------------------------
// Query tests

// createQTable creates an on-demand table keyed pk (S) + sk of skType, with
// ranks in attribute "r" so that order can be checked independently of how
// the server formats numbers.
func TestQueryKeyConditions(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createRangeTable(t, c, "q_kc", "S")
		sks := []string{"a", "ab", "abc", "abd", "b", "ba", "c", "d"}
		for _, sk := range sks {
			put(t, c, table, Item{"pk": S("p"), "sk": S(sk), "v": S("x" + sk)})
			put(t, c, table, Item{"pk": S("p2"), "sk": S(sk)}) // another partition: must never leak
		}
		put(t, c, table, Item{"pk": S("o"), "sk": S("b")})
		cases := []struct {
			cond string
			vals Item
			want []string
		}{
			{"pk = :p", Item{":p": S("p")}, sks},
			{"pk = :p AND sk = :v", Item{":p": S("p"), ":v": S("abc")}, []string{"abc"}},
			{"pk = :p AND sk = :v", Item{":p": S("p"), ":v": S("zz")}, nil},
			{"pk = :p AND sk < :v", Item{":p": S("p"), ":v": S("b")}, []string{"a", "ab", "abc", "abd"}},
			{"pk = :p AND sk <= :v", Item{":p": S("p"), ":v": S("b")}, []string{"a", "ab", "abc", "abd", "b"}},
			{"pk = :p AND sk > :v", Item{":p": S("p"), ":v": S("b")}, []string{"ba", "c", "d"}},
			{"pk = :p AND sk >= :v", Item{":p": S("p"), ":v": S("b")}, []string{"b", "ba", "c", "d"}},
			{"pk = :p AND sk BETWEEN :lo AND :hi", Item{":p": S("p"), ":lo": S("ab"), ":hi": S("b")}, []string{"ab", "abc", "abd", "b"}},
			{"pk = :p AND sk BETWEEN :lo AND :hi", Item{":p": S("p"), ":lo": S("abc"), ":hi": S("abc")}, []string{"abc"}},
			{"pk = :p AND begins_with(sk, :pre)", Item{":p": S("p"), ":pre": S("ab")}, []string{"ab", "abc", "abd"}},
			{"pk = :p AND begins_with(sk, :pre)", Item{":p": S("p"), ":pre": S("b")}, []string{"b", "ba"}},
			{"pk = :p AND begins_with(sk, :pre)", Item{":p": S("p"), ":pre": S("q")}, nil},
			{"sk > :v AND pk = :p", Item{":p": S("p"), ":v": S("c")}, []string{"d"}}, // order of the two conditions does not matter
			{"(pk = :p) AND (sk < :v)", Item{":p": S("p"), ":v": S("ab")}, []string{"a"}},
			{"#k = :p AND #s >= :v", Item{":p": S("p"), ":v": S("c")}, []string{"c", "d"}},
			{"pk = :p", Item{":p": S("nope")}, nil},
		}
		for _, tc := range cases {
			in := dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String(tc.cond), ExpressionAttributeValues: tc.vals}
			if containsToken(tc.cond, "#k") {
				in.ExpressionAttributeNames = map[string]string{"#k": "pk", "#s": "sk"}
			}
			got := rdStr(rdItems(rdQueryAll(t, c, in)), "sk")
			rdEqual(t, tc.cond+" "+show(canonItem(tc.vals)), got, tc.want)
			in.ScanIndexForward = aws.Bool(false)
			got = rdStr(rdItems(rdQueryAll(t, c, in)), "sk")
			rdEqual(t, tc.cond+" (reverse) "+show(canonItem(tc.vals)), got, rdReverse(tc.want))
		}
	})
}

// TestQueryOrderString checks that S sort keys order by UTF-8 bytes, as in
// DynamoDB: uppercase before lowercase, and code points above U+FFFF after
// U+FFFF (UTF-16 ordering would put them before).
func TestQueryOrderString(t *testing.T) {
	t.Parallel()
	ordered := []string{
		"\x00", "\x01", " ", "0", "9", "A", "B", "Z", "_", "a", "a\x00", "a\x00b", "a\x01", "aa", "ab", "b", "z", "~", "\x7f",
		"\u0080", "é", "ÿ", "Ā", "ʼ", "€", "中", "\ufb01", "\uffef", "\uffff", "😀", "😁", "\U0010ffff",
	}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createRangeTable(t, c, "q_ords", "S")
		// Insert in a scrambled order.
		for i := range ordered {
			j := (i * 7) % len(ordered)
			put(t, c, table, Item{"pk": S("p"), "sk": S(ordered[j]), "r": N(strconv.Itoa(j))})
		}
		want := make([]string, len(ordered))
		for i := range ordered {
			want[i] = strconv.Itoa(i)
		}
		in := dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: Item{":p": S("p")}}
		got := rdItems(rdQueryAll(t, c, in))
		rdEqual(t, "forward order (ranks)", rdStr(got, "r"), want)
		rdEqual(t, "forward order (values)", rdStr(got, "sk"), ordered)
		rdCheckQueryPaging(t, c, in, "r", want)
		in.ScanIndexForward = aws.Bool(false)
		rdEqual(t, "reverse order (ranks)", rdStr(rdItems(rdQueryAll(t, c, in)), "r"), rdReverse(want))
		rdCheckQueryPaging(t, c, in, "r", rdReverse(want))

		// Range conditions use the same byte order.
		q := dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p AND sk BETWEEN :lo AND :hi"),
			ExpressionAttributeValues: Item{":p": S("p"), ":lo": S("Z"), ":hi": S("b")}}
		rdEqual(t, "BETWEEN Z AND b", rdStr(rdItems(rdQueryAll(t, c, q)), "sk"), []string{"Z", "_", "a", "a\x00", "a\x00b", "a\x01", "aa", "ab", "b"})
		q = dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p AND sk > :v"),
			ExpressionAttributeValues: Item{":p": S("p"), ":v": S("\uffff")}}
		rdEqual(t, "sk > U+FFFF", rdStr(rdItems(rdQueryAll(t, c, q)), "sk"), []string{"😀", "😁", "\U0010ffff"})
		q = dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :pre)"),
			ExpressionAttributeValues: Item{":p": S("p"), ":pre": S("a\x00")}}
		rdEqual(t, "begins_with a\\x00", rdStr(rdItems(rdQueryAll(t, c, q)), "sk"), []string{"a\x00", "a\x00b"})
	})
}

// TestQueryOrderNumber checks numeric ordering of N sort keys, including
// negatives, decimals and values at the edges of DynamoDB's range.
func TestQueryOrderNumber(t *testing.T) {
	t.Parallel()
	ordered := []string{
		"-9.9999999999999999999999999999999999999E+125", "-1e100", "-12345678901234567890", "-1000", "-100", "-99.99", "-10", "-9",
		"-5.5", "-5.05", "-5", "-1", "-0.5", "-0.001", "-1e-130", "0", "1e-130", "0.000001", "0.001", "0.01", "0.1", "0.5", "1",
		"1.000000000000000000000000000000000001", "1.5", "2", "9", "10", "10.5", "11", "99", "100", "1000", "12345678901234567890",
		"99999999999999999999999999999999999999", "1e100", "9.9999999999999999999999999999999999999E+125",
	}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createRangeTable(t, c, "q_ordn", "N")
		for i := range ordered {
			j := (i * 11) % len(ordered)
			put(t, c, table, Item{"pk": S("p"), "sk": N(ordered[j]), "r": N(strconv.Itoa(j))})
		}
		// The same number written differently is the same key.
		put(t, c, table, Item{"pk": S("p"), "sk": N("1.50"), "r": N("24")})
		put(t, c, table, Item{"pk": S("p"), "sk": N("0010"), "r": N("27")})
		want := make([]string, len(ordered))
		for i := range ordered {
			want[i] = strconv.Itoa(i)
		}
		in := dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: Item{":p": S("p")}}
		rdEqual(t, "forward order (ranks)", rdStr(rdItems(rdQueryAll(t, c, in)), "r"), want)
		rdCheckQueryPaging(t, c, in, "r", want)
		in.ScanIndexForward = aws.Bool(false)
		rdEqual(t, "reverse order (ranks)", rdStr(rdItems(rdQueryAll(t, c, in)), "r"), rdReverse(want))
		rdCheckQueryPaging(t, c, in, "r", rdReverse(want))

		rank := func(cond string, vals Item) []string {
			vals[":p"] = S("p")
			return rdStr(rdItems(rdQueryAll(t, c, dynamodb.QueryInput{TableName: aws.String(table),
				KeyConditionExpression: aws.String("pk = :p AND " + cond), ExpressionAttributeValues: vals})), "r")
		}
		rdEqual(t, "sk < -5", rank("sk < :v", Item{":v": N("-5")}), want[:10])
		rdEqual(t, "sk <= -5", rank("sk <= :v", Item{":v": N("-5.000")}), want[:11])
		rdEqual(t, "sk > 10", rank("sk > :v", Item{":v": N("1E1")}), want[28:])
		rdEqual(t, "sk >= 10", rank("sk >= :v", Item{":v": N("10")}), want[27:])
		rdEqual(t, "sk BETWEEN -1 AND 1", rank("sk BETWEEN :a AND :b", Item{":a": N("-1"), ":b": N("1")}), want[11:23])
		rdEqual(t, "sk = 1.5", rank("sk = :v", Item{":v": N("1.5")}), []string{"24"})
		rdEqual(t, "sk = 0", rank("sk = :v", Item{":v": N("-0")}), []string{"15"})
	})
}

// TestQueryOrderBinary checks that B sort keys order as unsigned bytes.
func TestQueryOrderBinary(t *testing.T) {
	t.Parallel()
	ordered := [][]byte{{0x00}, {0x00, 0x00}, {0x00, 0x01}, {0x01}, {0x09}, {0x10}, {0x41}, {0x61}, {0x7f}, {0x7f, 0xff}, {0x80}, {0x80, 0x00}, {0x81}, {0xc3, 0xa9}, {0xfe}, {0xff}, {0xff, 0x00}, {0xff, 0xff}}
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createRangeTable(t, c, "q_ordb", "B")
		for i := range ordered {
			j := (i * 5) % len(ordered)
			put(t, c, table, Item{"pk": S("p"), "sk": B(ordered[j]), "r": N(strconv.Itoa(j))})
		}
		want := make([]string, len(ordered))
		for i := range ordered {
			want[i] = strconv.Itoa(i)
		}
		in := dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: Item{":p": S("p")}}
		got := rdItems(rdQueryAll(t, c, in))
		rdEqual(t, "forward order (ranks)", rdStr(got, "r"), want)
		for i, it := range got {
			if b, ok := it["sk"].(*types.AttributeValueMemberB); ok && i < len(ordered) && !bytes.Equal(b.Value, ordered[i]) {
				t.Errorf("item %d sk = %x, want %x", i, b.Value, ordered[i])
			}
		}
		rdCheckQueryPaging(t, c, in, "r", want)
		in.ScanIndexForward = aws.Bool(false)
		rdCheckQueryPaging(t, c, in, "r", rdReverse(want))

		q := dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p AND begins_with(sk, :pre)"),
			ExpressionAttributeValues: Item{":p": S("p"), ":pre": B([]byte{0x7f})}}
		rdEqual(t, "begins_with 0x7f", rdStr(rdItems(rdQueryAll(t, c, q)), "r"), []string{"8", "9"})
		q = dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p AND sk >= :v"),
			ExpressionAttributeValues: Item{":p": S("p"), ":v": B([]byte{0x80})}}
		rdEqual(t, "sk >= 0x80", rdStr(rdItems(rdQueryAll(t, c, q)), "r"), want[10:])
	})
}

// TestQueryPagingWithCondition pages through a key-condition range.
func TestQueryPagingWithCondition(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createRangeTable(t, c, "q_page", "N")
		for i := 0; i < 20; i++ {
			put(t, c, table, Item{"pk": S("p"), "sk": N(strconv.Itoa(i)), "r": N(strconv.Itoa(i))})
			put(t, c, table, Item{"pk": S("q"), "sk": N(strconv.Itoa(i)), "r": N("-1")})
		}
		in := dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p AND sk BETWEEN :a AND :b"),
			ExpressionAttributeValues: Item{":p": S("p"), ":a": N("5"), ":b": N("14")}}
		var want []string
		for i := 5; i <= 14; i++ {
			want = append(want, strconv.Itoa(i))
		}
		rdCheckQueryPaging(t, c, in, "r", want)
		in.ScanIndexForward = aws.Bool(false)
		rdCheckQueryPaging(t, c, in, "r", rdReverse(want))

		// LastEvaluatedKey is the key of the last item returned.
		out, err := c.Query(harness.Ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: Item{":p": S("p")}, Limit: aws.Int32(3)})
		must(t, err)
		assertItem(t, "LastEvaluatedKey", out.LastEvaluatedKey, Item{"pk": S("p"), "sk": N("2")})

		// An ExclusiveStartKey that is not an existing item still positions the read.
		out, err = c.Query(harness.Ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: Item{":p": S("p")}, ExclusiveStartKey: Item{"pk": S("p"), "sk": N("16.5")}})
		must(t, err)
		rdEqual(t, "after 16.5", rdStr(out.Items, "r"), []string{"17", "18", "19"})
		out, err = c.Query(harness.Ctx(t), &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"),
			ExpressionAttributeValues: Item{":p": S("p")}, ExclusiveStartKey: Item{"pk": S("p"), "sk": N("2.5")}, ScanIndexForward: aws.Bool(false)})
		must(t, err)
		rdEqual(t, "before 2.5 reverse", rdStr(out.Items, "r"), []string{"2", "1", "0"})
	})
}

// TestQueryFilterProjectionSelect covers FilterExpression (Count vs
// ScannedCount, Limit applied before the filter), ProjectionExpression and
// Select COUNT.
func TestQueryFilterProjectionSelect(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createRangeTable(t, c, "q_filt", "N")
		for i := 0; i < 10; i++ {
			put(t, c, table, Item{"pk": S("p"), "sk": N(strconv.Itoa(i)), "even": BOOL(i%2 == 0), "n": N(strconv.Itoa(i * 10)),
				"m": M(Item{"a": S("x"), "b": L(N("1"), N("2"))}), "other": S("o")})
		}
		base := dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p"),
			FilterExpression: aws.String("even = :t"), ExpressionAttributeValues: Item{":p": S("p"), ":t": BOOL(true)}}
		out, err := c.Query(ctx, &base)
		must(t, err)
		if out.Count != 5 || out.ScannedCount != 10 || len(out.Items) != 5 {
			t.Errorf("filter: Count/ScannedCount/items = %d/%d/%d, want 5/10/5", out.Count, out.ScannedCount, len(out.Items))
		}
		rdEqual(t, "filtered sks", rdStr(out.Items, "sk"), []string{"0", "2", "4", "6", "8"})

		// Limit bounds the items read, before filtering.
		q := base
		q.Limit = aws.Int32(3)
		out, err = c.Query(ctx, &q)
		must(t, err)
		if out.Count != 2 || out.ScannedCount != 3 {
			t.Errorf("filter+Limit 3: Count/ScannedCount = %d/%d, want 2/3", out.Count, out.ScannedCount)
		}
		assertItem(t, "filter+Limit 3 LastEvaluatedKey", out.LastEvaluatedKey, Item{"pk": S("p"), "sk": N("2")})
		// A page whose items are all filtered out still has a LastEvaluatedKey.
		q.Limit = aws.Int32(1)
		q.ExclusiveStartKey = Item{"pk": S("p"), "sk": N("0")}
		out, err = c.Query(ctx, &q)
		must(t, err)
		if out.Count != 0 || out.ScannedCount != 1 || len(out.Items) != 0 {
			t.Errorf("filtered-out page: Count/ScannedCount/items = %d/%d/%d, want 0/1/0", out.Count, out.ScannedCount, len(out.Items))
		}
		assertItem(t, "filtered-out page LastEvaluatedKey", out.LastEvaluatedKey, Item{"pk": S("p"), "sk": N("1")})
		// Paging with a filter at every limit gives the filtered sequence.
		for limit := 1; limit <= 11; limit++ {
			q := base
			q.Limit = aws.Int32(int32(limit))
			pages := rdQueryAll(t, c, q)
			rdEqual(t, fmt.Sprintf("filtered paging Limit %d", limit), rdStr(rdItems(pages), "sk"), []string{"0", "2", "4", "6", "8"})
			scanned := 0
			for _, p := range pages {
				scanned += int(p.scanned)
			}
			if scanned != 10 {
				t.Errorf("filtered paging Limit %d: total ScannedCount %d, want 10", limit, scanned)
			}
		}

		// ProjectionExpression returns only the named attributes (keys are not added).
		out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p AND sk = :s"),
			ExpressionAttributeValues: Item{":p": S("p"), ":s": N("3")}, ProjectionExpression: aws.String("n, m.a, #b[1], nope"),
			ExpressionAttributeNames: map[string]string{"#b": "b"}})
		must(t, err)
		if len(out.Items) != 1 {
			t.Fatalf("projection query returned %d items", len(out.Items))
		}
		// "#b[1]" names a top-level attribute b, which does not exist.
		assertItem(t, "projected item", out.Items[0], Item{"n": N("30"), "m": M(Item{"a": S("x")})})
		out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p AND sk = :s"),
			ExpressionAttributeValues: Item{":p": S("p"), ":s": N("3")}, ProjectionExpression: aws.String("sk, m.b[1]"), Select: types.SelectSpecificAttributes})
		must(t, err)
		if len(out.Items) == 1 {
			assertItem(t, "SPECIFIC_ATTRIBUTES item", out.Items[0], Item{"sk": N("3"), "m": M(Item{"b": L(N("2"))})})
		} else {
			t.Errorf("SPECIFIC_ATTRIBUTES query returned %d items", len(out.Items))
		}

		// Select COUNT: a count and no Items.
		out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p AND sk >= :s"),
			ExpressionAttributeValues: Item{":p": S("p"), ":s": N("4")}, Select: types.SelectCount})
		must(t, err)
		if out.Count != 6 || out.ScannedCount != 6 || out.Items != nil {
			t.Errorf("Select COUNT: Count/ScannedCount = %d/%d items %v, want 6/6 and no Items", out.Count, out.ScannedCount, out.Items)
		}
		q = base
		q.Select = types.SelectCount
		out, err = c.Query(ctx, &q)
		must(t, err)
		if out.Count != 5 || out.ScannedCount != 10 || out.Items != nil {
			t.Errorf("Select COUNT with filter: Count/ScannedCount = %d/%d items %v, want 5/10 and no Items", out.Count, out.ScannedCount, out.Items)
		}
		// The raw body has no Items member at all.
		_, body := rawCall(t, s, "Query", fmt.Sprintf(`{"TableName":%q,"KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p"}},"Select":"COUNT"}`, table))
		if bytes.Contains(body, []byte(`"Items"`)) {
			t.Errorf("Select COUNT response has Items: %s", body)
		}
		// Select ALL_ATTRIBUTES is the default on a table.
		out, err = c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(table), KeyConditionExpression: aws.String("pk = :p AND sk = :s"),
			ExpressionAttributeValues: Item{":p": S("p"), ":s": N("1")}, Select: types.SelectAllAttributes})
		must(t, err)
		if len(out.Items) != 1 || rdAttrNames(out.Items[0]) != "[even m n other pk sk]" {
			t.Errorf("ALL_ATTRIBUTES items = %s", show(out.Items))
		}
	})
}

func TestQueryErrors(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createRangeTable(t, c, "q_err", "S")
		put(t, c, table, Item{"pk": S("p"), "sk": S("a")})
		q := func(in dynamodb.QueryInput) error {
			in.TableName = aws.String(table)
			_, err := c.Query(ctx, &in)
			return err
		}
		pv := Item{":p": S("p")}
		t.Run("missing partition key condition", func(t *testing.T) {
			err := q(dynamodb.QueryInput{KeyConditionExpression: aws.String("sk = :s"), ExpressionAttributeValues: Item{":s": S("a")}})
			expectValidation(t, err, "Query condition missed key schema element: pk")
		})
		t.Run("no key condition", func(t *testing.T) {
			err := q(dynamodb.QueryInput{})
			expectValidation(t, err, "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.")
		})
		t.Run("COUNT with projection", func(t *testing.T) {
			err := q(dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: pv, Select: types.SelectCount, ProjectionExpression: aws.String("sk")})
			expectValidation(t, err, "1 validation error detected: Cannot specify the ProjectionExpression when choosing to get only the Count")
		})
		t.Run("SPECIFIC_ATTRIBUTES without projection", func(t *testing.T) {
			err := q(dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: pv, Select: types.SelectSpecificAttributes})
			expectValidation(t, err, "1 validation error detected: Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
		})
		t.Run("ALL_PROJECTED_ATTRIBUTES without index", func(t *testing.T) {
			err := q(dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: pv, Select: types.SelectAllProjectedAttributes})
			expectValidation(t, err, "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
		})
		t.Run("unknown index", func(t *testing.T) {
			err := q(dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: pv, IndexName: aws.String("nosuch")})
			expectValidation(t, err, "The table does not have the specified index: nosuch")
		})
		t.Run("missing table", func(t *testing.T) {
			_, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String(harness.TableName("q_missing")), KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: pv})
			expectNotFound(t, err)
		})
		t.Run("partition key with a range operator", func(t *testing.T) {
			err := q(dynamodb.QueryInput{KeyConditionExpression: aws.String("pk > :p"), ExpressionAttributeValues: pv})
			expectValidation(t, err, "Query key condition not supported")
		})
		t.Run("BETWEEN bounds reversed", func(t *testing.T) {
			err := q(dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p AND sk BETWEEN :b AND :a"), ExpressionAttributeValues: Item{":p": S("p"), ":a": S("a"), ":b": S("b")}})
			expectValidation(t, err, "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}")
		})
		t.Run("start key of the wrong shape", func(t *testing.T) {
			err := q(dynamodb.QueryInput{KeyConditionExpression: aws.String("pk = :p"), ExpressionAttributeValues: pv, ExclusiveStartKey: Item{"pk": S("p")}})
			expectValidation(t, err, "The provided starting key is invalid: The provided key element does not match the schema")
		})
		t.Run("Limit 0", func(t *testing.T) {
			// The service's newer text (issue 18): no value, the member's
			// own name; Scan keeps the older form.
			expectRawValidation(t, s, "Query", fmt.Sprintf(`{"TableName":%q,"KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p"}},"Limit":0}`, table),
				"1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
			expectRawValidation(t, s, "Query", fmt.Sprintf(`{"TableName":%q,"KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"p"}},"Limit":-5}`, table),
				"1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
			expectRawValidation(t, s, "Scan", fmt.Sprintf(`{"TableName":%q,"Limit":0}`, table),
				"1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
		})
	})
}
