package expr

import (
	"sort"

	"github.com/dynamopg/dynamopg/server/attr"
)

// Projection is a parsed ProjectionExpression.
type Projection struct {
	paths []Path
}

// ParseProjection parses a ProjectionExpression: document paths separated
// by commas.
func ParseProjection(expr string, ctx *Context) (*Projection, error) {
	if err := checkSize(KindProjection, expr); err != nil {
		return nil, err
	}
	p := newParser(KindProjection, expr, nil)
	var raws [][]rawElem
	for {
		raw, ok := p.path()
		if !ok {
			return nil, p.syntaxError()
		}
		raws = append(raws, raw)
		if !p.punct(",") {
			if !p.atEOF() {
				return nil, p.syntaxError()
			}
			break
		}
	}
	// Checked in the service's order: reserved words, undefined names,
	// overlapping paths.
	for _, raw := range raws {
		if err := checkPathWords(KindProjection, raw); err != nil {
			return nil, err
		}
	}
	paths := make([]Path, len(raws))
	for i, raw := range raws {
		path, err := resolvePath(KindProjection, raw, ctx)
		if err != nil {
			return nil, err
		}
		paths[i] = path
	}
	if err := checkOverlaps(KindProjection, paths); err != nil {
		return nil, err
	}
	return &Projection{paths: paths}, nil
}

// Paths returns the projected paths in source order.
func (pr *Projection) Paths() []Path { return pr.paths }

// TopLevel returns the distinct top-level attribute names the projection
// reads, for stores that fetch by attribute.
func (pr *Projection) TopLevel() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range pr.paths {
		if n := p.Attribute(); !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Apply returns the parts of item the projection names.
func (pr *Projection) Apply(item attr.Item) attr.Item { return ProjectPaths(item, pr.paths) }

// ProjectPaths returns the parts of item at paths, keeping their structure:
// a.b gives {a: {M: {b: ...}}}; list indexes give lists of the elements that
// exist, in index order, compacted (a[3], a[1] gives [a[1], a[3]]). Paths
// that reach nothing add nothing. The result shares no memory with item.
func ProjectPaths(item attr.Item, paths []Path) attr.Item {
	root := &projNode{}
	for _, p := range paths {
		root.add(p)
	}
	out := attr.Item{}
	for name, child := range root.names {
		if v, ok := item[name]; ok {
			if pv, ok := child.project(v); ok {
				out[name] = pv
			}
		}
	}
	return out
}

// projNode is the tree of projected paths below one value.
type projNode struct {
	whole   bool // the value itself is projected
	names   map[string]*projNode
	indexes map[int]*projNode
}

func (n *projNode) add(p Path) {
	for _, e := range p {
		if n.whole {
			return
		}
		var next *projNode
		if e.IsIndex {
			if n.indexes == nil {
				n.indexes = map[int]*projNode{}
			}
			if next = n.indexes[e.Index]; next == nil {
				next = &projNode{}
				n.indexes[e.Index] = next
			}
		} else {
			if n.names == nil {
				n.names = map[string]*projNode{}
			}
			if next = n.names[e.Name]; next == nil {
				next = &projNode{}
				n.names[e.Name] = next
			}
		}
		n = next
	}
	n.whole, n.names, n.indexes = true, nil, nil
}

func (n *projNode) project(v attr.Value) (attr.Value, bool) {
	if n.whole {
		return v.Clone(), true
	}
	switch v.T {
	case attr.TypeM:
		if len(n.names) == 0 {
			return attr.Value{}, false
		}
		m := map[string]attr.Value{}
		for name, child := range n.names {
			if e, ok := v.M[name]; ok {
				if pv, ok := child.project(e); ok {
					m[name] = pv
				}
			}
		}
		if len(m) == 0 {
			return attr.Value{}, false
		}
		return attr.Map(m), true
	case attr.TypeL:
		if len(n.indexes) == 0 {
			return attr.Value{}, false
		}
		ixs := make([]int, 0, len(n.indexes))
		for ix := range n.indexes {
			ixs = append(ixs, ix)
		}
		sort.Ints(ixs)
		var l []attr.Value
		for _, ix := range ixs {
			if ix < len(v.L) {
				if pv, ok := n.indexes[ix].project(v.L[ix]); ok {
					l = append(l, pv)
				}
			}
		}
		if len(l) == 0 {
			return attr.Value{}, false
		}
		return attr.List(l), true
	}
	return attr.Value{}, false
}
