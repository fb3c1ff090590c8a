package attr

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// The single-pass decoder must behave as the reference (the old decoder, in
// decode_reference_test.go) on every input: same Item or Value, same *Error.

// sameErr compares errors by value: *Error by its fields, others by type and text.
func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var ea, eb *Error
	if errors.As(a, &ea) && errors.As(b, &eb) {
		return *ea == *eb
	}
	return reflect.TypeOf(a) == reflect.TypeOf(b) && a.Error() == b.Error()
}

// asErr turns a nil *Error into a nil error.
func asErr(e *Error) error {
	if e == nil {
		return nil
	}
	return e
}

// checkSame decodes data every way the package offers and compares each
// with the reference.
func checkSame(t *testing.T, data []byte) {
	t.Helper()
	show := func() string {
		if len(data) > 300 {
			return fmt.Sprintf("%q... (%d bytes)", data[:300], len(data))
		}
		return fmt.Sprintf("%q", data)
	}

	// UnmarshalJSON called directly, with any bytes.
	gotI, gotErr := decodeItemJSON(data)
	wantI, wantErr := refDecodeItem(data, 0)
	if !sameErr(asErr(gotErr), asErr(wantErr)) || !reflect.DeepEqual(gotI, wantI) {
		t.Fatalf("(*Item).UnmarshalJSON(%s):\n got  %#v, %v\n want %#v, %v", show(), gotI, gotErr, wantI, wantErr)
	}
	gotV, gotErr := decodeValueJSON(data)
	wantV, wantErr := refDecodeValue(data, 1)
	if !sameErr(asErr(gotErr), asErr(wantErr)) || !reflect.DeepEqual(gotV, wantV) {
		t.Fatalf("(*Value).UnmarshalJSON(%s):\n got  %#v, %v\n want %#v, %v", show(), gotV, gotErr, wantV, wantErr)
	}

	// DecodeItem against json.Unmarshal into an Item.
	var ri refItem
	jerr := json.Unmarshal(data, &ri)
	it, err := DecodeItem(data)
	var se *json.SyntaxError
	if errors.As(jerr, &se) {
		if err == nil {
			t.Fatalf("DecodeItem(%s) = %#v, nil; json.Unmarshal: %v", show(), it, jerr)
		}
	} else if !sameErr(err, jerr) || !reflect.DeepEqual(it, Item(ri)) {
		t.Fatalf("DecodeItem(%s):\n got  %#v, %v\n want %#v, %v", show(), it, err, Item(ri), jerr)
	}

	// As the API decodes requests: encoding/json drives UnmarshalJSON.
	wrapped := append(append([]byte(`{"Item":`), data...), `,"Value":`...)
	wrapped = append(append(wrapped, data...), '}')
	var gotReq struct {
		Item  Item
		Value Value
	}
	var wantReq struct {
		Item  refItem
		Value refValue
	}
	gerr, werr := json.Unmarshal(wrapped, &gotReq), json.Unmarshal(wrapped, &wantReq)
	if !sameErr(gerr, werr) || !reflect.DeepEqual(gotReq.Item, Item(wantReq.Item)) || !reflect.DeepEqual(gotReq.Value, Value(wantReq.Value)) {
		t.Fatalf("json.Unmarshal(%s) in a struct:\n got  %#v, %v\n want %#v, %v", show(), gotReq, gerr, wantReq, werr)
	}
}

// nest wraps inner n times in open and close.
func nest(open, inner, close string, n int) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// trickyInputs are the cases the decoders must agree on: every rule of the
// old decoder, malformed JSON of every sort, and what the fuzzer found.
func trickyInputs() []string {
	in := []string{
		// Top level.
		``, ` `, `null`, ` null `, "\tnull\n", `nul`, `nullx`, `NULL`, `[`, `[]`, `[1,`, `[{"S":"x"}]`,
		`{`, `}`, `"x"`, `"x`, `1`, `-`, `true`, `false`, `{}`, ` {} `, "\v{}\v", "\u00a0{}", "{}\u0085",
		"\u2028{}", `{} x`, `{}{}`, "\t\n\r {}\r\n", `{}}`, `{]`, "{}\x00", "\xff{}", "{}\xff",
		"\x00", `{"S":"x"}`, ` {"S":"x"} `, `{"a":{"S":"x"}}`, `{"a":{"S":"x"}} `,

		// Item members that are not values.
		`{"a":null}`, `{"a":{}}`, `{"a":[]}`, `{"a":[{"S":"x"}]}`, `{"a":"x"}`, `{"a":1}`, `{"a":-1.5e3}`,
		`{"a":true}`, `{"a":false}`, `{"a":null,"b":{"S":"x"}}`, `{"b":{"S":"x"},"a":null}`,

		// Null members, unknown names, duplicates, several types.
		`{"S":null}`, `{"S":null,"N":"1"}`, `{"S":"x","S":null}`, `{"S":null,"S":"x"}`, `{"X":1}`,
		`{"X":1,"S":"y"}`, `{"S":"y","X":{"a":[1,2,{"b":null}]}}`, `{"X":[{]}}`, `{"s":"x"}`, `{"\u0053":"x"}`,
		`{"S":"x","N":"1"}`, `{"S":5,"N":"x"}`, `{"N":"x","S":5}`, `{"S":5,"S":"x"}`, `{"S":"x","S":5}`,
		`{"S":"x","N":"1","N":null}`, `{"N":"1","S":"x","N":null}`, `{"NULL":true,"BOOL":true}`,
		`{"S":"a","SS":["a"]}`, `{"M":{},"L":[]}`, `{"L":[],"M":{}}`, `{"BS":["AA=="],"B":"AA=="}`,
		`{"N":"x","N":"1"}`, `{"N":"1","N":"x"}`, `{"B":"x","NULL":false,"S":1}`, `{"NULL":false,"B":"x"}`,
		`{"SS":[],"NS":[],"BS":[]}`, `{"BS":[],"NS":[],"SS":[]}`, `{"S":"x","X":null}`, `{"":{"S":"x"}}`,
		`{"S":5,"S":null}`, `{"N":"x","N":null,"S":"y"}`, `{"N":"x","S":"y","N":null}`, `{"S":5,"S":null,"S":"x"}`,
		`{"M":{"a":{}},"M":{}}`, `{"L":[{}],"L":null,"BOOL":true}`, `{"NULL":false,"NULL":true}`, `{"NULL":true,"NULL":false}`,
		`{"S ":"x"}`, `{" S":"x"}`, `{"S\u0000":"x"}`, `{"BOOL":true,"BOOL":null}`, `{"SS":["a"],"SS":["b"]}`,

		// S.
		`{"S":""}`, `{"S":5}`, `{"S":-1.5e3}`, `{"S":true}`, `{"S":false}`, `{"S":[]}`, `{"S":{}}`,
		`{"S":[1]}`, `{"S":{"a":1}}`, `{"S":"x\"y"}`, `{"S":"\\\/\b\f\n\r\t"}`, `{"S":"\u00e9\u4e2d"}`,
		`{"S":"é中😀"}`, `{"S":"\ud83d\ude00"}`, `{"S":"\uD83D\uDE00"}`, `{"S":"\ud800"}`, `{"S":"\udc00"}`,
		`{"S":"\ud800\ud800"}`, `{"S":"\ud800x"}`, `{"S":"\ud800\u0041"}`, `{"S":"\uDBFF\uDFFF"}`,
		`{"S":"\udc00\ud800"}`, `{"S":"\ud800\udc00\udc00"}`, `{"S":"\ud800\\"}`, `{"S":"\ud800\u"}`,
		`{"S":"\u0000"}`, `{"S":"\u001f\u007f"}`, `{"S":"\x"}`, `{"S":"\'"}`, `{"S":"\u12"}`,
		`{"S":"\u12g4"}`, `{"S":"\U0041"}`, `{"S":"\`, `{"S":"\u`, `{"S":"\u00`, `{"S":"a`, `{"S":"` + "\x01" + `"}`,
		"{\"S\":\"\x7f\"}", "{\"S\":\"\xff\"}", "{\"S\":\"a\xffb\"}", "{\"S\":\"\xc0\x80\"}",
		"{\"S\":\"\xed\xa0\x80\"}", "{\"S\":\"\xe2\x82\"}", "{\"S\":\"\xe2\x82\xac\"}", "{\"S\":\"\u2028\u2029\"}",
		"{\"S\":\"\xf4\x90\x80\x80\"}", "{\"S\":\"\xff\\n\"}", "{\"\xff\":{\"S\":\"x\"}}", "{\"a\xff\":{\"S\":\"x\"},\"a\xfe\":{\"S\":\"y\"}}",
		"{\"S\":\"\t\"}", "{\"S\":\"\n\"}",

		// N.
		`{"N":"1"}`, `{"N":""}`, `{"N":" 1"}`, `{"N":"1 "}`, `{"N":"+1"}`, `{"N":"-0"}`, `{"N":"0"}`, `{"N":"-"}`,
		`{"N":"0.0"}`, `{"N":"00"}`, `{"N":"007"}`, `{"N":"0.000"}`, `{"N":"1e126"}`, `{"N":"-1e126"}`,
		`{"N":"1e-131"}`, `{"N":"1e-130"}`, `{"N":"1e125"}`, `{"N":"9.9999999999999999999999999999999999999e125"}`,
		`{"N":"12345678901234567890123456789012345678"}`, `{"N":"123456789012345678901234567890123456789"}`,
		`{"N":"1234567890123456789012345678901234567.8"}`, `{"N":"1234567890123456789012345678901234567.89"}`,
		`{"N":"0.12345678901234567890123456789012345678"}`, `{"N":"0.123456789012345678901234567890123456789"}`,
		`{"N":"-0.5"}`, `{"N":"-0.50"}`, `{"N":"0.05"}`, `{"N":"12.5"}`, `{"N":"10.5"}`, `{"N":"100"}`,
		`{"N":"1.0"}`, `{"N":"1."}`, `{"N":".5"}`, `{"N":"-.5"}`, `{"N":"--1"}`, `{"N":"1e"}`, `{"N":"1e+"}`,
		`{"N":"1E5"}`, `{"N":"1e5"}`, `{"N":"0x10"}`, `{"N":"1_0"}`, `{"N":"١"}`, `{"N":"\u0031"}`, `{"N":"NaN"}`,
		`{"N":"Infinity"}`, `{"N":5}`, `{"N":true}`, `{"N":[]}`, `{"N":{}}`, `{"N":"1e99999999999999999999"}`,
		`{"N":"0e99999999999999999999"}`, `{"N":"1.2.3"}`, `{"N":"1e1e1"}`, `{"N":"-0.0"}`, `{"N":"0.10"}`,
		`{"N":"` + strings.Repeat("0", 200) + `1"}`, `{"N":"0.` + strings.Repeat("0", 129) + `1"}`,
		`{"N":"0.` + strings.Repeat("0", 130) + `1"}`, `{"N":"1` + strings.Repeat("0", 125) + `"}`,
		`{"N":"1` + strings.Repeat("0", 126) + `"}`,

		// B.
		`{"B":""}`, `{"B":"AAE="}`, `{"B":"AAE"}`, `{"B":"AA=="}`, `{"B":"A==="}`, `{"B":"YQ\n=="}`,
		`{"B":"YQ\r\n=="}`, `{"B":"Y Q=="}`, `{"B":"____"}`, `{"B":"YQ==YQ=="}`, `{"B":"\u00e9"}`, `{"B":"\ud800"}`,
		`{"B":5}`, `{"B":true}`, `{"B":false}`, `{"B":[]}`, `{"B":{}}`, `{"B":"YWJj"}`, `{"B":"YWJjZA"}`,
		`{"B":"=="}`, `{"B":"\n"}`,

		// BOOL and NULL.
		`{"BOOL":true}`, `{"BOOL":false}`, `{"BOOL":"true"}`, `{"BOOL":"yes"}`, `{"BOOL":"\u00e9x"}`,
		`{"BOOL":"ß"}`, `{"BOOL":""}`, `{"BOOL":1}`, `{"BOOL":0}`, `{"BOOL":[]}`, `{"BOOL":{}}`, `{"BOOL":null}`,
		`{"BOOL":tru}`, `{"BOOL":truex}`, `{"BOOL":"tRuE"}`, `{"NULL":true}`, `{"NULL":false}`, `{"NULL":"x"}`,
		`{"NULL":0}`, `{"NULL":[true]}`, `{"NULL":{"a":1}}`, `{"NULL":"\ud800"}`,

		// M.
		`{"M":{}}`, `{"M":null}`, `{"M":[]}`, `{"M":"x"}`, `{"M":1}`, `{"M":true}`, `{"M":{"b":{}}}`,
		`{"M":{"b":{"S":"x"}}}`, `{"M":{"b":null}}`, `{"M":{"b":{"S":"x"},"c":{"N":"x"}}}`, `{"M":{"a":{"M":{"b":[]}}}}`,

		// L.
		`{"L":[]}`, `{"L":[null]}`, `{"L":[1]}`, `{"L":["x"]}`, `{"L":[[]]}`, `{"L":[{}]}`, `{"L":{"a":1}}`,
		`{"L":"x"}`, `{"L":null}`, `{"L":true}`, `{"L":[{"S":"a"},{"N":"x"},{}]}`, `{"L":[{"S":"a"},{}, {"N":"x"}]}`,
		`{"L":[{"S":"a"},{"N":"1"}]}`, `{"L":[{}, [}]}`, `{"L":[{"S":"a"},]}`, `{"L":[,]}`, `{"L":[{"S":"a"} {"S":"b"}]}`,

		// SS and NS.
		`{"SS":[]}`, `{"SS":["a"]}`, `{"SS":["a","a"]}`, `{"SS":["a","b","a"]}`, `{"SS":[1]}`, `{"SS":[true]}`,
		`{"SS":[false]}`, `{"SS":[null]}`, `{"SS":[[]]}`, `{"SS":[{}]}`, `{"SS":["a",1]}`, `{"SS":{}}`, `{"SS":"x"}`,
		`{"SS":1}`, `{"SS":["\u00e9","é"]}`, `{"SS":["a","\ud800","\udc00"]}`, `{"SS":["a",1,"a"]}`, `{"SS":[""]}`,
		`{"SS":["",""]}`, `{"SS":["a","a",1]}`, `{"SS":["a", "b" , "c"]}`, `{"SS":["a",]}`, `{"SS":["a" "b"]}`,
		`{"NS":[]}`, `{"NS":["1"]}`, `{"NS":["1","1.0"]}`, `{"NS":["x"]}`, `{"NS":["1","x",1]}`, `{"NS":[1]}`,
		`{"NS":["1e126"]}`, `{"NS":["2","1"]}`, `{"NS":["1","1"]}`, `{"NS":["x","1e126"]}`, `{"NS":{}}`,
		`{"NS":["-0","0"]}`, `{"NS":["+1","1"]}`,

		// BS.
		`{"BS":[]}`, `{"BS":["AA=="]}`, `{"BS":["AA==","AA=="]}`, `{"BS":["AA==","AA"]}`, `{"BS":["AA",1]}`,
		`{"BS":[1]}`, `{"BS":["",""]}`, `{"BS":["Yg==","Yg"]}`, `{"BS":["YQ==","Y\nQ=="]}`, `{"BS":{}}`,
		`{"BS":"AA=="}`, `{"BS":[true]}`, `{"BS":[null]}`, `{"BS":[[]]}`, `{"BS":["AA==",{}]}`,

		// Several invalid attributes in an item.
		`{"a":{},"b":{"NULL":false}}`, `{"b":{"NULL":false},"a":{}}`, `{"a":{},"a":{"S":"x"}}`,
		`{"a":{"S":"x"},"a":{}}`, `{"a":{},"b":{"N":"x"},"a":{"S":"y"}}`, `{"a":{},"b":{"S":"x"},"a":{"N":"x"}}`,
		`{"a":{"N":"x"},"b":{"S":"x"},"a":{}}`, `{"a":{"S":"x"},"a":{"S":"y"}}`, `{"\u0061":{"S":"x"},"a":{"N":"x"}}`,
		`{"a":{"N":"1"},"b":{"N":"2"}}`, `{"b":{"N":"1"},"a":{"N":"2"}}`,

		// Whitespace everywhere.
		"{ \"a\" : { \"S\" : \"x\" } , \"b\" : { \"L\" : [ { \"N\" : \"1\" } , { \"NULL\" : true } ] } }",
		"{\t\"a\"\n:\r{\"SS\"\t:\n[\r\"x\"\t,\n\"y\"\r]\t}\n}",
		"{\"a\":{\"M\":{ }},\"b\":{\"L\":[ ]},\"c\":{\"SS\":[ ]}}",
		"{\"a\":{\"S\":\"x\"\v}}", "{\"a\":{\"S\":\"x\"}\u00a0}",

		// Malformed JSON in places the decoder does not decode.
		`{"X":-}`, `{"X":01}`, `{"X":1.}`, `{"X":1e}`, `{"X":-0.0e+5}`, `{"X":1E-0}`, `{"X":.5}`, `{"X":+1}`,
		`{"X":-01}`, `{"X":1.5e+}`, `{"X":0.}`, `{"X":tru}`, `{"X":nul}`, `{"X":fals}`, `{"X":truefalse}`,
		`{"X":[1,2,]}`, `{"X":{"a":1,}}`, `{"X":{"a"}}`, `{"X":{1:2}}`, `{"X":{"a":1 "b":2}}`, `{"X":[1 2]}`,
		`{"X":"\x"}`, `{"X":"\u00"}`, `{"X":"` + "\x1f" + `"}`, `{"X":[]]}`, `{"X":{}}}`, `{"X":[{}]}`,
		`{"X":[[[[]]]],"S":"x"}`, `{"X":{"a":{"b":[{"c":null}]}},"S":"x"}`, `{"X":1e5,"S":"x"}`, `{"X":-0,"S":"x"}`,
		`{"S":"x","S":[}`, `{"a":{"S":"x"},}`, `{"a":{"S":"x",}}`, `{,}`, `{"a"}`, `{"a":}`, `{"a" {"S":"x"}}`,
		`{"a":{"S":"x"}`, `{'a':{"S":"x"}}`, `{a:{"S":"x"}}`, `{"a":{"S":"x"}]`, `{"a":{}`, `{"a":[}`,
		`{"a":{},}`, `{"a":{"N":"x"},}`, `{"a":{"NULL":false}`, `{"a":{"M":{"b":{}}}`, `{"a":{"L":[{},`,
		`{"a":{"SS":["a","a"]`, `{"a":{"S":5}}x`, `{"a":null,`, `{"a":nulll}`, `{"a":{"S":"x"} "b":{}}`,
		`{"a":{"S":"x"}}}`, `{"a":{"L":[{"S":"x"}]]}}`, `{"S":"x"}}`, `{"S":"x"`, `{"S"}`, `{"S":}`, `{"S"::"x"}`,
	}

	// Nesting: the service's limit of 32 levels of M and L, and
	// encoding/json's of 10000 arrays and objects.
	deepL := func(n int) string { return nest(`{"L":[`, `{"S":"x"}`, `]}`, n) }
	deepM := func(n int) string { return nest(`{"M":{"a":`, `{"S":"x"}`, `}}`, n) }
	for _, n := range []int{31, 32, 33, 40} {
		in = append(in, deepL(n), deepM(n), `{"a":`+deepL(n-1)+`}`, `{"a":`+deepL(n)+`}`, `{"a":`+deepM(n)+`}`,
			nest(`{"L":[{"M":{"a":`, `{"S":"x"}`, `}}]}`, n/2),
			nest(`{"L":[`, `{"L":"x"}`, `]}`, n), nest(`{"L":[`, `{"M":{"b":{}}}`, `]}`, n),
			nest(`{"L":[`, `{"SS":["a","a"]}`, `]}`, n), nest(`{"L":[`, `{"S":"x","L":[]}`, `]}`, n),
			nest(`{"L":[`, `{"S":5,"M":1}`, `]}`, n))
	}
	for _, n := range []int{9997, 9998, 9999, 10000, 10001} {
		in = append(in,
			nest(`[`, ``, `]`, n), nest(`{"a":`, `1`, `}`, n),
			`{"X":`+nest(`[`, `1`, `]`, n-1)+`}`, `{"X":`+nest(`[`, `1`, `]`, n)+`}`,
			`{"a":{"X":`+nest(`[`, `1`, `]`, n-2)+`}}`, `{"a":{"X":`+nest(`{"b":`, `1`, `}`, n-2)+`}}`,
			`{"a":{"L":[{},`+nest(`[`, ``, `]`, n-3)+`]}}`, deepL(n/2), `{"a":`+deepM(n/2)+`}`,
			`{"a":{"S":5,"X":`+nest(`[`, `1`, `]`, n-2)+`}}`)
	}

	// Large sets and items (the decoder switches to maps above some size).
	var ss, ns, bs, ssDup, nsDup, bsDup []string
	for i := range 40 {
		ss = append(ss, strconv.Quote(fmt.Sprint("s", i)))
		ns = append(ns, strconv.Quote(fmt.Sprint(i)))
		bs = append(bs, strconv.Quote(base64.StdEncoding.EncodeToString([]byte{byte(i)})))
	}
	ssDup = append(append([]string(nil), ss...), ss[7])
	nsDup = append(append([]string(nil), ns...), `"7.0"`)
	bsDup = append(append([]string(nil), bs...), bs[7])
	for _, set := range []struct {
		t    string
		mems []string
	}{{"SS", ss}, {"NS", ns}, {"BS", bs}, {"SS", ssDup}, {"NS", nsDup}, {"BS", bsDup}} {
		for _, n := range []int{15, 16, 17, len(set.mems)} {
			in = append(in, `{"`+set.t+`":[`+strings.Join(set.mems[len(set.mems)-n:], ",")+`]}`)
		}
	}
	var members, errMembers []string
	for i := range 40 {
		members = append(members, fmt.Sprintf(`"k%d":{"N":"%d"}`, i, i))
		errMembers = append(errMembers, fmt.Sprintf(`"k%d":{"N":"x%d"}`, i%7, i))
	}
	in = append(in, `{`+strings.Join(members, ",")+`}`, `{`+strings.Join(errMembers, ",")+`}`,
		`{`+strings.Join(errMembers, ",")+`,"k3":{"S":"x"}}`,
		`{`+strings.Join(append(append([]string(nil), errMembers...), members...), ",")+`}`)
	in = append(in, string(benchItem()))
	return append(in, fuzzFound...)
}

// fuzzFound are inputs on which FuzzDecodeMatchesReference found the
// decoders to differ, kept once fixed. (None yet: ten minutes of fuzzing
// found no difference.)
var fuzzFound = []string{}

func TestDecodeMatchesReference(t *testing.T) {
	for _, in := range trickyInputs() {
		checkSame(t, []byte(in))
	}
}

func FuzzDecodeMatchesReference(f *testing.F) {
	for _, in := range trickyInputs() {
		if len(in) < 2000 {
			f.Add([]byte(in))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		f.Add(randItem(r, 3).AppendJSON(nil))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSame(t, data)
	})
}

// TestDecodeRoundTrip decodes what AppendJSON encodes.
func TestDecodeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		it := randItem(r, 1+i%5)
		data := it.AppendJSON(nil)
		got, err := DecodeItem(data)
		if err != nil || !reflect.DeepEqual(got, it) {
			t.Fatalf("DecodeItem(%s) = %#v, %v; want %#v", data, got, err, it)
		}
		if i%10 == 0 {
			checkSame(t, data)
		}
	}
	// The deepest value the service accepts.
	v := Str("x")
	for range maxDepth {
		if r.IntN(2) == 0 {
			v = List([]Value{v})
		} else {
			v = Map(map[string]Value{"m": v})
		}
	}
	it := Item{"a": v}
	if got, err := DecodeItem(it.AppendJSON(nil)); err != nil || !reflect.DeepEqual(got, it) {
		t.Fatalf("deepest value: %#v, %v", got, err)
	}
}

// randItem builds an item of every type, nested up to depth levels, as the
// decoder would return it (non-nil empty containers, canonical numbers).
func randItem(r *rand.Rand, depth int) Item {
	it := Item{}
	for range r.IntN(6) {
		it[randString(r)] = randValue(r, depth)
	}
	return it
}

func randValue(r *rand.Rand, depth int) Value {
	t := Type(1 + r.IntN(int(TypeBS)))
	if depth <= 0 && (t == TypeM || t == TypeL) {
		t = TypeS
	}
	switch t {
	case TypeS:
		return Str(randString(r))
	case TypeN:
		return Num(randNumber(r))
	case TypeB:
		return Bin(randBytes(r))
	case TypeBOOL:
		return Bool(r.IntN(2) == 0)
	case TypeNULL:
		return Null()
	case TypeM:
		return Map(randItem(r, depth-1))
	case TypeL:
		l := []Value{}
		for range r.IntN(4) {
			l = append(l, randValue(r, depth-1))
		}
		return List(l)
	case TypeSS, TypeNS:
		seen := map[string]bool{}
		var strs []string
		for range 1 + r.IntN(5) {
			s := randString(r)
			if t == TypeNS {
				s = randNumber(r)
			}
			if !seen[s] {
				seen[s] = true
				strs = append(strs, s)
			}
		}
		// In the order the decoder puts them (sets.go).
		if t == TypeNS {
			sort.Slice(strs, func(i, j int) bool { return CompareNumbers(strs[i], strs[j]) < 0 })
		} else {
			sort.Strings(strs)
		}
		return Value{T: t, Strs: strs}
	default:
		seen := map[string]bool{}
		var bins [][]byte
		for range 1 + r.IntN(5) {
			b := randBytes(r)
			if !seen[string(b)] {
				seen[string(b)] = true
				bins = append(bins, b)
			}
		}
		sort.Slice(bins, func(i, j int) bool { return bytes.Compare(bins[i], bins[j]) < 0 })
		return Value{T: TypeBS, Bins: bins}
	}
}

// randString is valid UTF-8 (invalid bytes would come back as U+FFFD),
// with characters that need escaping.
func randString(r *rand.Rand) string {
	const pool = "abcxyzSNBML \"\\/\b\f\n\r\t\x00\x1f\x7fé中😀\u2028\u2029\ufffd"
	runes := []rune(pool)
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteRune(runes[r.IntN(len(runes))])
	}
	return b.String()
}

func randNumber(r *rand.Rand) string {
	var s string
	switch r.IntN(4) {
	case 0:
		s = strconv.Itoa(r.IntN(1000) - 500)
	case 1:
		s = strconv.FormatFloat(r.NormFloat64()*1e6, 'f', -1, 64)
	case 2:
		s = fmt.Sprintf("%de%d", r.IntN(100000)-50000, r.IntN(200)-100)
	default:
		digits := make([]byte, 1+r.IntN(38))
		for i := range digits {
			digits[i] = byte('0' + r.IntN(10))
		}
		s = string(digits[:len(digits)/2]) + "." + string(digits[len(digits)/2:])
	}
	c, err := ParseNumber(s)
	if err != nil {
		panic(fmt.Sprint(s, err))
	}
	return c
}

func randBytes(r *rand.Rand) []byte {
	b := make([]byte, r.IntN(10))
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return b
}

// benchItem is an item of about 1 KB: some twenty attributes of every type,
// one of them a nested map with a list.
func benchItem() []byte {
	it := Item{
		"pk":        Str("user#1234567890"),
		"sk":        Str("profile#2024-01-15T10:30:00Z"),
		"name":      Str("Alice Example"),
		"email":     Str("alice@example.com"),
		"bio":       Str("Likes long walks on the beach, \"quotes\", and unicode: é中"),
		"age":       Num("42"),
		"balance":   Num("1234.56"),
		"score":     Num("-0.001"),
		"visits":    Num("1000000"),
		"active":    Bool(true),
		"verified":  Bool(false),
		"deleted":   Null(),
		"avatar":    Bin(bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 16)),
		"tags":      {T: TypeSS, Strs: []string{"admin", "beta", "early-adopter", "premium"}},
		"lucky":     {T: TypeNS, Strs: []string{"3", "7", "13", "42"}},
		"keys":      {T: TypeBS, Bins: [][]byte{[]byte("key-one"), []byte("key-two")}},
		"history":   List([]Value{Num("1"), Str("two"), Bool(true), Null(), Num("5.5")}),
		"createdAt": Str("2024-01-15T10:30:00Z"),
		"updatedAt": Str("2024-06-01T08:00:00Z"),
		"address": Map(map[string]Value{
			"street": Str("1 Main St"),
			"city":   Str("Springfield"),
			"zip":    Str("12345"),
			"geo":    Map(map[string]Value{"lat": Num("40.7128"), "lon": Num("-74.006")}),
			"lines":  List([]Value{Str("Apt 4"), Str("Floor 2")}),
		}),
	}
	return it.AppendJSON(nil)
}

func BenchmarkDecodeItem(b *testing.B) {
	data := benchItem()
	b.Logf("item: %d bytes", len(data))
	want, err := DecodeItem(data)
	if err != nil {
		b.Fatal(err)
	}
	refMapOrder = true
	b.Cleanup(func() { refMapOrder = false })
	b.Run("reference/UnmarshalJSON", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := refDecodeItem(data, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("new/UnmarshalJSON", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := decodeItemJSON(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reference/json.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var it refItem
			if err := json.Unmarshal(data, &it); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("new/DecodeItem", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			it, err := DecodeItem(data)
			if err != nil || len(it) != len(want) {
				b.Fatal(err)
			}
		}
	})
}

// A Value must stay small enough for maps to hold it inline (see Value).
func TestValueSize(t *testing.T) {
	if n := unsafe.Sizeof(Value{}); n > 128 {
		t.Fatalf("Value is %d bytes, more than 128", n)
	}
}

// TestDecodeRandomDocuments compares the decoders on documents built from
// the wire form's pieces, valid and not: type names (repeated, unknown,
// escaped), values of every JSON kind in every place, odd strings and
// numbers, whitespace, and now and then a byte of damage.
func TestDecodeRandomDocuments(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 5000
	if testing.Short() {
		n = 500
	}
	for range n {
		var b []byte
		if r.IntN(2) == 0 {
			b = genItem(r, b, 0)
		} else {
			b = genValue(r, b, 0)
		}
		if r.IntN(8) == 0 && len(b) > 0 { // damage
			i := r.IntN(len(b))
			switch r.IntN(3) {
			case 0:
				b = append(b[:i], b[i+1:]...)
			case 1:
				b[i] = ",:{}[]\"\\ n0"[r.IntN(11)]
			default:
				b = append(b[:i], append([]byte{"{}[],:\"\\"[r.IntN(8)]}, b[i:]...)...)
			}
		}
		checkSame(t, b)
	}
}

func genWS(r *rand.Rand, b []byte) []byte {
	if r.IntN(6) == 0 {
		b = append(b, " \t\n\r"[r.IntN(4)])
	}
	return b
}

func genItem(r *rand.Rand, b []byte, depth int) []byte {
	b = append(genWS(r, b), '{')
	for i := range r.IntN(4) {
		if i > 0 {
			b = append(b, ',')
		}
		b = genWS(r, b)
		b = append(b, []string{`"a"`, `"b"`, `"\u0061"`, `"c"`, `""`}[r.IntN(5)]...)
		b = append(genWS(r, b), ':')
		b = genValue(r, b, depth+1)
	}
	return append(genWS(r, b), '}')
}

var genNames = []string{`"S"`, `"N"`, `"B"`, `"BOOL"`, `"NULL"`, `"M"`, `"L"`, `"SS"`, `"NS"`, `"BS"`, `"X"`, `"\u0053"`, `"s"`}

// genValue writes an attribute value, usually with one member of a fitting
// kind, sometimes with several or an unfitting one.
func genValue(r *rand.Rand, b []byte, depth int) []byte {
	b = genWS(r, b)
	if r.IntN(20) == 0 {
		return genJSON(r, b, depth)
	}
	b = append(b, '{')
	n := 1
	switch r.IntN(6) {
	case 0:
		n = 0
	case 1:
		n = 2 + r.IntN(2)
	}
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		name := genNames[r.IntN(len(genNames))]
		b = append(append(genWS(r, b), name...), ':')
		b = genWS(r, b)
		if r.IntN(8) == 0 {
			b = genJSON(r, b, depth)
			continue
		}
		switch name {
		case `"S"`, `"\u0053"`:
			b = genString(r, b)
		case `"N"`:
			b = strconv.AppendQuote(b, genNumber(r))
		case `"B"`:
			b = genBase64(r, b)
		case `"BOOL"`, `"NULL"`:
			b = append(b, []string{"true", "false", "null", `"true"`}[r.IntN(4)]...)
		case `"M"`:
			if depth > 3 && r.IntN(2) == 0 {
				b = append(b, nest(`{"a":{"M":`, `{}`, `}}`, 30+r.IntN(4))...)
			} else {
				b = genItem(r, b, depth)
			}
		case `"L"`:
			b = append(b, '[')
			for j := range r.IntN(4) {
				if j > 0 {
					b = append(b, ',')
				}
				if depth > 3 && r.IntN(2) == 0 {
					b = append(b, nest(`{"L":[`, `{"S":"x"}`, `]}`, 28+r.IntN(6))...)
				} else {
					b = genValue(r, b, depth+1)
				}
			}
			b = append(b, ']')
		case `"SS"`, `"NS"`, `"BS"`:
			b = append(b, '[')
			for j := range r.IntN(5) {
				if j > 0 {
					b = append(b, ',')
				}
				switch {
				case r.IntN(10) == 0:
					b = genJSON(r, b, depth)
				case name == `"SS"`:
					b = append(b, []string{`"a"`, `"b"`, `"\u0061"`, `"é"`}[r.IntN(4)]...)
				case name == `"NS"`:
					b = strconv.AppendQuote(b, []string{"1", "1.0", "2", "-0", "0", "x", "1e200"}[r.IntN(7)])
				default:
					b = append(b, []string{`"AA=="`, `"AQ=="`, `"AA"`, `""`, `"A\nA=="`}[r.IntN(5)]...)
				}
			}
			b = append(b, ']')
		default:
			b = genJSON(r, b, depth)
		}
	}
	return append(genWS(r, b), '}')
}

// genJSON writes a JSON value of any kind.
func genJSON(r *rand.Rand, b []byte, depth int) []byte {
	switch r.IntN(9) {
	case 0:
		return append(b, "null"...)
	case 1:
		return append(b, []string{"true", "false"}[r.IntN(2)]...)
	case 2:
		return append(b, []string{"0", "-1", "1.5e3", "12345678901234567890"}[r.IntN(4)]...)
	case 3:
		return genString(r, b)
	case 4:
		return append(b, []string{"[]", "{}", `[1,"x"]`, `{"x":[null]}`}[r.IntN(4)]...)
	case 5:
		if depth < 6 {
			return genValue(r, b, depth+1)
		}
		return append(b, `{"S":"x"}`...)
	case 6:
		if depth < 6 {
			return genItem(r, b, depth)
		}
		return append(b, `{}`...)
	default:
		return strconv.AppendQuote(b, genNumber(r))
	}
}

func genString(r *rand.Rand, b []byte) []byte {
	pieces := []string{"a", "Z", " ", "é", "\\n", "\\\"", "\\u0041", "\\ud83d\\ude00", "\\ud800", "\\udc00", "\xff", "\xed\xa0\x80", "\\/", "ß"}
	b = append(b, '"')
	for range r.IntN(5) {
		b = append(b, pieces[r.IntN(len(pieces))]...)
	}
	return append(b, '"')
}

func genNumber(r *rand.Rand) string {
	parts := [][]string{{"", "-", "+"}, {"0", "1", "12", "007", "", "9999999999999999999999999999999999999999"}, {"", ".", ".5", ".50", ".000"}, {"", "e5", "E-3", "e", "e200", "e-200"}}
	var s string
	for _, p := range parts {
		s += p[r.IntN(len(p))]
	}
	return s
}

func genBase64(r *rand.Rand, b []byte) []byte {
	return append(b, []string{`"AA=="`, `"AAE="`, `"AAE"`, `""`, `"YQ\n=="`, `"____"`, `"A"`}[r.IntN(7)]...)
}

// The benchmark's PutItem: a few short attributes and a 1,000-byte string.
func BenchmarkDecodeBenchItem(b *testing.B) {
	data := []byte(`{"pk":{"S":"n123456"},"sk":{"S":"s"},"g":{"S":"g"},"g2":{"S":"g"},"n":{"N":"1"},"data":{"S":"` +
		strings.Repeat("abcdefghij", 100) + `"}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := DecodeItem(data); err != nil {
			b.Fatal(err)
		}
	}
}

// The string fast path reads eight bytes at a time: an escape, a control
// character or a non-ASCII rune at any offset of strings of any length
// near the word size decodes as encoding/json decodes it, and a bare
// control character is refused.
func TestDecodeStringAtEveryOffset(t *testing.T) {
	specials := []string{`\"`, `\\`, `\n`, `\u00e9`, "é", "\u2028", `\ud83d\ude00`}
	for n := 0; n <= 26; n++ {
		for at := 0; at <= n; at++ {
			for _, sp := range specials {
				text := strings.Repeat("a", at) + sp + strings.Repeat("b", n-at)
				data := []byte(`{"s":{"S":"` + text + `"}}`)
				var want struct {
					S struct{ S string } `json:"s"`
				}
				if err := json.Unmarshal(data, &want); err != nil {
					t.Fatal(err)
				}
				got, err := DecodeItem(data)
				if err != nil || got["s"].S != want.S.S {
					t.Fatalf("%q: got %q, %v; want %q", data, got["s"].S, err, want.S.S)
				}
			}
			bad := []byte(`{"s":{"S":"` + strings.Repeat("a", at) + "\x01" + strings.Repeat("b", n-at) + `"}}`)
			if _, err := DecodeItem(bad); err == nil {
				t.Fatalf("%q: a bare control character was accepted", bad)
			}
		}
	}
}
