package attr

import (
	"bytes"
	"slices"
	"strings"
)

// Equal reports whether two values are equal as the service compares them:
// numbers by value, sets regardless of member order.
func Equal(a, b Value) bool {
	if a.T != b.T {
		return false
	}
	switch a.T {
	case TypeS:
		return a.S == b.S
	case TypeN:
		return CompareNumbers(a.S, b.S) == 0
	case TypeB:
		return bytes.Equal(a.B, b.B)
	case TypeBOOL:
		return a.Bool == b.Bool
	case TypeNULL:
		return true
	case TypeM:
		if len(a.M) != len(b.M) {
			return false
		}
		for k, av := range a.M {
			bv, ok := b.M[k]
			if !ok || !Equal(av, bv) {
				return false
			}
		}
		return true
	case TypeL:
		return slices.EqualFunc(a.L, b.L, Equal)
	case TypeSS, TypeNS:
		if len(a.Strs) != len(b.Strs) {
			return false
		}
		for _, s := range a.Strs {
			if !a.setHas(b, s) {
				return false
			}
		}
		return true
	case TypeBS:
		if len(a.Bins) != len(b.Bins) {
			return false
		}
		for _, x := range a.Bins {
			if !slices.ContainsFunc(b.Bins, func(y []byte) bool { return bytes.Equal(x, y) }) {
				return false
			}
		}
		return true
	}
	return false
}

// EqualItems reports whether two items (nil: absent) are equal as the
// service compares them: the same attributes, each pair Equal.
func EqualItems(a, b Item) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok || !Equal(av, bv) {
			return false
		}
	}
	return true
}

func (a Value) setHas(b Value, s string) bool {
	if a.T == TypeNS {
		return slices.ContainsFunc(b.Strs, func(t string) bool { return CompareNumbers(s, t) == 0 })
	}
	return slices.Contains(b.Strs, s)
}

// Compare orders two scalar values of the same type (S, N or B) the way the
// service orders keys: S by UTF-8 bytes, N numerically, B by bytes. ok is
// false when the types differ or are not comparable.
func Compare(a, b Value) (c int, ok bool) {
	if a.T != b.T {
		return 0, false
	}
	switch a.T {
	case TypeS:
		return strings.Compare(a.S, b.S), true
	case TypeN:
		return CompareNumbers(a.S, b.S), true
	case TypeB:
		return bytes.Compare(a.B, b.B), true
	}
	return 0, false
}
