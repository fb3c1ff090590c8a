package expr

import "github.com/dynamopg/dynamopg/server/attr"

// operand is a value in an expression: a document path, a :value, or a
// function call (size in conditions; if_not_exists, list_append, + and - in
// updates, where + and - are calls named "+" and "-").
type operand struct {
	kind opKind

	raw  []rawElem // opPath, as written
	path Path      // opPath, resolved

	placeholder string     // opValue
	val         attr.Value // opValue, resolved

	call *call // opCall

	// parenthesized marks an operand written inside parentheses.
	parenthesized bool
}

type opKind uint8

const (
	opPath opKind = iota
	opValue
	opCall
)

type call struct {
	name string
	args []*operand
}

// walkOperands visits o and the operands inside it, in source order.
func (o *operand) walk(visit func(*operand)) {
	visit(o)
	if o.kind == opCall {
		for _, a := range o.call.args {
			a.walk(visit)
		}
	}
}

// walkCalls visits calls innermost first, left to right: the order in which
// the service's parser finishes them, hence the order of its errors.
func (c *call) walkCalls(visit func(*call)) {
	for _, a := range c.args {
		if a.kind == opCall {
			a.call.walkCalls(visit)
		}
	}
	visit(c)
}

// staticType is the type an operand is known to have before evaluation:
// a value's type, N for size(); TypeNone when unknown. withCalls=false gives
// only immediate values' types, which is what update functions check.
func (o *operand) staticType(withCalls bool) attr.Type {
	switch o.kind {
	case opValue:
		return o.val.T
	case opCall:
		if !withCalls {
			return attr.TypeNone
		}
		switch o.call.name {
		case "size", "+", "-":
			return attr.TypeN
		case "list_append":
			return attr.TypeL
		case "if_not_exists":
			if len(o.call.args) == 2 {
				return o.call.args[1].staticType(true)
			}
		}
	}
	return attr.TypeNone
}
