package attr

import (
	"bytes"
	"unicode/utf8"
)

// Reader reads a request body member by member, in the single pass of
// this package's decoder, for the hand-written decoders of the hot
// operations' requests (api's fast path). It only accepts: every method
// reports false for anything but the plainest form of what it is asked
// for (a null, a member name with escapes, a number that is not an
// integer, an attribute value the service refuses), and the caller then
// decodes the body the general way (encoding/json), which gives the
// result or the error for everything else. What a Reader accepts it
// decodes exactly as encoding/json and UnmarshalJSON would.
type Reader struct{ d *decoder }

// ReadObject reads data, which must be one JSON object and nothing else
// (JSON whitespace aside), calling member for each member with its name
// (valid only during the call) and the Reader at its value, which member
// must read with one of the Reader's methods. It reports whether the
// whole of data was read and every member accepted.
func ReadObject(data []byte, member func(name []byte, r *Reader) bool) bool {
	d := getDecoder(data)
	defer putDecoder(d)
	r := Reader{d}
	d.ws()
	return r.Object(member) && d.end()
}

// name reads a member name and its colon. A name with escapes is refused
// (the decoder's buffer would hold it, and the next string read would
// overwrite it), and one that is not UTF-8 (encoding/json would replace
// its invalid bytes; the API refuses such a body before decoding it).
func (r *Reader) name() ([]byte, bool) {
	d := r.d
	if d.peek() != '"' {
		return nil, false
	}
	start := d.pos + 1
	end, plain := d.scanString(start)
	if d.bad || !plain || !utf8.Valid(d.data[start:end]) {
		return nil, false
	}
	d.colon()
	return d.data[start:end], !d.bad
}

// Object reads a JSON object, calling member for each of its members as
// ReadObject does.
func (r *Reader) Object(member func(name []byte, r *Reader) bool) bool {
	d := r.d
	if d.peek() != '{' {
		return false
	}
	d.open()
	d.ws()
	if d.peek() == '}' {
		d.pos++
		d.depth--
		return !d.bad
	}
	for {
		name, ok := r.name()
		if !ok || !member(name, r) || d.bad {
			return false
		}
		if !d.next('}') {
			return !d.bad
		}
	}
}

// Array reads a JSON array, calling elem at each element, which elem must
// read with one of the Reader's methods.
func (r *Reader) Array(elem func(r *Reader) bool) bool {
	d := r.d
	if d.peek() != '[' {
		return false
	}
	d.open()
	d.ws()
	if d.peek() == ']' {
		d.pos++
		d.depth--
		return !d.bad
	}
	for {
		if !elem(r) || d.bad {
			return false
		}
		if !d.next(']') {
			return !d.bad
		}
	}
}

// String reads a JSON string.
func (r *Reader) String() (string, bool) {
	d := r.d
	if d.peek() != '"' {
		return "", false
	}
	s := d.str()
	if d.bad {
		return "", false
	}
	return string(s), true
}

// Strings reads a JSON array of strings; [] is an empty slice, not nil.
func (r *Reader) Strings() ([]string, bool) {
	out := []string{}
	ok := r.Array(func(r *Reader) bool {
		s, ok := r.String()
		out = append(out, s)
		return ok
	})
	return out, ok
}

// Bool reads true or false.
func (r *Reader) Bool() (bool, bool) {
	d := r.d
	switch d.peek() {
	case 't':
		d.literal("true")
		return true, !d.bad
	case 'f':
		d.literal("false")
		return false, !d.bad
	}
	return false, false
}

// Int64 reads a JSON number that is an integer in int64's range, written
// without a fraction or an exponent.
func (r *Reader) Int64() (int64, bool) {
	d := r.d
	if c := d.peek(); c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	start := d.pos
	d.skipNumber()
	if d.bad {
		return 0, false
	}
	s := d.data[start:d.pos]
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) > 19 { // more than int64 holds; 19 digits fit in a uint64
		return 0, false
	}
	var u uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false // a fraction or an exponent
		}
		u = u*10 + uint64(c-'0')
	}
	switch {
	case neg && u <= 1<<63:
		return int64(-u), true
	case !neg && u < 1<<63:
		return int64(u), true
	}
	return 0, false
}

// Item reads an item (a JSON object of attribute values) that the service
// accepts, as (*Item).UnmarshalJSON decodes it; {} is an empty Item.
func (r *Reader) Item() (Item, bool) {
	d := r.d
	if d.peek() != '{' {
		return nil, false
	}
	it, err := d.item(0)
	if err != nil || d.bad {
		return nil, false
	}
	return it, true
}

// Raw reads a JSON object and returns a copy of its text, as a
// json.RawMessage receives it.
func (r *Reader) Raw() ([]byte, bool) {
	d := r.d
	if d.peek() != '{' {
		return nil, false
	}
	start := d.pos
	d.skip()
	if d.bad {
		return nil, false
	}
	return bytes.Clone(d.data[start:d.pos]), true
}
