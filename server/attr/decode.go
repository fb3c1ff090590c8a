package attr

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Decoding of the wire form in one pass over the bytes.
//
// The rules are those of the decoder this replaced, which unmarshalled every
// level into a map[string]json.RawMessage, so a few of them follow from
// encoding/json rather than from the service:
//   - The whole input must be well-formed JSON (as encoding/json defines it,
//     nesting limit included) or the error is "Unexpected JSON", whatever else
//     is wrong with it; only the checks on the first byte of the input come
//     before that.
//   - A later member with the same name replaces an earlier one, errors and
//     all. In a value, a null member counts as absent and unknown type names
//     are ignored.
//   - Strings decode as encoding/json decodes them: invalid UTF-8 and lone
//     surrogate escapes become U+FFFD. The API refuses a request body that
//     holds either before decoding it (api/text.go), so distinct wire
//     strings never meet here as one.
//   - In a value, the member reported when several are invalid is the first
//     in type order (S, N, B, BOOL, NULL, M, L, SS, NS, BS); in an item, the
//     first in the input (counting a repeated name at its last occurrence).

// maxDepth is how many levels of M and L the service accepts in one value.
const maxDepth = 32

// maxJSONDepth is encoding/json's limit on nested arrays and objects; deeper
// input is malformed to it.
const maxJSONDepth = 10000

// UnmarshalJSON decodes the wire form ({"S":"x"}, {"N":"1"}, ...), validating
// as the service does.
func (v *Value) UnmarshalJSON(data []byte) error {
	r, err := decodeValueJSON(data)
	if err != nil {
		return err
	}
	*v = r
	return nil
}

// UnmarshalJSON decodes an item (a map of attribute values).
func (it *Item) UnmarshalJSON(data []byte) error {
	r, err := decodeItemJSON(data)
	if err != nil {
		return err
	}
	*it = r
	return nil
}

// DecodeItem decodes an item from its wire form, as json.Unmarshal into an
// Item would, without encoding/json's separate pass over the input: "null"
// is a nil Item. Input that is not well-formed JSON is refused with a
// serialization *Error (where json.Unmarshal reports a *json.SyntaxError).
func DecodeItem(data []byte) (Item, error) {
	// encoding/json allows only JSON whitespace around the value, and hands
	// the value to UnmarshalJSON without it.
	for len(data) > 0 && isSpace(data[0]) {
		data = data[1:]
	}
	for len(data) > 0 && isSpace(data[len(data)-1]) {
		data = data[:len(data)-1]
	}
	if string(data) == "null" {
		return nil, nil
	}
	d := getDecoder(data)
	defer putDecoder(d)
	if len(data) == 0 || data[0] != '{' {
		d.skip()
		if !d.end() {
			return nil, syntaxErr()
		}
		return nil, shapeErr(data, "map")
	}
	it, err := d.item(0)
	if !d.end() {
		return nil, syntaxErr()
	}
	if err != nil {
		return nil, err
	}
	return it, nil
}

// decodeItemJSON is (*Item).UnmarshalJSON, which is also called directly and
// so checks its input itself.
func decodeItemJSON(data []byte) (Item, *Error) {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		return nil, nil
	}
	if len(data) == 0 || data[0] != '{' {
		return nil, shapeErr(data, "map")
	}
	d := getDecoder(data)
	defer putDecoder(d)
	it, err := d.item(0)
	if !d.end() {
		return nil, syntaxErr()
	}
	if err != nil {
		return nil, err
	}
	return it, nil
}

// decodeValueJSON is (*Value).UnmarshalJSON.
func decodeValueJSON(data []byte) (Value, *Error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		if string(data) == "null" {
			return Value{}, validationErr(MsgEmptyValue)
		}
		return Value{}, shapeErr(data, "map")
	}
	d := getDecoder(data)
	defer putDecoder(d)
	v, err := d.value(1)
	if !d.end() {
		return Value{}, syntaxErr()
	}
	if err != nil {
		return Value{}, err
	}
	return v, nil
}

func syntaxErr() *Error { return serializationErr("Unexpected JSON") }

// shapeErr is the SerializationException for a JSON value of the wrong kind.
func shapeErr(data []byte, want string) *Error {
	var c byte
	if len(data) > 0 {
		c = data[0]
	}
	return shapeErrAt(c, want)
}

// shapeErrAt is shapeErr for a value starting with c.
func shapeErrAt(c byte, want string) *Error {
	switch {
	case c == '[':
		return serializationErr("Start of list found where not expected")
	case c == '{':
		return serializationErr("Start of structure or map found where not expected.")
	case want == "map":
		return serializationErr("Expected map or null")
	case want == "list":
		return serializationErr("Expected list or null")
	}
	return serializationErr("Unexpected value type in payload")
}

// decoder reads one input. Malformed JSON sets bad and moves pos to the end,
// where peek reads 0, a byte no JSON construct accepts, so the callers
// unwind quickly; they check bad before using what they decoded. The errors
// the methods return are the service's refusals of well-formed input, which
// count only when the whole input turns out to be well formed.
type decoder struct {
	data  []byte
	pos   int
	depth int  // arrays and objects open at pos
	bad   bool // malformed JSON
	buf   []byte

	// Stacks of what the items, lists and sets being decoded have collected
	// so far, innermost last, so each can allocate its result at its final
	// size. They live in a pool with the decoder.
	members []member
	vals    []Value
	strs    []string
	bins    [][]byte
}

type member struct {
	key string
	val Value
	err *Error
}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

func getDecoder(data []byte) *decoder {
	d := decoders.Get().(*decoder)
	d.data = data
	return d
}

func putDecoder(d *decoder) {
	if cap(d.members) > 1024 || cap(d.vals) > 1024 || cap(d.strs) > 1024 || cap(d.bins) > 1024 || cap(d.buf) > 64<<10 {
		return // do not keep large buffers for the next small item
	}
	*d = decoder{buf: d.buf[:0], members: d.members[:0], vals: d.vals[:0], strs: d.strs[:0], bins: d.bins[:0]}
	decoders.Put(d)
}

// The pops clear what they remove, so that the pooled stacks do not keep
// decoded values alive.

func (d *decoder) popVals(base int) {
	clear(d.vals[base:])
	d.vals = d.vals[:base]
}

func (d *decoder) popStrs(base int) {
	clear(d.strs[base:])
	d.strs = d.strs[:base]
}

func (d *decoder) popBins(base int) {
	clear(d.bins[base:])
	d.bins = d.bins[:base]
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (d *decoder) ws() {
	for d.pos < len(d.data) && isSpace(d.data[d.pos]) {
		d.pos++
	}
}

func (d *decoder) peek() byte {
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

func (d *decoder) fail() {
	d.bad = true
	d.pos = len(d.data)
}

// end reports whether the input was well formed up to its end.
func (d *decoder) end() bool {
	d.ws()
	return !d.bad && d.pos == len(d.data)
}

// open consumes the '{' or '[' at pos.
func (d *decoder) open() {
	d.pos++
	d.depth++
	if d.depth > maxJSONDepth {
		d.fail()
	}
}

// next consumes the separator after a member or element, reporting whether
// another follows; closer ends the object or array.
func (d *decoder) next(closer byte) bool {
	d.ws()
	switch d.peek() {
	case ',':
		d.pos++
		d.ws()
		return true
	case closer:
		d.pos++
		d.depth--
		return false
	}
	d.fail()
	return false
}

// colon consumes the ':' after a member name.
func (d *decoder) colon() {
	d.ws()
	if d.peek() != ':' {
		d.fail()
		return
	}
	d.pos++
	d.ws()
}

func (d *decoder) literal(lit string) {
	if len(d.data)-d.pos < len(lit) || string(d.data[d.pos:d.pos+len(lit)]) != lit {
		d.fail()
		return
	}
	d.pos += len(lit)
}

// item decodes the object at pos as an item whose values are at depth+1.
func (d *decoder) item(depth int) (Item, *Error) {
	d.open()
	d.ws()
	if d.peek() == '}' {
		d.pos++
		d.depth--
		return Item{}, nil
	}
	base := len(d.members)
	failed := false
	for !d.bad {
		if d.peek() != '"' {
			d.fail()
			break
		}
		k := string(d.str())
		d.colon()
		if d.bad {
			break
		}
		v, err := d.value(depth + 1)
		d.members = append(d.members, member{key: k, val: v, err: err})
		failed = failed || err != nil
		if !d.next('}') {
			break
		}
	}
	ms := d.members[base:]
	d.members = d.members[:base]
	if d.bad {
		clear(ms)
		return nil, nil
	}
	if failed {
		if err := firstErr(ms); err != nil {
			clear(ms)
			return nil, err
		}
	}
	it := make(Item, len(ms))
	for i := range ms {
		it[ms[i].key] = ms[i].val
	}
	clear(ms) // the pooled stack must not keep the values alive
	return it, nil
}

// firstErr is the error of the first invalid member that no later member of
// the same name replaces.
func firstErr(ms []member) *Error {
	if len(ms) <= 32 {
	next:
		for i := range ms {
			if ms[i].err == nil {
				continue
			}
			for j := i + 1; j < len(ms); j++ {
				if ms[j].key == ms[i].key {
					continue next
				}
			}
			return ms[i].err
		}
		return nil
	}
	last := make(map[string]int, len(ms))
	for i := range ms {
		last[ms[i].key] = i
	}
	for i := range ms {
		if ms[i].err != nil && last[ms[i].key] == i {
			return ms[i].err
		}
	}
	return nil
}

// typed collects the members of a value's object, one slot per type; a
// later member of a type replaces an earlier one.
type typed struct {
	present uint16 // 1<<Type of each type given a non-null member
	failed  uint16 // ... of those whose member was refused
	errs    [TypeBS + 1]*Error
	s       [2]string // S, N
	b       []byte
	bools   [2]bool // BOOL, NULL
	m       Item
	l       []Value
	strs    [2][]string // SS, NS
	bins    [][]byte
}

// value decodes the JSON value at pos as an attribute value at depth.
func (d *decoder) value(depth int) (Value, *Error) {
	switch c := d.peek(); c {
	case '{':
	case 'n':
		d.literal("null")
		return Value{}, validationErr(MsgEmptyValue)
	default:
		d.skip()
		return Value{}, shapeErrAt(c, "map")
	}
	d.open()
	d.ws()
	var ty typed
	if d.peek() == '}' {
		d.pos++
		d.depth--
	} else {
		for !d.bad {
			if d.peek() != '"' {
				d.fail()
				break
			}
			t := typeOf(d.str())
			d.colon()
			if d.bad {
				break
			}
			switch {
			case d.peek() == 'n':
				d.literal("null") // absent
				ty.present &^= 1 << t
				ty.failed &^= 1 << t
			case t == TypeNone:
				d.skip()
			default:
				err := d.member(&ty, t, depth)
				ty.present |= 1 << t
				if err != nil {
					ty.failed |= 1 << t
					ty.errs[t] = err
				} else {
					ty.failed &^= 1 << t
				}
			}
			if !d.next('}') {
				break
			}
		}
	}
	if ty.failed != 0 {
		return Value{}, ty.errs[bits.TrailingZeros16(ty.failed)]
	}
	switch {
	case ty.present == 0:
		return Value{}, validationErr(MsgEmptyValue)
	case ty.present&(ty.present-1) != 0:
		return Value{}, validationErr(MsgMultipleTypes)
	}
	t := Type(bits.TrailingZeros16(ty.present))
	v := Value{T: t}
	switch t {
	case TypeS, TypeN:
		v.S = ty.s[t-TypeS]
	case TypeB:
		v.B = ty.b
	case TypeBOOL, TypeNULL:
		v.Bool = ty.bools[t-TypeBOOL]
	case TypeM:
		v.M = ty.m
	case TypeL:
		v.L = ty.l
	case TypeSS, TypeNS:
		v.Strs = ty.strs[t-TypeSS]
	case TypeBS:
		v.Bins = ty.bins
	}
	return v, nil
}

// typeOf is TypeFromName for a member name.
func typeOf(name []byte) Type {
	switch string(name) {
	case "S":
		return TypeS
	case "N":
		return TypeN
	case "B":
		return TypeB
	case "BOOL":
		return TypeBOOL
	case "NULL":
		return TypeNULL
	case "M":
		return TypeM
	case "L":
		return TypeL
	case "SS":
		return TypeSS
	case "NS":
		return TypeNS
	case "BS":
		return TypeBS
	}
	return TypeNone
}

// member decodes the (non-null) JSON value at pos as the member of type t of
// a value at depth, into its slot of ty.
func (d *decoder) member(ty *typed, t Type, depth int) *Error {
	c := d.peek()
	switch t {
	case TypeS, TypeN:
		s, err := d.stringOf("String")
		if err != nil {
			return err
		}
		if t == TypeS {
			ty.s[0] = string(s)
			return nil
		}
		ty.s[1], err = number(s)
		return err
	case TypeB:
		s, err := d.stringOf("Blob")
		if err != nil {
			return err
		}
		ty.b, err = blob(s)
		return err
	case TypeBOOL, TypeNULL:
		var b bool
		switch c {
		case 't':
			d.literal("true")
			b = true
		case 'f':
			d.literal("false")
		case '"':
			return serializationErr("'" + strings.ToUpper(string(d.str())) + "' can not be converted to an Boolean")
		default:
			d.skip()
			return shapeErrAt(c, "")
		}
		if t == TypeNULL && !b {
			return validationErr(MsgNullNotTrue)
		}
		ty.bools[t-TypeBOOL] = b
		return nil
	case TypeM:
		switch {
		case depth > maxDepth:
			d.skip()
			return validationErr(MsgNesting)
		case c != '{':
			d.skip()
			return shapeErrAt(c, "map")
		}
		var err *Error
		ty.m, err = d.item(depth)
		return err
	case TypeL:
		switch {
		case depth > maxDepth:
			d.skip()
			return validationErr(MsgNesting)
		case c != '[':
			d.skip()
			return shapeErrAt(c, "list")
		}
		var err *Error
		ty.l, err = d.list(depth)
		return err
	case TypeSS, TypeNS:
		if c != '[' {
			d.skip()
			return shapeErrAt(c, "list")
		}
		var err *Error
		ty.strs[t-TypeSS], err = d.stringSet(t)
		return err
	default: // TypeBS
		if c != '[' {
			d.skip()
			return shapeErrAt(c, "list")
		}
		var err *Error
		ty.bins, err = d.binarySet()
		return err
	}
}

// stringOf decodes the JSON value at pos where the service expects a
// string; what names the expected type in the error for other values. The
// result is only valid until the next string is read.
func (d *decoder) stringOf(what string) ([]byte, *Error) {
	switch c := d.peek(); c {
	case '"':
		return d.str(), nil
	case '[', '{':
		d.skip()
		return nil, shapeErrAt(c, "")
	case 't', 'f':
		d.skip()
		return nil, serializationErr("class java.lang.Boolean can not be converted to an " + what)
	default:
		d.skip()
		return nil, serializationErr("class java.lang.Long can not be converted to an " + what)
	}
}

// number is ParseNumber, saving its work for text already canonical.
func number(s []byte) (string, *Error) {
	if canonicalNumber(s) {
		return string(s), nil
	}
	return ParseNumber(string(s))
}

// canonicalNumber reports whether ParseNumber would accept s and return it
// unchanged: plain notation, no redundant zeros or sign, at most 38 digits.
// It may say no to some such texts (ParseNumber then does the work).
func canonicalNumber(s []byte) bool {
	i := 0
	if len(s) > 0 && s[0] == '-' {
		i++
	}
	if i == len(s) {
		return false
	}
	intStart := i
	switch c := s[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	digits := i - intStart
	if i == len(s) {
		return digits <= maxDigits && !(s[0] == '-' && s[intStart] == '0') // not "-0"
	}
	if s[i] != '.' {
		return false
	}
	i++
	fracStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i == len(s) && i > fracStart && s[i-1] != '0' && digits+i-fracStart <= maxDigits
}

// blob decodes a B member's text.
func blob(s []byte) ([]byte, *Error) {
	b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
	n, err := base64.StdEncoding.Decode(b, s)
	if err != nil {
		return nil, serializationErr(fmt.Sprintf("'%s' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: %d", s, len(s)))
	}
	return b[:n], nil
}

// list decodes the array at pos as the elements of an L at depth.
func (d *decoder) list(depth int) ([]Value, *Error) {
	d.open()
	d.ws()
	if d.peek() == ']' {
		d.pos++
		d.depth--
		return []Value{}, nil
	}
	base := len(d.vals)
	var err *Error
	for !d.bad {
		if err != nil {
			d.skip() // the first refused element is the one reported
		} else if v, verr := d.value(depth + 1); verr != nil {
			err = verr
		} else {
			d.vals = append(d.vals, v)
		}
		if !d.next(']') {
			break
		}
	}
	defer d.popVals(base)
	if d.bad || err != nil {
		return nil, err
	}
	l := make([]Value, len(d.vals)-base)
	copy(l, d.vals[base:])
	return l, nil
}

// stringSet decodes the array at pos as the members of an SS or NS.
func (d *decoder) stringSet(t Type) ([]string, *Error) {
	d.open()
	d.ws()
	base := len(d.strs)
	var err *Error
	if d.peek() == ']' {
		d.pos++
		d.depth--
	} else {
		for !d.bad {
			if err != nil {
				d.skip()
			} else if s, serr := d.stringOf("String"); serr != nil {
				err = serr
			} else if t == TypeSS {
				d.strs = append(d.strs, string(s))
			} else if n, nerr := number(s); nerr != nil {
				err = nerr
			} else {
				d.strs = append(d.strs, n)
			}
			if !d.next(']') {
				break
			}
		}
	}
	defer d.popStrs(base)
	switch {
	case d.bad || err != nil:
		return nil, err
	case len(d.strs) == base && t == TypeSS:
		return nil, validationErr(MsgEmptySS)
	case len(d.strs) == base:
		return nil, validationErr(MsgEmptyNS)
	}
	strs := make([]string, len(d.strs)-base)
	copy(strs, d.strs[base:])
	if hasDup(len(strs), func(i, j int) bool { return strs[i] == strs[j] }, func(i int) string { return strs[i] }) {
		if t == TypeNS {
			return nil, validationErr(MsgNSDuplicates)
		}
		return nil, validationErr("One or more parameter values were invalid: Input collection [" + strings.Join(strs, ", ") + "] contains duplicates.")
	}
	SortSet(&Value{T: t, Strs: strs})
	return strs, nil
}

// binarySet decodes the array at pos as the members of a BS.
func (d *decoder) binarySet() ([][]byte, *Error) {
	d.open()
	d.ws()
	base := len(d.bins)
	var err *Error
	if d.peek() == ']' {
		d.pos++
		d.depth--
	} else {
		for !d.bad {
			if err != nil {
				d.skip()
			} else if s, serr := d.stringOf("Blob"); serr != nil {
				err = serr
			} else if b, berr := blob(s); berr != nil {
				err = berr
			} else {
				d.bins = append(d.bins, b)
			}
			if !d.next(']') {
				break
			}
		}
	}
	defer d.popBins(base)
	switch {
	case d.bad || err != nil:
		return nil, err
	case len(d.bins) == base:
		return nil, validationErr(MsgEmptyBS)
	}
	bins := make([][]byte, len(d.bins)-base)
	copy(bins, d.bins[base:])
	if hasDup(len(bins), func(i, j int) bool { return bytes.Equal(bins[i], bins[j]) }, func(i int) string { return string(bins[i]) }) {
		texts := make([]string, len(bins))
		for i, b := range bins {
			texts[i] = base64.StdEncoding.EncodeToString(b)
		}
		return nil, validationErr("One or more parameter values were invalid: Input collection [" + strings.Join(texts, ", ") + "]of type BS contains duplicates.")
	}
	SortSet(&Value{T: TypeBS, Bins: bins})
	return bins, nil
}

// hasDup reports whether two of n set members are equal: by comparing pairs
// for small sets, by their key in a map for large ones.
func hasDup(n int, eq func(i, j int) bool, key func(i int) string) bool {
	if n <= 16 {
		for i := 1; i < n; i++ {
			for j := 0; j < i; j++ {
				if eq(i, j) {
					return true
				}
			}
		}
		return false
	}
	seen := make(map[string]struct{}, n)
	for i := 0; i < n; i++ {
		k := key(i)
		if _, ok := seen[k]; ok {
			return true
		}
		seen[k] = struct{}{}
	}
	return false
}

// str consumes the string at pos and returns its contents as encoding/json
// decodes them: escapes resolved, invalid UTF-8 and lone surrogates replaced
// by U+FFFD. The result aliases the input or d.buf, so it is only valid
// until the next call.
func (d *decoder) str() []byte {
	data := d.data
	start := d.pos + 1
	i := start
	// Fast path: printable ASCII without escapes, eight bytes at a time
	// (plainWord), then byte by byte to the closing quote.
	for i+8 <= len(data) && plainWord(binary.LittleEndian.Uint64(data[i:])) {
		i += 8
	}
	for ; i < len(data); i++ {
		c := data[i]
		if c == '"' {
			d.pos = i + 1
			return data[start:i]
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	end, plain := d.scanString(i)
	if d.bad {
		return nil
	}
	s := data[start:end]
	if plain && utf8.Valid(s) {
		return s
	}
	return d.unquote(s)
}

// scanString checks the rest of the string whose contents continue at i,
// moves past its closing quote, and returns where its contents end and
// whether they are free of escapes.
func (d *decoder) scanString(i int) (end int, plain bool) {
	data := d.data
	plain = true
	for ; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			d.pos = i + 1
			return i, plain
		case c == '\\':
			plain = false
			i++
			if i == len(data) {
				d.fail()
				return 0, false
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(data) || !isHex(data[i+1]) || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) {
					d.fail()
					return 0, false
				}
				i += 4
			default:
				d.fail()
				return 0, false
			}
		case c < 0x20:
			d.fail()
			return 0, false
		}
	}
	d.fail() // unterminated
	return 0, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// unquote decodes the contents s of a well-formed string into d.buf, as
// encoding/json's unquoteBytes does.
func (d *decoder) unquote(s []byte) []byte {
	b := d.buf[:0]
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			switch s[r+1] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := getu4(s[r:])
				r += 6
				if utf16.IsSurrogate(rr) {
					// A pair takes the next escape too; anything else is U+FFFD.
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // '"', '\\', '/'
				b = append(b, s[r+1])
			}
			r += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr) // RuneError for invalid bytes
		}
	}
	d.buf = b
	return b
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// skip consumes the JSON value at pos, only checking that it is well formed.
// It keeps its own stack of open arrays and objects rather than recursing,
// as the value may nest up to maxJSONDepth deep.
func (d *decoder) skip() {
	var stackBuf [32]byte
	stack := stackBuf[:0]
	for {
		// At a value.
		d.ws()
		switch c := d.peek(); c {
		case '{', '[':
			d.open()
			d.ws()
			if c == '{' && d.peek() == '}' || c == '[' && d.peek() == ']' {
				d.pos++
				d.depth--
				break
			}
			stack = append(stack, c)
			if c == '{' {
				d.skipKey()
			}
			if d.bad {
				return
			}
			continue
		case '"':
			d.scanString(d.pos + 1)
		case 't':
			d.literal("true")
		case 'f':
			d.literal("false")
		case 'n':
			d.literal("null")
		default:
			d.skipNumber()
		}
		// After a value: close what it ends, and move to the next one.
		for {
			if d.bad || len(stack) == 0 {
				return
			}
			d.ws()
			c, top := d.peek(), stack[len(stack)-1]
			if c == ',' {
				d.pos++
				if top == '{' {
					d.ws()
					d.skipKey()
				}
				break
			}
			if top == '{' && c == '}' || top == '[' && c == ']' {
				d.pos++
				d.depth--
				stack = stack[:len(stack)-1]
				continue
			}
			d.fail()
			return
		}
	}
}

// skipKey consumes a member name and its colon.
func (d *decoder) skipKey() {
	if d.peek() != '"' {
		d.fail()
		return
	}
	d.scanString(d.pos + 1)
	if !d.bad {
		d.colon()
	}
}

// skipNumber consumes a JSON number.
func (d *decoder) skipNumber() {
	data, i := d.data, d.pos
	digits := func() int {
		n := 0
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		digits()
	default:
		d.fail()
		return
	}
	if i < len(data) && data[i] == '.' {
		i++
		if digits() == 0 {
			d.fail()
			return
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if digits() == 0 {
			d.fail()
			return
		}
	}
	d.pos = i
}
