package attr

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDepth is how many levels of M and L the service accepts in one value.
const maxDepth = 32

// UnmarshalJSON decodes the wire form ({"S":"x"}, {"N":"1"}, ...), validating
// as the service does.
func (v *Value) UnmarshalJSON(data []byte) error {
	r, err := decodeValue(data, 1)
	if err != nil {
		return err
	}
	*v = r
	return nil
}

// UnmarshalJSON decodes an item (a map of attribute values).
func (it *Item) UnmarshalJSON(data []byte) error {
	r, err := decodeItem(data, 0)
	if err != nil {
		return err
	}
	*it = r
	return nil
}

func decodeItem(data []byte, depth int) (Item, *Error) {
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, []byte("null")) {
		return nil, nil
	}
	if len(data) == 0 || data[0] != '{' {
		return nil, shapeErr(data, "map")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, serializationErr("Unexpected JSON")
	}
	out := make(Item, len(raw))
	for k, rv := range raw {
		val, err := decodeValue(rv, depth+1)
		if err != nil {
			return nil, err
		}
		out[k] = val
	}
	return out, nil
}

// shapeErr is the SerializationException for a JSON value of the wrong kind.
func shapeErr(data []byte, want string) *Error {
	switch {
	case len(data) > 0 && data[0] == '[':
		return serializationErr("Start of list found where not expected")
	case len(data) > 0 && data[0] == '{':
		return serializationErr("Start of structure or map found where not expected.")
	case want == "map":
		return serializationErr("Expected map or null")
	case want == "list":
		return serializationErr("Expected list or null")
	}
	return serializationErr("Unexpected value type in payload")
}

func decodeString(data []byte, what string) (string, *Error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '"' {
		if len(data) > 0 && (data[0] == '[' || data[0] == '{') {
			return "", shapeErr(data, "")
		}
		switch {
		case bytes.Equal(data, []byte("true")) || bytes.Equal(data, []byte("false")):
			return "", serializationErr("class java.lang.Boolean can not be converted to an " + what)
		default:
			return "", serializationErr("class java.lang.Long can not be converted to an " + what)
		}
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return "", serializationErr("Unexpected JSON string")
	}
	return s, nil
}

func decodeBlob(data []byte) ([]byte, *Error) {
	s, err := decodeString(data, "Blob")
	if err != nil {
		return nil, err
	}
	b, derr := base64.StdEncoding.DecodeString(s)
	if derr != nil {
		return nil, serializationErr(fmt.Sprintf("'%s' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: %d", s, len(s)))
	}
	return b, nil
}

func decodeList(data []byte) ([]json.RawMessage, *Error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '[' {
		return nil, shapeErr(data, "list")
	}
	var l []json.RawMessage
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, serializationErr("Unexpected JSON list")
	}
	return l, nil
}

func decodeValue(data []byte, depth int) (Value, *Error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		if bytes.Equal(data, []byte("null")) {
			return Value{}, validationErr(MsgEmptyValue)
		}
		return Value{}, shapeErr(data, "map")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Value{}, serializationErr("Unexpected JSON")
	}
	var v Value
	n := 0
	// Deterministic order so the first error reported does not depend on map order.
	keys := make([]string, 0, len(raw))
	for k, rv := range raw {
		if bytes.Equal(bytes.TrimSpace(rv), []byte("null")) {
			continue // null members are absent, as in the service's decoder
		}
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return TypeFromName(keys[i]) < TypeFromName(keys[j]) })
	for _, k := range keys {
		rv := raw[k]
		t := TypeFromName(k)
		if t == TypeNone {
			continue
		}
		n++
		v.T = t
		switch t {
		case TypeS:
			s, err := decodeString(rv, "String")
			if err != nil {
				return Value{}, err
			}
			v.S = s
		case TypeN:
			s, err := decodeString(rv, "String")
			if err != nil {
				return Value{}, err
			}
			c, nerr := ParseNumber(s)
			if nerr != nil {
				return Value{}, nerr
			}
			v.S = c
		case TypeB:
			b, err := decodeBlob(rv)
			if err != nil {
				return Value{}, err
			}
			v.B = b
		case TypeBOOL, TypeNULL:
			var b bool
			if err := json.Unmarshal(rv, &b); err != nil {
				if len(rv) > 0 && rv[0] == '"' {
					s, _ := decodeString(rv, "Boolean")
					return Value{}, serializationErr("'" + strings.ToUpper(s) + "' can not be converted to an Boolean")
				}
				return Value{}, shapeErr(rv, "")
			}
			if t == TypeNULL && !b {
				return Value{}, validationErr(MsgNullNotTrue)
			}
			v.Bool = b
		case TypeM:
			if depth > maxDepth {
				return Value{}, validationErr(MsgNesting)
			}
			m, err := decodeItem(rv, depth)
			if err != nil {
				return Value{}, err
			}
			if m == nil {
				m = Item{}
			}
			v.M = m
		case TypeL:
			if depth > maxDepth {
				return Value{}, validationErr(MsgNesting)
			}
			l, err := decodeList(rv)
			if err != nil {
				return Value{}, err
			}
			v.L = make([]Value, len(l))
			for i, e := range l {
				ev, err := decodeValue(e, depth+1)
				if err != nil {
					return Value{}, err
				}
				v.L[i] = ev
			}
		case TypeSS, TypeNS:
			l, err := decodeList(rv)
			if err != nil {
				return Value{}, err
			}
			if len(l) == 0 {
				if t == TypeSS {
					return Value{}, validationErr(MsgEmptySS)
				}
				return Value{}, validationErr(MsgEmptyNS)
			}
			v.Strs = make([]string, len(l))
			seen := make(map[string]bool, len(l))
			dup := false
			for i, e := range l {
				s, err := decodeString(e, "String")
				if err != nil {
					return Value{}, err
				}
				if t == TypeNS {
					c, nerr := ParseNumber(s)
					if nerr != nil {
						return Value{}, nerr
					}
					s = c
				}
				if seen[s] {
					dup = true
				}
				seen[s] = true
				v.Strs[i] = s
			}
			if dup {
				if t == TypeNS {
					return Value{}, validationErr(MsgNSDuplicates)
				}
				return Value{}, validationErr("One or more parameter values were invalid: Input collection [" + strings.Join(v.Strs, ", ") + "] contains duplicates.")
			}
		case TypeBS:
			l, err := decodeList(rv)
			if err != nil {
				return Value{}, err
			}
			if len(l) == 0 {
				return Value{}, validationErr(MsgEmptyBS)
			}
			v.Bins = make([][]byte, len(l))
			seen := make(map[string]bool, len(l))
			dup := false
			texts := make([]string, len(l))
			for i, e := range l {
				b, err := decodeBlob(e)
				if err != nil {
					return Value{}, err
				}
				if seen[string(b)] {
					dup = true
				}
				seen[string(b)] = true
				v.Bins[i] = b
				texts[i] = base64.StdEncoding.EncodeToString(b)
			}
			if dup {
				return Value{}, validationErr("One or more parameter values were invalid: Input collection [" + strings.Join(texts, ", ") + "]of type BS contains duplicates.")
			}
		}
	}
	if n == 0 {
		return Value{}, validationErr(MsgEmptyValue)
	}
	if n > 1 {
		return Value{}, validationErr(MsgMultipleTypes)
	}
	return v, nil
}

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

// appendString appends s as a JSON string literal.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
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
