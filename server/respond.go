package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/dynamopg/dynamopg/server/attr"
)

// appendResponse appends the JSON encoding of an operation's result to b.
// Its output is byte for byte what json.Marshal(v) produces (the tests
// compare the two): it walks the dynamic types the operations return
// (map[string]any, []any, attr.Item, attr.Value, strings, numbers, ...)
// without reflection, and hands any other type (structs, named types,
// anything implementing json.Marshaler or encoding.TextMarshaler) to
// json.Marshal. On any failure (an unsupported value, a marshaler's error,
// nesting deep enough to be a cycle) it encodes the whole value with
// json.Marshal instead, so the output or the error is exactly that of
// json.Marshal. On error b is returned unchanged.
func appendResponse(b []byte, v any) ([]byte, error) {
	start := len(b)
	out, ok := appendAny(b, v, 0)
	if ok {
		return out, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return b[:start], err
	}
	return append(out[:start], data...), nil
}

// maxDepth bounds the nesting appendResponse walks itself; deeper values
// (or cyclic ones) are left to json.Marshal, which detects cycles.
const maxDepth = 500

// appendAny appends one value; false means the caller must give up and use
// json.Marshal for the whole response.
func appendAny(b []byte, v any, depth int) ([]byte, bool) {
	if depth > maxDepth {
		return b, false
	}
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendJSONString(b, v), true
	case *string:
		if v == nil {
			return append(b, "null"...), true
		}
		return appendJSONString(b, *v), true
	case bool:
		return strconv.AppendBool(b, v), true
	case *bool:
		if v == nil {
			return append(b, "null"...), true
		}
		return strconv.AppendBool(b, *v), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int8:
		return strconv.AppendInt(b, int64(v), 10), true
	case int16:
		return strconv.AppendInt(b, int64(v), 10), true
	case int32:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case *int:
		if v == nil {
			return append(b, "null"...), true
		}
		return strconv.AppendInt(b, int64(*v), 10), true
	case *int64:
		if v == nil {
			return append(b, "null"...), true
		}
		return strconv.AppendInt(b, *v, 10), true
	case uint:
		return strconv.AppendUint(b, uint64(v), 10), true
	case uint8:
		return strconv.AppendUint(b, uint64(v), 10), true
	case uint16:
		return strconv.AppendUint(b, uint64(v), 10), true
	case uint32:
		return strconv.AppendUint(b, uint64(v), 10), true
	case uint64:
		return strconv.AppendUint(b, v, 10), true
	case float64:
		return appendFloat(b, v, 64)
	case *float64:
		if v == nil {
			return append(b, "null"...), true
		}
		return appendFloat(b, *v, 64)
	case float32:
		return appendFloat(b, float64(v), 32)
	case []byte:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, v)
		return append(b, '"'), true

	case attr.ItemJSON:
		return appendItemJSON(b, v), true
	case attr.Item:
		return appendItem(b, v), true
	case *attr.Item:
		if v == nil {
			return append(b, "null"...), true
		}
		return appendItem(b, *v), true
	case attr.Value:
		return appendValue(b, v), true
	case *attr.Value:
		if v == nil {
			return append(b, "null"...), true
		}
		return appendValue(b, *v), true

	case map[string]any:
		return appendMap(b, v, depth, appendAny)
	case map[string]map[string]any:
		return appendMap(b, v, depth, appendAnyMap)
	case map[string][]any:
		return appendMap(b, v, depth, appendAnySlice)
	case map[string][]map[string]any:
		return appendMap(b, v, depth, appendMapSlice)
	case map[string]string:
		return appendMap(b, v, depth, appendStringElem)
	case map[string][]string:
		return appendMap(b, v, depth, appendStringSlice)
	case map[string]float64:
		return appendMap(b, v, depth, appendFloat64Elem)
	case map[string]int64:
		return appendMap(b, v, depth, appendInt64Elem)
	case map[string]int:
		return appendMap(b, v, depth, appendIntElem)
	case map[string]bool:
		return appendMap(b, v, depth, appendBoolElem)
	case map[string]attr.Value:
		return appendMap(b, v, depth, appendValueElem)
	case map[string]attr.Item:
		return appendMap(b, v, depth, appendItemElem)
	case map[string][]attr.Item:
		return appendMap(b, v, depth, appendItemSlice)

	case []any:
		return appendAnySlice(b, v, depth)
	case []map[string]any:
		return appendMapSlice(b, v, depth)
	case []string:
		return appendStringSlice(b, v, depth)
	case []attr.Item:
		return appendItemSlice(b, v, depth)
	case []attr.ItemJSON:
		return appendSlice(b, v, depth, appendItemJSONElem)
	case []attr.Value:
		return appendSlice(b, v, depth, appendValueElem)
	case []float64:
		return appendSlice(b, v, depth, appendFloat64Elem)
	case []int64:
		return appendSlice(b, v, depth, appendInt64Elem)
	case []int:
		return appendSlice(b, v, depth, appendIntElem)
	}
	// Anything else: structs, named types, marshalers, pointers to them.
	// A value reached here is not addressable (it sits in an interface),
	// as it is when json.Marshal meets it inside a map[string]any or []any,
	// so encoding it alone gives the same bytes.
	data, err := json.Marshal(v)
	if err != nil {
		return b, false
	}
	return append(b, data...), true
}

// Element encoders for the typed maps and slices.

func appendAnyMap(b []byte, m map[string]any, depth int) ([]byte, bool) {
	return appendMap(b, m, depth, appendAny)
}

func appendAnySlice(b []byte, s []any, depth int) ([]byte, bool) {
	return appendSlice(b, s, depth, appendAny)
}

func appendMapSlice(b []byte, s []map[string]any, depth int) ([]byte, bool) {
	return appendSlice(b, s, depth, appendAnyMap)
}

func appendStringSlice(b []byte, s []string, depth int) ([]byte, bool) {
	return appendSlice(b, s, depth, appendStringElem)
}

func appendItemSlice(b []byte, s []attr.Item, depth int) ([]byte, bool) {
	return appendSlice(b, s, depth, appendItemElem)
}

func appendStringElem(b []byte, s string, _ int) ([]byte, bool) {
	return appendJSONString(b, s), true
}

func appendFloat64Elem(b []byte, f float64, _ int) ([]byte, bool) {
	return appendFloat(b, f, 64)
}

func appendInt64Elem(b []byte, n int64, _ int) ([]byte, bool) {
	return strconv.AppendInt(b, n, 10), true
}

func appendIntElem(b []byte, n int, _ int) ([]byte, bool) {
	return strconv.AppendInt(b, int64(n), 10), true
}

func appendBoolElem(b []byte, v bool, _ int) ([]byte, bool) {
	return strconv.AppendBool(b, v), true
}

func appendValueElem(b []byte, v attr.Value, _ int) ([]byte, bool) {
	return appendValue(b, v), true
}

func appendItemElem(b []byte, it attr.Item, _ int) ([]byte, bool) {
	return appendItem(b, it), true
}

func appendItemJSONElem(b []byte, j attr.ItemJSON, _ int) ([]byte, bool) {
	return appendItemJSON(b, j), true
}

// appendMap encodes a map as encoding/json does: null when nil, keys sorted
// by their bytes and escaped as strings.
func appendMap[V any](b []byte, m map[string]V, depth int, elem func([]byte, V, int) ([]byte, bool)) ([]byte, bool) {
	if m == nil {
		return append(b, "null"...), true
	}
	if depth > maxDepth {
		return b, false
	}
	var small [16]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		var ok bool
		if b, ok = elem(b, m[k], depth+1); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendSlice encodes a slice as encoding/json does: null when nil.
func appendSlice[E any](b []byte, s []E, depth int, elem func([]byte, E, int) ([]byte, bool)) ([]byte, bool) {
	if s == nil {
		return append(b, "null"...), true
	}
	if depth > maxDepth {
		return b, false
	}
	b = append(b, '[')
	for i, e := range s {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = elem(b, e, depth+1); !ok {
			return b, false
		}
	}
	return append(b, ']'), true
}

// appendItem and appendValue encode attr's types as encoding/json encodes
// a json.Marshaler: their MarshalJSON output (which is AppendJSON's),
// compacted and HTML-escaped. AppendJSON already writes compact JSON, so
// only the HTML escaping remains.
func appendItem(b []byte, it attr.Item) []byte {
	start := len(b)
	return htmlEscapeTail(it.AppendJSON(b), start)
}

// appendItemJSON writes stored JSON as encoding/json writes a
// json.Marshaler's output: it is compact already, so HTML-escaped only.
func appendItemJSON(b []byte, j attr.ItemJSON) []byte {
	if j == nil {
		return append(b, "null"...)
	}
	start := len(b)
	return htmlEscapeTail(append(b, j...), start)
}

func appendValue(b []byte, v attr.Value) []byte {
	start := len(b)
	return htmlEscapeTail(v.AppendJSON(b), start)
}

// htmlEscapeTail applies to b[start:] (valid, compact JSON) the escaping
// encoding/json's compaction does for Marshal: <, > and & become \u003c,
// \u003e and \u0026, U+2028 and U+2029 become \u2028 and \u2029.
func htmlEscapeTail(b []byte, start int) []byte {
	tail := b[start:]
	if !needsHTMLEscape(tail) {
		return b
	}
	src := bytes.Clone(tail)
	return appendHTMLEscape(b[:start], src)
}

func needsHTMLEscape(s []byte) bool {
	if bytes.IndexByte(s, '<') >= 0 || bytes.IndexByte(s, '>') >= 0 || bytes.IndexByte(s, '&') >= 0 {
		return true
	}
	for i := 0; ; {
		j := bytes.IndexByte(s[i:], 0xE2)
		if j < 0 {
			return false
		}
		i += j
		if i+2 < len(s) && s[i+1] == 0x80 && s[i+2]&^1 == 0xA8 {
			return true
		}
		i++
	}
}

// appendHTMLEscape is encoding/json's (the escaping half of appendCompact).
func appendHTMLEscape(dst, src []byte) []byte {
	start := 0
	for i, c := range src {
		if c == '<' || c == '>' || c == '&' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		}
		// U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
		if c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[src[i+2]&0xF])
			start = i + 3
		}
	}
	return append(dst, src[start:]...)
}

// appendFloat is encoding/json's floatEncoder: ES6 number formatting,
// exponent form below 1e-6 and from 1e21, NaN and infinities unsupported.
func appendFloat(b []byte, f float64, bits int) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		// e-09 becomes e-9.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

const hexDigits = "0123456789abcdef"

// htmlSafe marks the ASCII bytes encoding/json writes unescaped in a
// string when escaping HTML: printable, except ", \, <, > and &.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = false
	}
	return t
}()

// appendJSONString is encoding/json's appendString with HTML escaping.
func appendJSONString(dst []byte, src string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(src); {
		if c := src[i]; c < utf8.RuneSelf {
			if htmlSafe[c] {
				i++
				continue
			}
			dst = append(dst, src[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				// Other control bytes, and <, > and &.
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(src[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, src[start:]...)
	return append(dst, '"')
}

// Response buffers are reused across requests; writeJSON copies the body
// into the connection's writer before the buffer goes back.
var responseBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledResponse keeps the occasional huge response (a 1 MB Query
// page, a 16 MB BatchGetItem) from being held by the pool.
const maxPooledResponse = 256 << 10

func getResponseBuffer() *[]byte { return responseBuffers.Get().(*[]byte) }

func putResponseBuffer(p *[]byte, b []byte) {
	if cap(b) > maxPooledResponse {
		return
	}
	*p = b[:0]
	responseBuffers.Put(p)
}
