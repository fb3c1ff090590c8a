package attr

import (
	"encoding/base64"
	"sort"
	"strconv"
	"unicode/utf8"
)

// MarshalJSON encodes the wire form.
func (v Value) MarshalJSON() ([]byte, error) { return v.AppendJSON(nil), nil }

// MarshalJSON encodes an item.
func (it Item) MarshalJSON() ([]byte, error) { return it.AppendJSON(nil), nil }

// AppendJSON appends the item's wire form to b, keys in sorted order.
func (it Item) AppendJSON(b []byte) []byte {
	if it == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(it))
	for k := range it {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = it[k].AppendJSON(b)
	}
	return append(b, '}')
}

// AppendJSON appends the value's wire form to b.
func (v Value) AppendJSON(b []byte) []byte {
	b = append(b, `{"`...)
	b = append(b, v.T.String()...)
	b = append(b, `":`...)
	switch v.T {
	case TypeS, TypeN:
		b = appendString(b, v.S)
	case TypeB:
		b = appendBase64(b, v.B)
	case TypeBOOL, TypeNULL:
		b = strconv.AppendBool(b, v.Bool || v.T == TypeNULL)
	case TypeM:
		b = Item(v.M).AppendJSON(b)
	case TypeL:
		b = append(b, '[')
		for i, e := range v.L {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.AppendJSON(b)
		}
		b = append(b, ']')
	case TypeSS, TypeNS:
		b = append(b, '[')
		for i, s := range v.Strs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		b = append(b, ']')
	case TypeBS:
		b = append(b, '[')
		for i, e := range v.Bins {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendBase64(b, e)
		}
		b = append(b, ']')
	default:
		b = append(b, "null"...)
	}
	return append(b, '}')
}

func appendBase64(b, data []byte) []byte {
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, data)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// load8 is the first eight bytes of s (len(s) >= 8) as a little-endian
// word.
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// plainWord reports whether the eight bytes of w are all ASCII that a
// JSON string holds as is: none below 0x20, at or above 0x80, '"' or '\\'.
// It tests the word at once (the classic "has a zero byte" bit trick), a
// fraction of the cost of a test per byte on a 1 KB string value.
func plainWord(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	bad := w | // a byte >= 0x80
		(w-ones*0x20)&^w | // a byte < 0x20
		(quote-ones)&^quote | (backslash-ones)&^backslash
	return bad&highs == 0
}

// appendString appends s as a JSON string literal.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Most text: eight bytes at a time, copied in one append below.
		for i+8 <= len(s) && plainWord(load8(s[i:])) {
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// ItemJSON is an item already in its wire JSON, compact (a store's
// stored form): a response writes it as it is.
type ItemJSON []byte

// MarshalJSON returns j itself.
func (j ItemJSON) MarshalJSON() ([]byte, error) {
	if j == nil {
		return []byte("null"), nil
	}
	return j, nil
}
