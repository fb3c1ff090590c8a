package attr

// The decoder as it was before decode.go: each level unmarshals into a
// map[string]json.RawMessage. Kept verbatim (functions renamed ref*) so the
// tests can check the single-pass decoder against it. The one change: the
// members of an item are visited in a fixed order (see refMemberOrder)
// instead of Go's random map order, so that when several attributes are
// invalid the reference reports a predictable one.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// refValue and refItem decode with the reference decoder when encoding/json
// drives them, as Value and Item did.
type refValue Value
type refItem Item

// UnmarshalJSON decodes the wire form ({"S":"x"}, {"N":"1"}, ...), validating
// as the service does.
func (v *refValue) UnmarshalJSON(data []byte) error {
	r, err := refDecodeValue(data, 1)
	if err != nil {
		return err
	}
	*v = refValue(r)
	return nil
}

// UnmarshalJSON decodes an item (a map of attribute values).
func (it *refItem) UnmarshalJSON(data []byte) error {
	r, err := refDecodeItem(data, 0)
	if err != nil {
		return err
	}
	*it = refItem(r)
	return nil
}

func refDecodeItem(data []byte, depth int) (Item, *Error) {
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, []byte("null")) {
		return nil, nil
	}
	if len(data) == 0 || data[0] != '{' {
		return nil, refShapeErr(data, "map")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, serializationErr("Unexpected JSON")
	}
	out := make(Item, len(raw))
	if refMapOrder { // as the old code ran, for the benchmark
		for k, rv := range raw {
			val, err := refDecodeValue(rv, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = val
		}
		return out, nil
	}
	for _, k := range refMemberOrder(data, raw) { // was: for k, rv := range raw
		rv := raw[k]
		val, err := refDecodeValue(rv, depth+1)
		if err != nil {
			return nil, err
		}
		out[k] = val
	}
	return out, nil
}

// shapeErr is the SerializationException for a JSON value of the wrong kind.
func refShapeErr(data []byte, want string) *Error {
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

func refDecodeString(data []byte, what string) (string, *Error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '"' {
		if len(data) > 0 && (data[0] == '[' || data[0] == '{') {
			return "", refShapeErr(data, "")
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

func refDecodeBlob(data []byte) ([]byte, *Error) {
	s, err := refDecodeString(data, "Blob")
	if err != nil {
		return nil, err
	}
	b, derr := base64.StdEncoding.DecodeString(s)
	if derr != nil {
		return nil, serializationErr(fmt.Sprintf("'%s' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: %d", s, len(s)))
	}
	return b, nil
}

func refDecodeList(data []byte) ([]json.RawMessage, *Error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '[' {
		return nil, refShapeErr(data, "list")
	}
	var l []json.RawMessage
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, serializationErr("Unexpected JSON list")
	}
	return l, nil
}

func refDecodeValue(data []byte, depth int) (Value, *Error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		if bytes.Equal(data, []byte("null")) {
			return Value{}, validationErr(MsgEmptyValue)
		}
		return Value{}, refShapeErr(data, "map")
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
			s, err := refDecodeString(rv, "String")
			if err != nil {
				return Value{}, err
			}
			v.S = s
		case TypeN:
			s, err := refDecodeString(rv, "String")
			if err != nil {
				return Value{}, err
			}
			c, nerr := ParseNumber(s)
			if nerr != nil {
				return Value{}, nerr
			}
			v.S = c
		case TypeB:
			b, err := refDecodeBlob(rv)
			if err != nil {
				return Value{}, err
			}
			v.B = b
		case TypeBOOL, TypeNULL:
			var b bool
			if err := json.Unmarshal(rv, &b); err != nil {
				if len(rv) > 0 && rv[0] == '"' {
					s, _ := refDecodeString(rv, "Boolean")
					return Value{}, serializationErr("'" + strings.ToUpper(s) + "' can not be converted to an Boolean")
				}
				return Value{}, refShapeErr(rv, "")
			}
			if t == TypeNULL && !b {
				return Value{}, validationErr(MsgNullNotTrue)
			}
			v.Bool = b
		case TypeM:
			if depth > maxDepth {
				return Value{}, validationErr(MsgNesting)
			}
			m, err := refDecodeItem(rv, depth)
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
			l, err := refDecodeList(rv)
			if err != nil {
				return Value{}, err
			}
			v.L = make([]Value, len(l))
			for i, e := range l {
				ev, err := refDecodeValue(e, depth+1)
				if err != nil {
					return Value{}, err
				}
				v.L[i] = ev
			}
		case TypeSS, TypeNS:
			l, err := refDecodeList(rv)
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
				s, err := refDecodeString(e, "String")
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
			// Members in order: strings by bytes, numbers by value
			// (parsed, unlike SortSet's comparison of canonical texts).
			if t == TypeNS {
				sort.SliceStable(v.Strs, func(i, j int) bool { return CompareNumbers(v.Strs[i], v.Strs[j]) < 0 })
			} else {
				sort.Strings(v.Strs)
			}
		case TypeBS:
			l, err := refDecodeList(rv)
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
				b, err := refDecodeBlob(e)
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
			sort.Slice(v.Bins, func(i, j int) bool { return bytes.Compare(v.Bins[i], v.Bins[j]) < 0 })
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

// refMapOrder makes refDecodeItem visit members in Go's map order, as the old
// code did, rather than refMemberOrder's; BenchmarkDecodeItem sets it so as
// to time the old code and not the ordering.
var refMapOrder bool

// refMemberOrder lists raw's keys in the order of their last occurrence in
// the object data (the occurrence whose value the map holds). The new decoder
// reports the error of the first invalid attribute in that order; the old
// code reported whichever invalid attribute map iteration reached first.
func refMemberOrder(data []byte, raw map[string]json.RawMessage) []string {
	last := make(map[string]int, len(raw))
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // '{'
		panic(err)
	}
	for i := 0; dec.More(); i++ {
		tok, err := dec.Token()
		if err != nil {
			panic(err)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			panic(err)
		}
		last[tok.(string)] = i
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return last[keys[i]] < last[keys[j]] })
	return keys
}
