package expr

import (
	"strconv"
	"strings"

	"github.com/dynamopg/dynamopg/server/attr"
)

// PathElem is one step of a document path: a map key (or top-level attribute
// name) or a list index.
type PathElem struct {
	Name    string
	Index   int
	IsIndex bool
}

// Path is a document path with placeholders resolved: a.b[3].c is
// {a}, {b}, {[3]}, {c}. Its first element is always a name.
type Path []PathElem

// String renders the path the way the service's messages do: [a, b, [3], c].
func (p Path) String() string {
	parts := make([]string, len(p))
	for i, e := range p {
		if e.IsIndex {
			parts[i] = "[" + strconv.Itoa(e.Index) + "]"
		} else {
			parts[i] = e.Name
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Equal reports whether two paths are the same.
func (p Path) Equal(q Path) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// Attribute is the top-level attribute the path starts at.
func (p Path) Attribute() string {
	if len(p) == 0 {
		return ""
	}
	return p[0].Name
}

// compare orders paths element by element; names before indexes where they
// differ in kind (only reachable for paths the parsers did not check).
func (p Path) compare(q Path) int {
	for i := 0; i < len(p) && i < len(q); i++ {
		a, b := p[i], q[i]
		switch {
		case a.IsIndex != b.IsIndex:
			if b.IsIndex {
				return -1
			}
			return 1
		case a.IsIndex:
			if a.Index != b.Index {
				if a.Index < b.Index {
					return -1
				}
				return 1
			}
		default:
			if c := strings.Compare(a.Name, b.Name); c != 0 {
				return c
			}
		}
	}
	return len(p) - len(q)
}

// Get returns the value at the path in item, if there is one.
func (p Path) Get(item attr.Item) (attr.Value, bool) {
	if len(p) == 0 {
		return attr.Value{}, false
	}
	v, ok := item[p[0].Name]
	if !ok {
		return attr.Value{}, false
	}
	for _, e := range p[1:] {
		if e.IsIndex {
			if v.T != attr.TypeL || e.Index >= len(v.L) {
				return attr.Value{}, false
			}
			v = v.L[e.Index]
		} else {
			if v.T != attr.TypeM {
				return attr.Value{}, false
			}
			if v, ok = v.M[e.Name]; !ok {
				return attr.Value{}, false
			}
		}
	}
	return v, true
}

// resolvePath replaces #placeholders by their names, marking them used, and
// refuses the first undefined placeholder, then a path of more than
// MaxPathDepth elements.
func resolvePath(kind string, raw []rawElem, ctx *Context) (Path, *Error) {
	out := make(Path, len(raw))
	for i, e := range raw {
		switch {
		case e.isIndex:
			out[i] = PathElem{Index: e.index, IsIndex: true}
		case e.isPlaceholder():
			n, ok := ctx.name(e.text)
			if !ok {
				return nil, invalid(kind, "An expression attribute name used in the document path is not defined; attribute name: %s", e.text)
			}
			out[i] = PathElem{Name: n}
		default:
			out[i] = PathElem{Name: e.text}
		}
	}
	if len(out) > MaxPathDepth {
		return nil, invalid(kind, "The document path has too many nesting levels; nesting levels: %d", len(out))
	}
	return out, nil
}

// checkPathWords refuses, in the path's order, a bare name that is a
// reserved word or a list index past a Java int (more than ten digits, or
// above 2147483647).
func checkPathWords(kind string, raw []rawElem) *Error {
	for _, e := range raw {
		switch {
		case e.isIndex:
			if e.index < 0 {
				return invalid(kind, "List index is not within the allowable range; index: [%s]", e.indexText)
			}
		case !e.isPlaceholder() && isReserved(e.text):
			return invalid(kind, "Attribute name is a reserved keyword; reserved keyword: %s", e.text)
		}
	}
	return nil
}

// checkOverlaps refuses, in the service's words, two paths where one is a
// prefix of the other (overlap) or where they take different kinds of step at
// the same place (conflict). An overlap anywhere wins over a conflict.
func checkOverlaps(kind string, paths []Path) *Error {
	var conflict *Error
	for j := 1; j < len(paths); j++ {
		for i := 0; i < j; i++ {
			a, b := paths[i], paths[j]
			same := true
			for k := 0; k < len(a) && k < len(b); k++ {
				if a[k].IsIndex != b[k].IsIndex {
					if conflict == nil {
						conflict = invalid(kind, "Two document paths conflict with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", a, b)
					}
					same = false
					break
				}
				if a[k] != b[k] {
					same = false
					break
				}
			}
			if same {
				return invalid(kind, "Two document paths overlap with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", a, b)
			}
		}
	}
	if conflict != nil {
		return conflict
	}
	return nil
}
