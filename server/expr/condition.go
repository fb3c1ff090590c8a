package expr

import "strings"

// Condition is a parsed ConditionExpression or FilterExpression.
type Condition struct {
	root *cond
}

// cond is a node of a condition tree.
type cond struct {
	op   condOp
	cmp  string  // the comparator of condCompare: = <> < <= > >=
	kids []*cond // condAnd, condOr (two each), condNot (one)
	args []*operand
	// call is a function used as a condition (attribute_exists(a), ...).
	call *call
	// paren marks a node written inside parentheses.
	paren bool
}

type condOp uint8

const (
	condAnd condOp = iota
	condOr
	condNot
	condCompare // args[0] cmp args[1]
	condBetween // args[0] BETWEEN args[1] AND args[2]
	condIn      // args[0] IN (args[1:]...)
	condCall
)

var conditionKeywords = map[string]bool{"AND": true, "OR": true, "NOT": true, "BETWEEN": true, "IN": true}

// conditionFuncs gives the operand count of each function conditions know.
var conditionFuncs = map[string]int{
	"attribute_exists":     1,
	"attribute_not_exists": 1,
	"attribute_type":       2,
	"begins_with":          2,
	"contains":             2,
	"size":                 1,
}

// ParseCondition parses a ConditionExpression or FilterExpression; kind is
// KindCondition or KindFilter and prefixes the error texts.
func ParseCondition(kind, expr string, ctx *Context) (*Condition, error) {
	root, err := parseConditionTree(kind, expr, ctx)
	if err != nil {
		return nil, err
	}
	return &Condition{root: root}, nil
}

// parseConditionTree parses and validates; key conditions share it.
func parseConditionTree(kind, expr string, ctx *Context) (*cond, *Error) {
	if err := checkSize(kind, expr); err != nil {
		return nil, err
	}
	p := newParser(kind, expr, conditionKeywords)
	root, ok := p.orCond()
	if !ok || !p.atEOF() {
		if ok {
			p.fail()
		}
		return nil, p.syntaxError()
	}
	if root.operators() > MaxOperators {
		return nil, invalid(kind, "The expression contains too many operators; operator count: %d", MaxOperators+1)
	}
	if err := validateCondition(kind, root, p.redundant, ctx); err != nil {
		return nil, err
	}
	return root, nil
}

// operators counts the tree's operators: every node but a function call.
func (c *cond) operators() int {
	n := 0
	if c.op != condCall {
		n = 1
	}
	for _, k := range c.kids {
		n += k.operators()
	}
	return n
}

// --- syntax ---

func (p *parser) orCond() (*cond, bool) {
	left, ok := p.andCond()
	if !ok {
		return nil, false
	}
	for {
		st := p.save()
		if !p.keyword("OR") {
			return left, true
		}
		right, ok := p.andCond()
		if !ok {
			p.restore(st)
			return left, true
		}
		left = &cond{op: condOr, kids: []*cond{left, right}}
	}
}

func (p *parser) andCond() (*cond, bool) {
	left, ok := p.notCond()
	if !ok {
		return nil, false
	}
	for {
		st := p.save()
		if !p.keyword("AND") {
			return left, true
		}
		right, ok := p.notCond()
		if !ok {
			p.restore(st)
			return left, true
		}
		left = &cond{op: condAnd, kids: []*cond{left, right}}
	}
}

func (p *parser) notCond() (*cond, bool) {
	st := p.save()
	if p.keyword("NOT") {
		c, ok := p.notCond()
		if ok {
			return &cond{op: condNot, kids: []*cond{c}}, true
		}
		p.restore(st)
		return nil, false
	}
	c, _, ok := p.primaryCond()
	return c, ok
}

// primaryCond parses a comparison, BETWEEN, IN, a function condition or a
// parenthesized condition. paren reports the last, so that "((c))" can be
// refused as redundant.
func (p *parser) primaryCond() (c *cond, paren bool, ok bool) {
	st := p.save()
	if c, ok := p.comparison(); ok {
		return c, false, true
	}
	p.restore(st)
	if !p.punct("(") {
		return nil, false, false
	}
	inner, ok := p.orCond()
	if !ok || !p.punct(")") {
		p.restore(st)
		return nil, false, false
	}
	if inner.paren {
		p.redundant = true
	}
	inner.paren = true
	return inner, true, true
}

// comparison parses operand (comparator operand | BETWEEN operand AND operand
// | IN (operands)), or a lone function call used as a condition.
func (p *parser) comparison() (*cond, bool) {
	left, ok := p.operandParens()
	if !ok {
		return nil, false
	}
	t := p.peek()
	switch {
	case t.kind == tkPunct && isComparator(t.text):
		p.pos++
		right, ok := p.operandParens()
		if !ok {
			return nil, false
		}
		return &cond{op: condCompare, cmp: t.text, args: []*operand{left, right}}, true
	case t.kind == tkIdent && strings.EqualFold(t.text, "BETWEEN"):
		p.pos++
		lo, ok := p.operandParens()
		if !ok || !p.keyword("AND") {
			return nil, false
		}
		hi, ok := p.operandParens()
		if !ok {
			return nil, false
		}
		return &cond{op: condBetween, args: []*operand{left, lo, hi}}, true
	case t.kind == tkIdent && strings.EqualFold(t.text, "IN"):
		p.pos++
		if !p.punct("(") {
			return nil, false
		}
		list, ok := p.operandList()
		if !ok || !p.punct(")") {
			return nil, false
		}
		return &cond{op: condIn, args: append([]*operand{left}, list...)}, true
	}
	// A function call standing alone is a condition; anything else needs a
	// comparator here.
	if left.kind == opCall && !left.parenthesized {
		return &cond{op: condCall, call: left.call}, true
	}
	return nil, p.fail()
}

func isComparator(s string) bool {
	switch s {
	case "=", "<>", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// operandList parses operand (',' operand)*.
func (p *parser) operandList() ([]*operand, bool) {
	first, ok := p.operandParens()
	if !ok {
		return nil, false
	}
	out := []*operand{first}
	for {
		st := p.save()
		if !p.punct(",") {
			return out, true
		}
		o, ok := p.operandParens()
		if !ok {
			p.restore(st)
			return out, true
		}
		out = append(out, o)
	}
}

// operandParens parses an operand, possibly inside parentheses; doubled
// parentheses are marked redundant.
func (p *parser) operandParens() (*operand, bool) {
	st := p.save()
	if p.punct("(") {
		inner, ok := p.operandParens()
		if ok && p.punct(")") {
			if inner.parenthesized {
				p.redundant = true
			}
			inner.parenthesized = true
			return inner, true
		}
		p.restore(st)
		return nil, false
	}
	return p.operand()
}

// operand parses a function call, a :value or a document path.
func (p *parser) operand() (*operand, bool) {
	t := p.peek()
	switch {
	case t.kind == tkValue:
		p.pos++
		return &operand{kind: opValue, placeholder: t.text}, true
	case t.kind == tkIdent && !p.isKeyword(t) && p.peekAt(1).kind == tkPunct && p.peekAt(1).text == "(":
		st := p.save()
		p.pos += 2
		args, ok := p.operandList()
		if !ok || !p.punct(")") {
			p.restore(st)
			return nil, false
		}
		return &operand{kind: opCall, call: &call{name: t.text, args: args}}, true
	}
	raw, ok := p.path()
	if !ok {
		return nil, false
	}
	return &operand{kind: opPath, raw: raw}, true
}
