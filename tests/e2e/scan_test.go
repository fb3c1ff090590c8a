package e2e

import (
	"fmt"
	"sort"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// scKeyOf renders an item's table key (pk, and sk when present) as one string.
func scKeyOf(it Item) string {
	k := rdStr([]Item{it}, "pk")[0]
	if _, ok := it["sk"]; ok {
		k += "|" + rdStr([]Item{it}, "sk")[0]
	}
	return k
}

// scCheckExactlyOnce asserts the items are exactly the want keys, each once.
func scCheckExactlyOnce(t *testing.T, what string, items []Item, want []string) {
	t.Helper()
	seen := map[string]int{}
	for _, it := range items {
		seen[scKeyOf(it)]++
	}
	var dups, missing, extra []string
	wantSet := map[string]bool{}
	for _, k := range want {
		wantSet[k] = true
		if seen[k] == 0 {
			missing = append(missing, k)
		}
	}
	for k, n := range seen {
		if n > 1 {
			dups = append(dups, fmt.Sprintf("%s x%d", k, n))
		}
		if !wantSet[k] {
			extra = append(extra, k)
		}
	}
	if len(dups)+len(missing)+len(extra) > 0 {
		sort.Strings(dups)
		sort.Strings(missing)
		sort.Strings(extra)
		t.Errorf("%s: %d items; duplicates %q, missing %q, unexpected %q", what, len(items), dups, missing, extra)
	}
}

// scFill writes n items to a pk/sk table: 7 partitions of varying sizes.
func scFill(t *testing.T, c *dynamodb.Client, table string, n int) []string {
	t.Helper()
	var keys []string
	for i := 0; i < n; i++ {
		pk := fmt.Sprintf("p%d", i%7)
		sk := strconv.Itoa(i)
		put(t, c, table, Item{"pk": S(pk), "sk": N(sk), "even": BOOL(i%2 == 0), "i": N(sk), "pad": S("x")})
		keys = append(keys, pk+"|"+sk)
	}
	return keys
}

func TestScanFullAndPaging(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createRangeTable(t, c, "sc_full", "N")
		keys := scFill(t, c, table, 60)
		pages := rdScanAll(t, c, dynamodb.ScanInput{TableName: aws.String(table)})
		all := rdItems(pages)
		scCheckExactlyOnce(t, "full scan", all, keys)
		if len(pages) != 1 || pages[0].count != 60 || pages[0].scanned != 60 {
			t.Errorf("full scan: %d pages, first Count/ScannedCount %d/%d; want 1 page of 60/60", len(pages), pages[0].count, pages[0].scanned)
		}
		// Items of one partition come out together, in sort-key order.
		order := map[string][]int{}
		var partitions []string
		for _, it := range all {
			pk := rdStr([]Item{it}, "pk")[0]
			if len(order[pk]) == 0 {
				partitions = append(partitions, pk)
			}
			n, _ := strconv.Atoi(rdStr([]Item{it}, "sk")[0])
			order[pk] = append(order[pk], n)
		}
		if len(partitions) != 7 {
			t.Errorf("partitions are interleaved in the scan: order of first appearance %q", partitions)
		}
		for pk, sks := range order {
			if !sort.IntsAreSorted(sks) {
				t.Errorf("partition %s scanned out of sort-key order: %v", pk, sks)
			}
		}

		fullOrder := make([]string, len(all))
		for i, it := range all {
			fullOrder[i] = scKeyOf(it)
		}
		for _, limit := range []int{1, 2, 3, 5, 7, 13, 59, 60, 61, 100} {
			pages := rdScanAll(t, c, dynamodb.ScanInput{TableName: aws.String(table), Limit: aws.Int32(int32(limit))})
			items := rdItems(pages)
			scCheckExactlyOnce(t, fmt.Sprintf("Limit %d", limit), items, keys)
			got := make([]string, len(items))
			for i, it := range items {
				got[i] = scKeyOf(it)
			}
			rdEqual(t, fmt.Sprintf("Limit %d order equals unpaged order", limit), got, fullOrder)
			for i, p := range pages {
				if i < len(pages)-1 && len(p.items) != limit {
					t.Errorf("Limit %d: page %d has %d items", limit, i, len(p.items))
				}
			}
		}

		// Filter: Count counts matches, ScannedCount counts items read.
		out, err := c.Scan(harness.Ctx(t), &dynamodb.ScanInput{TableName: aws.String(table), FilterExpression: aws.String("even = :t AND i < :ten"),
			ExpressionAttributeValues: Item{":t": BOOL(true), ":ten": N("10")}})
		must(t, err)
		if out.Count != 5 || out.ScannedCount != 60 || len(out.Items) != 5 {
			t.Errorf("filtered scan Count/ScannedCount/items = %d/%d/%d, want 5/60/5", out.Count, out.ScannedCount, len(out.Items))
		}
		scCheckExactlyOnce(t, "filtered scan", out.Items, []string{"p0|0", "p2|2", "p4|4", "p6|6", "p1|8"})
		// Filter with paging: matches found once each, ScannedCount adds up.
		for _, limit := range []int{1, 4, 9} {
			pages := rdScanAll(t, c, dynamodb.ScanInput{TableName: aws.String(table), FilterExpression: aws.String("even = :t"),
				ExpressionAttributeValues: Item{":t": BOOL(true)}, Limit: aws.Int32(int32(limit))})
			scanned := 0
			for _, p := range pages {
				scanned += int(p.scanned)
				if int(p.count) != len(p.items) {
					t.Errorf("filtered Limit %d: Count %d with %d items", limit, p.count, len(p.items))
				}
			}
			if scanned != 60 {
				t.Errorf("filtered Limit %d: total ScannedCount %d, want 60", limit, scanned)
			}
			var evens []string
			for i := 0; i < 60; i += 2 {
				evens = append(evens, fmt.Sprintf("p%d|%d", i%7, i))
			}
			scCheckExactlyOnce(t, fmt.Sprintf("filtered Limit %d", limit), rdItems(pages), evens)
		}
		// Select COUNT and projection.
		out, err = c.Scan(harness.Ctx(t), &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount,
			FilterExpression: aws.String("i >= :v"), ExpressionAttributeValues: Item{":v": N("50")}})
		must(t, err)
		if out.Count != 10 || out.ScannedCount != 60 || out.Items != nil {
			t.Errorf("Scan COUNT: Count/ScannedCount %d/%d items %v, want 10/60 and no Items", out.Count, out.ScannedCount, out.Items)
		}
		out, err = c.Scan(harness.Ctx(t), &dynamodb.ScanInput{TableName: aws.String(table), ProjectionExpression: aws.String("i"), Limit: aws.Int32(3)})
		must(t, err)
		for _, it := range out.Items {
			if rdAttrNames(it) != "[i]" {
				t.Errorf("projected scan item %s", show(canonItem(it)))
			}
		}
		if len(out.Items) != 3 || len(out.LastEvaluatedKey) != 2 {
			t.Errorf("projected scan: %d items, LastEvaluatedKey %s", len(out.Items), show(canonItem(out.LastEvaluatedKey)))
		}
	})
}

func TestScanParallel(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		table := createRangeTable(t, c, "sc_par", "N")
		keys := scFill(t, c, table, 80)
		// A hash-only table too: every item is its own partition.
		htable := createHashTable(t, c, "sc_parh")
		var hkeys []string
		for i := 0; i < 80; i++ {
			k := fmt.Sprintf("k%03d", i)
			put(t, c, htable, Item{"pk": S(k)})
			hkeys = append(hkeys, k)
		}
		for _, tc := range []struct {
			table string
			keys  []string
		}{{table, keys}, {htable, hkeys}} {
			for _, total := range []int32{1, 2, 3, 8, 100} {
				for _, limit := range []int32{0, 3} {
					var all []Item
					nonEmpty := 0
					for seg := int32(0); seg < total; seg++ {
						in := dynamodb.ScanInput{TableName: aws.String(tc.table), Segment: aws.Int32(seg), TotalSegments: aws.Int32(total)}
						if limit > 0 {
							in.Limit = aws.Int32(limit)
						}
						items := rdItems(rdScanAll(t, c, in))
						if len(items) > 0 {
							nonEmpty++
						}
						all = append(all, items...)
					}
					scCheckExactlyOnce(t, fmt.Sprintf("%s TotalSegments %d Limit %d", tc.table, total, limit), all, tc.keys)
					// Seven (or more) partition keys all hashing into one of eight
					// segments has probability 8^-6 with a well-mixed hash.
					if total == 8 && nonEmpty < 2 {
						t.Errorf("%s TotalSegments %d: only %d segments returned items; the split does nothing", tc.table, total, nonEmpty)
					}
				}
			}
		}
		// A partition (all items of one pk) lands in one segment.
		for seg := int32(0); seg < 3; seg++ {
			items := rdItems(rdScanAll(t, c, dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(seg), TotalSegments: aws.Int32(3)}))
			counts := map[string]int{}
			for _, it := range items {
				counts[rdStr([]Item{it}, "pk")[0]]++
			}
			for pk, n := range counts {
				want := 80 / 7
				if pk < fmt.Sprintf("p%d", 80%7) {
					want++
				}
				if n != want {
					t.Errorf("segment %d has %d of the %d items of partition %s", seg, n, want, pk)
				}
			}
		}
	})
}

func TestScanErrors(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		table := createHashTable(t, c, "sc_err")
		sc := func(in dynamodb.ScanInput) error {
			in.TableName = aws.String(table)
			_, err := c.Scan(ctx, &in)
			return err
		}
		expectValidation(t, sc(dynamodb.ScanInput{Segment: aws.Int32(0)}),
			"The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
		expectValidation(t, sc(dynamodb.ScanInput{TotalSegments: aws.Int32(2)}),
			"The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
		expectValidation(t, sc(dynamodb.ScanInput{Segment: aws.Int32(3), TotalSegments: aws.Int32(3)}),
			"The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 3 is not less than TotalSegments: 3")
		expectValidation(t, sc(dynamodb.ScanInput{Segment: aws.Int32(9), TotalSegments: aws.Int32(1)}),
			"The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 9 is not less than TotalSegments: 1")
		expectRawValidation(t, s, "Scan", fmt.Sprintf(`{"TableName":%q,"Segment":0,"TotalSegments":0}`, table),
			"1 validation error detected: Value '0' at 'totalSegments' failed to satisfy constraint: Member must have value greater than or equal to 1")
		expectRawValidation(t, s, "Scan", fmt.Sprintf(`{"TableName":%q,"Segment":0,"TotalSegments":1000001}`, table),
			"1 validation error detected: Value '1000001' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000")
		expectRawValidation(t, s, "Scan", fmt.Sprintf(`{"TableName":%q,"Segment":-1,"TotalSegments":2}`, table),
			"1 validation error detected: Value '-1' at 'segment' failed to satisfy constraint: Member must have value greater than or equal to 0")
		expectValidation(t, sc(dynamodb.ScanInput{Select: types.SelectCount, ProjectionExpression: aws.String("pk")}),
			"Cannot specify the ProjectionExpression when choosing to get only the Count")
		expectValidation(t, sc(dynamodb.ScanInput{Select: types.SelectSpecificAttributes}),
			"Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
		expectValidation(t, sc(dynamodb.ScanInput{IndexName: aws.String("nosuch")}), "The table does not have the specified index: nosuch")
		_, err := c.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(harness.TableName("sc_missing"))})
		expectNotFound(t, err)
		// The largest segment is fine.
		must(t, sc(dynamodb.ScanInput{Segment: aws.Int32(999999), TotalSegments: aws.Int32(1000000)}))
	})
}
