package attr

import (
	"bytes"
	"slices"
	"strings"
)

// Set members are kept in one stable order, the one DynamoDB Local returns
// them in: strings and binaries by their bytes, numbers by value. The
// service promises no order at all, so tests written against DynamoDB Local
// (which compare sets as lists) pass unchanged. The decoder sorts every set
// it reads, from a request or from storage, and set operations keep the
// order; a set already in order (any set read back from storage) costs one
// pass of comparisons.

// SortSet puts the members of an SS, NS or BS in order, in place; any other
// value is left as it is.
func SortSet(v *Value) {
	switch v.T {
	case TypeSS:
		if !slices.IsSorted(v.Strs) {
			slices.Sort(v.Strs)
		}
	case TypeNS:
		if !slices.IsSortedFunc(v.Strs, compareCanonical) {
			slices.SortFunc(v.Strs, compareCanonical)
		}
	case TypeBS:
		if !slices.IsSortedFunc(v.Bins, bytes.Compare) {
			slices.SortFunc(v.Bins, bytes.Compare)
		}
	}
}

// compareCanonical orders two numbers in canonical form (ParseNumber's
// plain notation: no exponent, no leading zeros but a lone "0" before the
// point, no trailing zeros after it, "-" only when negative) by value,
// without parsing them.
func compareCanonical(a, b string) int {
	an, bn := strings.HasPrefix(a, "-"), strings.HasPrefix(b, "-")
	switch {
	case an && !bn:
		return -1
	case bn && !an:
		return 1
	case an:
		return compareMagnitudeText(b[1:], a[1:])
	}
	return compareMagnitudeText(a, b)
}

// compareMagnitudeText orders two unsigned canonical numbers: the longer
// integer part is larger, then the digits decide from the left (a missing
// fraction digit is smaller than any, as there are no trailing zeros).
func compareMagnitudeText(a, b string) int {
	ai, bi := intLen(a), intLen(b)
	if ai != bi {
		if ai < bi {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

func intLen(s string) int {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return i
	}
	return len(s)
}
