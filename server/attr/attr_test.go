package attr

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"
)

func TestParseNumber(t *testing.T) {
	cases := map[string]string{
		"1": "1", "1.0": "1", "-0": "0", "+5": "5", "1e2": "100", ".5": "0.5", "5.": "5",
		"0.00100": "0.001", "-1.5E-3": "-0.0015", "1e-130": "0." + string(bytes.Repeat([]byte("0"), 129)) + "1",
	}
	for in, want := range cases {
		got, err := ParseNumber(in)
		if err != nil || got != want {
			t.Errorf("ParseNumber(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":      MsgNotNumeric,
		"b":     MsgNotNumeric + ": b",
		"1e126": MsgNumberOverflow, "-1e126": MsgNumberOverflow,
		"1e-131": MsgNumberUnderflow,
		"123456789012345678901234567890123456789": MsgNumberPrecision,
	}
	for in, want := range bad {
		_, err := ParseNumber(in)
		if err == nil || err.Msg != want {
			t.Errorf("ParseNumber(%q) error = %v; want %q", in, err, want)
		}
	}
}

func TestNumberKeyOrder(t *testing.T) {
	nums := []string{"-1e125", "-100", "-10", "-9.5", "-1", "-0.001", "0", "1e-130", "0.001", "1", "1.5", "9", "10", "11", "100", "9.9999999999999999999999999999999999999e125"}
	for i := 1; i < len(nums); i++ {
		a, _ := ParseNumber(nums[i-1])
		b, _ := ParseNumber(nums[i])
		if CompareNumbers(a, b) >= 0 {
			t.Errorf("CompareNumbers(%s, %s) >= 0", a, b)
		}
		if bytes.Compare(NumberKey(a), NumberKey(b)) >= 0 {
			t.Errorf("NumberKey(%s) >= NumberKey(%s)", a, b)
		}
		if got := NumberFromKey(NumberKey(b)); got != b {
			t.Errorf("NumberFromKey round trip %s -> %s", b, got)
		}
	}
	shuffled := append([]string(nil), nums...)
	sort.Slice(shuffled, func(i, j int) bool {
		return bytes.Compare(NumberKey(mustNum(shuffled[i])), NumberKey(mustNum(shuffled[j]))) < 0
	})
	for i := range nums {
		if mustNum(shuffled[i]) != mustNum(nums[i]) {
			t.Fatalf("sorted order differs at %d", i)
		}
	}
}

func mustNum(s string) string { c, _ := ParseNumber(s); return c }

func TestAddNumbers(t *testing.T) {
	got, err := AddNumbers("0.1", "0.2", false)
	if err != nil || got != "0.3" {
		t.Fatalf("0.1+0.2 = %s %v", got, err)
	}
	got, _ = AddNumbers("5", "7.5", true)
	if got != "-2.5" {
		t.Fatalf("5-7.5 = %s", got)
	}
	if _, err := AddNumbers("9.9999999999999999999999999999999999999e125", "9e125", false); err == nil || err.Msg != MsgNumberOverflow {
		t.Fatalf("overflow not refused: %v", err)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	in := `{"a":{"S":"x\"y"},"b":{"N":"1.50"},"c":{"B":"AAE="},"d":{"BOOL":false},"e":{"NULL":true},"f":{"M":{"g":{"L":[{"SS":["p","q"]},{"NS":["1","2"]},{"BS":["AQ=="]}]}}}}`
	var it Item
	if err := json.Unmarshal([]byte(in), &it); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(it)
	want := `{"a":{"S":"x\"y"},"b":{"N":"1.5"},"c":{"B":"AAE="},"d":{"BOOL":false},"e":{"NULL":true},"f":{"M":{"g":{"L":[{"SS":["p","q"]},{"NS":["1","2"]},{"BS":["AQ=="]}]}}}}`
	if string(out) != want {
		t.Fatalf("got %s\nwant %s", out, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := map[string]string{
		`{}`:                     MsgEmptyValue,
		`{"S":"a","N":"1"}`:      MsgMultipleTypes,
		`{"NULL":false}`:         MsgNullNotTrue,
		`{"SS":[]}`:              MsgEmptySS,
		`{"NS":[]}`:              MsgEmptyNS,
		`{"BS":[]}`:              MsgEmptyBS,
		`{"SS":["a","a"]}`:       "One or more parameter values were invalid: Input collection [a, a] contains duplicates.",
		`{"BS":["Yg==","Yg=="]}`: "One or more parameter values were invalid: Input collection [Yg==, Yg==]of type BS contains duplicates.",
		`{"NS":["1","1.0"]}`:     MsgNSDuplicates,
		`{"N":"x"}`:              MsgNotNumeric + ": x",
		`{"M":{"a":{}}}`:         MsgEmptyValue,
		`{"L":[{"S":"a"},{}]}`:   MsgEmptyValue,
	}
	for in, want := range cases {
		var v Value
		err := json.Unmarshal([]byte(in), &v)
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v; want %q", in, err, want)
		}
	}
	var v Value
	if err := json.Unmarshal([]byte(`{"S":5}`), &v); err == nil || !err.(*Error).Serialization {
		t.Errorf("S:5 should be a serialization error, got %v", err)
	}
}

func TestNesting(t *testing.T) {
	deep := func(n int) string {
		s := `{"S":"x"}`
		for i := 0; i < n; i++ {
			s = `{"L":[` + s + `]}`
		}
		return s
	}
	var v Value
	if err := json.Unmarshal([]byte(deep(32)), &v); err != nil {
		t.Fatalf("32 levels refused: %v", err)
	}
	if err := json.Unmarshal([]byte(deep(33)), &v); err == nil || err.Error() != MsgNesting {
		t.Fatalf("33 levels: %v", err)
	}
}

// SortSet orders numbers by value, as CompareNumbers does, for canonical
// texts of every shape (signs, integer and fraction lengths, zero).
func TestSortSetNumbers(t *testing.T) {
	nums := []string{"0", "1", "-1", "10", "9", "-10", "-9", "0.5", "-0.5", "0.25", "-0.25", "100", "99.99", "-99.99",
		"1.5", "1.05", "-1.05", "12345678901234567890123456789012345678", "0.00000001", "-0.00000001", "2", "1E+2", "1e-3"}
	for i, n := range nums {
		c, err := ParseNumber(n)
		if err != nil {
			t.Fatal(err)
		}
		nums[i] = c
	}
	seen := map[string]bool{}
	var uniq []string
	for _, n := range nums {
		if !seen[n] {
			seen[n] = true
			uniq = append(uniq, n)
		}
	}
	for i := range uniq {
		for j := range uniq {
			want := CompareNumbers(uniq[i], uniq[j])
			if got := compareCanonical(uniq[i], uniq[j]); got != want {
				t.Errorf("compareCanonical(%s, %s) = %d, want %d", uniq[i], uniq[j], got, want)
			}
		}
	}
	v := Value{T: TypeNS, Strs: []string{"10", "9", "-1", "100", "0.5"}}
	SortSet(&v)
	if got := strings.Join(v.Strs, " "); got != "-1 0.5 9 10 100" {
		t.Errorf("NS sorted: %s", got)
	}
	s := Value{T: TypeSS, Strs: []string{"b", "a", "é", "Z", "aa"}}
	SortSet(&s)
	if got := strings.Join(s.Strs, " "); got != "Z a aa b é" {
		t.Errorf("SS sorted: %s", got)
	}
}
