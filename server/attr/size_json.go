package attr

import "unsafe"

// StoredSize is the Size of the item whose wire JSON is data, read from the
// text without building the item: a Query or Scan that answers with items as
// they are stored needs only their sizes (the 1 MB page and the consumed
// capacity). data is a stored item: one type member per value, names
// unique, as Item.AppendJSON writes it (whitespace between tokens is
// allowed). ok is false when data is not JSON of that shape (a repeated
// name goes unnoticed); the caller then decodes it, which reports what is
// wrong.
func StoredSize(data []byte) (n int, ok bool) {
	d := getDecoder(data)
	defer putDecoder(d)
	d.ws()
	if d.peek() != '{' {
		return 0, false
	}
	n = d.sizeMembers(0)
	return n, d.end()
}

// sizeMembers reads the object at pos, of names and attribute values, and
// returns the sum of each name's length, its value's size and perMember
// (an item's members count 0, a map's 1).
func (d *decoder) sizeMembers(perMember int) int {
	d.open()
	d.ws()
	if d.peek() == '}' {
		d.pos++
		d.depth--
		return 0
	}
	n := 0
	for !d.bad {
		if d.peek() != '"' {
			d.fail()
			break
		}
		n += perMember + len(d.str())
		d.colon()
		n += d.sizeValue()
		if !d.next('}') {
			break
		}
	}
	return n
}

// sizeValue reads the attribute value at pos, an object of one type member,
// and returns its Size.
func (d *decoder) sizeValue() int {
	if d.peek() != '{' {
		d.fail()
		return 0
	}
	d.open()
	d.ws()
	if d.peek() != '"' {
		d.fail()
		return 0
	}
	t := typeOf(d.str())
	d.colon()
	n := 0
	switch t {
	case TypeS, TypeN, TypeB:
		n = d.sizeScalar(t)
	case TypeBOOL, TypeNULL:
		switch d.peek() {
		case 't':
			d.literal("true")
		case 'f':
			d.literal("false")
		default:
			d.fail()
		}
		n = 1
	case TypeM:
		if d.peek() != '{' {
			d.fail()
			return 0
		}
		n = 3 + d.sizeMembers(1)
	case TypeL, TypeSS, TypeNS, TypeBS:
		if d.peek() != '[' {
			d.fail()
			return 0
		}
		d.open()
		d.ws()
		if t == TypeL {
			n = 3
		}
		if d.peek() == ']' {
			d.pos++
			d.depth--
			break
		}
		for !d.bad {
			switch t {
			case TypeL:
				n += 1 + d.sizeValue()
			case TypeSS:
				n += d.sizeScalar(TypeS)
			case TypeNS:
				n += d.sizeScalar(TypeN)
			default:
				n += d.sizeScalar(TypeB)
			}
			if !d.next(']') {
				break
			}
		}
	default:
		d.fail()
		return 0
	}
	d.ws()
	if d.peek() != '}' { // a second type member: not a stored value
		d.fail()
		return 0
	}
	d.pos++
	d.depth--
	return n
}

// sizeScalar reads the string at pos as the text of an S, N or B and
// returns the Size of that value.
func (d *decoder) sizeScalar(t Type) int {
	if d.peek() != '"' {
		d.fail()
		return 0
	}
	s := d.str()
	switch t {
	case TypeS:
		return len(s)
	case TypeN:
		if canonicalNumber(s) {
			// A view of the bytes, not a copy: numberSize keeps nothing.
			return numberSize(unsafe.String(unsafe.SliceData(s), len(s)))
		}
		num, err := number(s)
		if err != nil {
			d.fail()
			return 0
		}
		return numberSize(num)
	default:
		// Standard base64 with padding: three bytes per four characters,
		// less one per '='.
		if len(s)%4 != 0 {
			d.fail()
			return 0
		}
		n := len(s) / 4 * 3
		for i := len(s) - 1; i >= 0 && n > 0 && s[i] == '='; i-- {
			n--
		}
		return n
	}
}
