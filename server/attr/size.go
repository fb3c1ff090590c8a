package attr

// MaxItemSize is the service's item size limit (400 KB).
const MaxItemSize = 400 * 1024

// Size is the value's size as the service counts it for limits and capacity.
func (v Value) Size() int {
	switch v.T {
	case TypeS:
		return len(v.S)
	case TypeN:
		return numberSize(v.S)
	case TypeB:
		return len(v.B)
	case TypeBOOL, TypeNULL:
		return 1
	case TypeSS:
		n := 0
		for _, s := range v.Strs {
			n += len(s)
		}
		return n
	case TypeNS:
		n := 0
		for _, s := range v.Strs {
			n += numberSize(s)
		}
		return n
	case TypeBS:
		n := 0
		for _, b := range v.Bins {
			n += len(b)
		}
		return n
	case TypeM:
		n := 3
		for k, e := range v.M {
			n += 1 + len(k) + e.Size()
		}
		return n
	case TypeL:
		n := 3
		for _, e := range v.L {
			n += 1 + e.Size()
		}
		return n
	}
	return 0
}

// Size is the item's size: attribute names plus values.
func (it Item) Size() int {
	n := 0
	for k, v := range it {
		n += len(k) + v.Size()
	}
	return n
}
