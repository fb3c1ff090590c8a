package pgstore

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
)

// prefixEnd, on strings with escapes, NUL and SOH (as stored), characters
// at the top of the range and before the surrogates, and byte strings
// ending in 0xFF: the bounds below, and none where no string is above. (The
// expectations are what the SQL dynamopg.prefix_end returned for the same
// values before migration 015 dropped it.)
func TestPrefixEnd(t *testing.T) {
	none := "none"
	for _, c := range []struct {
		v    attr.Value
		want string // the stored text of the bound, or none
	}{
		{attr.Str("a"), "b"},
		{attr.Str("abc"), "abd"},
		{attr.Str(`a"b\c`), `a"b\d`},
		{attr.Str("é"), "ê"},
		{attr.Str("日本"), "日札"},
		{attr.Str("a\x00"), "a\x01\x02"}, // stored a SOH SOH
		{attr.Str("a\x01"), "a\x01\x03"}, // stored a SOH STX
		{attr.Str("\x00\x01\x02"), "\x01\x01\x01\x02\x03"},
		{attr.Str("x\u007f"), "x\u0080"},
		{attr.Str("a\U0010FFFF"), "b"},
		{attr.Str("\U0010FFFF\U0010FFFF"), none},
		{attr.Str("a\uD7FF"), "a\uE000"}, // past the surrogates
		{attr.Str("\uFFFF"), "\U00010000"},
		{attr.Str(strings.Repeat("z", 300)), strings.Repeat("z", 299) + "{"},
	} {
		end, ok, err := prefixEnd(c.v)
		if err != nil {
			t.Fatalf("%q: %v", c.v.S, err)
		}
		if !ok {
			if c.want != none {
				t.Errorf("%q: no bound, want %q", c.v.S, c.want)
			}
			continue
		}
		var got struct{ S *string }
		if err := json.Unmarshal(end, &got); err != nil || got.S == nil {
			t.Fatalf("%q: bound %s: %v", c.v.S, end, err)
		}
		if *got.S != c.want {
			t.Errorf("%q: bound %q, want %q", c.v.S, *got.S, c.want)
		}
	}
	for _, c := range []struct {
		v    []byte
		want []byte // nil: none
	}{
		{[]byte{0}, []byte{1}},
		{[]byte{1, 2, 0xff}, []byte{1, 3}},
		{[]byte{0xff, 0xff}, nil},
		{[]byte{0xfe, 0xff}, []byte{0xff}},
		{bytes.Repeat([]byte{0x10}, 100), append(bytes.Repeat([]byte{0x10}, 99), 0x11)},
	} {
		end, ok, err := prefixEnd(attr.Bin(c.v))
		if err != nil {
			t.Fatalf("%x: %v", c.v, err)
		}
		if ok != (c.want != nil) {
			t.Fatalf("%x: bound %v (%s), want %x", c.v, ok, end, c.want)
		}
		if !ok {
			continue
		}
		var got struct{ B string }
		if err := json.Unmarshal(end, &got); err != nil {
			t.Fatal(err)
		}
		if b, err := base64.StdEncoding.DecodeString(got.B); err != nil || !bytes.Equal(b, c.want) {
			t.Errorf("%x: bound %s, want %x", c.v, end, c.want)
		}
	}
	if _, _, err := prefixEnd(attr.Num("1")); err == nil {
		t.Fatal("a number prefix was accepted")
	}
}
