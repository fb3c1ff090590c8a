package expr

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/dynamopg/dynamopg/server/attr"
)

// Eval reports whether item satisfies the condition. A nil item is an item
// with no attributes (a write to a key that does not exist yet). The error
// is reserved for failures found only at evaluation; today there are none.
func (c *Condition) Eval(item attr.Item) (bool, error) {
	if c == nil || c.root == nil {
		return true, nil
	}
	return c.root.eval(item), nil
}

// The service's rules: a comparison with a missing operand is false, except
// <> which is true; operands of different types are unequal and unordered;
// <, <=, >, >= and BETWEEN order only S, N and B.
func (c *cond) eval(item attr.Item) bool {
	switch c.op {
	case condAnd:
		return c.kids[0].eval(item) && c.kids[1].eval(item)
	case condOr:
		return c.kids[0].eval(item) || c.kids[1].eval(item)
	case condNot:
		return !c.kids[0].eval(item)
	case condCompare:
		a, aok := c.args[0].value(item)
		b, bok := c.args[1].value(item)
		if c.cmp == "<>" {
			return !aok || !bok || !attr.Equal(a, b)
		}
		if !aok || !bok {
			return false
		}
		if c.cmp == "=" {
			return attr.Equal(a, b)
		}
		n, ok := attr.Compare(a, b)
		if !ok {
			return false
		}
		switch c.cmp {
		case "<":
			return n < 0
		case "<=":
			return n <= 0
		case ">":
			return n > 0
		default:
			return n >= 0
		}
	case condBetween:
		v, ok := c.args[0].value(item)
		lo, lok := c.args[1].value(item)
		hi, hok := c.args[2].value(item)
		if !ok || !lok || !hok {
			return false
		}
		a, aok := attr.Compare(lo, v)
		b, bok := attr.Compare(v, hi)
		return aok && bok && a <= 0 && b <= 0
	case condIn:
		v, ok := c.args[0].value(item)
		if !ok {
			return false
		}
		for _, o := range c.args[1:] {
			if w, ok := o.value(item); ok && attr.Equal(v, w) {
				return true
			}
		}
		return false
	case condCall:
		return evalCall(c.call, item)
	}
	return false
}

func evalCall(x *call, item attr.Item) bool {
	switch x.name {
	case "attribute_exists":
		_, ok := x.args[0].path.Get(item)
		return ok
	case "attribute_not_exists":
		_, ok := x.args[0].path.Get(item)
		return !ok
	case "attribute_type":
		v, ok := x.args[0].value(item)
		t, tok := x.args[1].value(item)
		return ok && tok && t.T == attr.TypeS && v.T.String() == t.S
	case "begins_with":
		v, ok := x.args[0].value(item)
		prefix, pok := x.args[1].value(item)
		if !ok || !pok || v.T != prefix.T {
			return false
		}
		switch v.T {
		case attr.TypeS:
			return strings.HasPrefix(v.S, prefix.S)
		case attr.TypeB:
			return bytes.HasPrefix(v.B, prefix.B)
		}
		return false
	case "contains":
		v, ok := x.args[0].value(item)
		w, wok := x.args[1].value(item)
		return ok && wok && contains(v, w)
	}
	return false
}

// contains is the contains() function: a substring of a string, a byte run
// of a binary, a member of a set of the matching type, an element of a list.
func contains(v, w attr.Value) bool {
	switch v.T {
	case attr.TypeS:
		return w.T == attr.TypeS && strings.Contains(v.S, w.S)
	case attr.TypeB:
		return w.T == attr.TypeB && bytes.Contains(v.B, w.B)
	case attr.TypeSS:
		return w.T == attr.TypeS && setHas(v, w)
	case attr.TypeNS:
		return w.T == attr.TypeN && setHas(v, w)
	case attr.TypeBS:
		return w.T == attr.TypeB && setHas(v, w)
	case attr.TypeL:
		for _, e := range v.L {
			if attr.Equal(e, w) {
				return true
			}
		}
	}
	return false
}

// value evaluates an operand against the item; ok is false when it names a
// missing attribute or size() of a type without a size.
func (o *operand) value(item attr.Item) (attr.Value, bool) {
	switch o.kind {
	case opValue:
		return o.val, true
	case opPath:
		return o.path.Get(item)
	case opCall:
		if o.call.name == "size" {
			v, ok := o.call.args[0].value(item)
			if !ok {
				return attr.Value{}, false
			}
			n, ok := sizeOf(v)
			if !ok {
				return attr.Value{}, false
			}
			return attr.Num(strconv.Itoa(n)), true
		}
	}
	return attr.Value{}, false
}

// sizeOf is size(): the length of a string in UTF-16 code units (the
// service's Java String.length(): "é𝄞" is 3, measured by a conformance
// suite against the service), bytes of a binary, members of a set, elements
// of a list or map. Numbers, booleans and nulls have none.
func sizeOf(v attr.Value) (int, bool) {
	switch v.T {
	case attr.TypeS:
		return utf16Len(v.S), true
	case attr.TypeB:
		return len(v.B), true
	case attr.TypeSS, attr.TypeNS, attr.TypeBS:
		return v.SetLen(), true
	case attr.TypeL:
		return len(v.L), true
	case attr.TypeM:
		return len(v.M), true
	}
	return 0, false
}

// utf16Len is the length of s in UTF-16 code units: one per rune, two for a
// rune outside the Basic Multilingual Plane.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}
