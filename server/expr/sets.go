package expr

import (
	"bytes"

	"github.com/dynamopg/dynamopg/server/attr"
)

// setHas reports whether set s (SS, NS or BS) has member m (S, N or B).
func setHas(s, m attr.Value) bool {
	switch s.T {
	case attr.TypeSS:
		for _, x := range s.Strs {
			if x == m.S {
				return true
			}
		}
	case attr.TypeNS:
		for _, x := range s.Strs {
			if attr.CompareNumbers(x, m.S) == 0 {
				return true
			}
		}
	case attr.TypeBS:
		for _, x := range s.Bins {
			if bytes.Equal(x, m.B) {
				return true
			}
		}
	}
	return false
}

// member returns the i-th member of a set as a scalar value.
func member(s attr.Value, i int) attr.Value {
	switch s.T {
	case attr.TypeSS:
		return attr.Str(s.Strs[i])
	case attr.TypeNS:
		return attr.Num(s.Strs[i])
	}
	return attr.Bin(s.Bins[i])
}

// setUnion returns a ∪ b (same set type), in the sets' order (attr.SortSet).
func setUnion(a, b attr.Value) attr.Value {
	out := a.Clone()
	for i := 0; i < b.SetLen(); i++ {
		m := member(b, i)
		if setHas(out, m) {
			continue
		}
		if out.T == attr.TypeBS {
			out.Bins = append(out.Bins, append([]byte(nil), m.B...))
		} else {
			out.Strs = append(out.Strs, m.S)
		}
	}
	attr.SortSet(&out)
	return out
}

// setDifference returns a \ b (same set type), in a's order; the result may
// be empty.
func setDifference(a, b attr.Value) attr.Value {
	out := attr.Value{T: a.T}
	for i := 0; i < a.SetLen(); i++ {
		m := member(a, i)
		if setHas(b, m) {
			continue
		}
		if out.T == attr.TypeBS {
			out.Bins = append(out.Bins, m.B)
		} else {
			out.Strs = append(out.Strs, m.S)
		}
	}
	return out
}
