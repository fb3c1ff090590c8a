package expr

import (
	"encoding/base64"
	"strconv"

	"github.com/dynamopg/dynamopg/server/attr"
)

// validateCondition runs the semantic checks on a parsed condition in the
// service's order: redundant parentheses, unknown functions, misused
// functions, reserved words, then each comparison or function in turn (its
// undefined placeholders, operand counts, repeated operands, operand types).
// It resolves placeholders as it goes.
func validateCondition(kind string, root *cond, redundant bool, ctx *Context) *Error {
	if redundant {
		return invalid(kind, "The expression has redundant parentheses;")
	}
	leaves := root.leaves(nil)
	for _, l := range leaves {
		for _, c := range l.calls() {
			if _, ok := conditionFuncs[c.name]; ok {
				continue
			}
			if _, ok := updateFuncs[c.name]; ok {
				return invalid(kind, "The function is not allowed in a condition expression; function: %s", c.name)
			}
			return invalid(kind, "Invalid function name; function: %s", c.name)
		}
	}
	for _, l := range leaves {
		if name := l.misusedFunction(); name != "" {
			return invalid(kind, "The function is not allowed to be used this way in an expression; function: %s", name)
		}
	}
	for _, l := range leaves {
		for _, o := range l.operands() {
			if o.kind == opPath {
				if err := checkPathWords(kind, o.raw); err != nil {
					return err
				}
			}
		}
	}
	for _, l := range leaves {
		if err := l.check(kind, ctx); err != nil {
			return err
		}
	}
	return nil
}

// leaves appends the comparisons and function conditions in source order.
func (c *cond) leaves(out []*cond) []*cond {
	switch c.op {
	case condAnd, condOr, condNot:
		for _, k := range c.kids {
			out = k.leaves(out)
		}
		return out
	}
	return append(out, c)
}

// topOperands are the leaf's direct operands (a function condition's arguments).
func (c *cond) topOperands() []*operand {
	if c.op == condCall {
		return c.call.args
	}
	return c.args
}

// operands lists every operand of the leaf, nested ones included, in order.
func (c *cond) operands() []*operand {
	var out []*operand
	for _, o := range c.topOperands() {
		o.walk(func(o *operand) { out = append(out, o) })
	}
	return out
}

// calls lists the leaf's calls innermost first.
func (c *cond) calls() []*call {
	var out []*call
	add := func(x *call) { out = append(out, x) }
	if c.op == condCall {
		c.call.walkCalls(add)
		return out
	}
	for _, o := range c.args {
		if o.kind == opCall {
			o.call.walkCalls(add)
		}
	}
	return out
}

// misusedFunction names a function used where it cannot be: a condition
// function used as an operand, or size() used as a condition.
func (c *cond) misusedFunction() string {
	for _, o := range c.topOperands() {
		if name := misusedOperand(o); name != "" {
			return name
		}
	}
	if c.op == condCall && c.call.name == "size" {
		return "size"
	}
	return ""
}

func misusedOperand(o *operand) string {
	if o.kind != opCall {
		return ""
	}
	for _, a := range o.call.args {
		if name := misusedOperand(a); name != "" {
			return name
		}
	}
	if o.call.name != "size" {
		return o.call.name
	}
	return ""
}

// resolve resolves the placeholders of the operands in order.
func resolveOperands(kind string, ops []*operand, ctx *Context) *Error {
	for _, o := range ops {
		switch o.kind {
		case opPath:
			p, err := resolvePath(kind, o.raw, ctx)
			if err != nil {
				return err
			}
			o.path = p
		case opValue:
			v, ok := ctx.value(o.placeholder)
			if !ok {
				return invalid(kind, "An expression attribute value used in expression is not defined; attribute value: %s", o.placeholder)
			}
			o.val = v
		}
	}
	return nil
}

// check runs one leaf's checks: placeholders, operand counts, distinct
// operands, then operand types.
func (c *cond) check(kind string, ctx *Context) *Error {
	if err := resolveOperands(kind, c.operands(), ctx); err != nil {
		return err
	}
	calls := c.calls()
	for _, x := range calls {
		if n := conditionFuncs[x.name]; n != len(x.args) {
			return invalid(kind, "Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", x.name, len(x.args))
		}
	}
	for _, x := range calls {
		if err := checkDistinct(kind, x.name, x.args); err != nil {
			return err
		}
	}
	if c.op == condCompare {
		if err := checkDistinct(kind, c.cmp, c.args); err != nil {
			return err
		}
	}
	for _, x := range calls {
		if err := checkConditionCall(kind, x); err != nil {
			return err
		}
	}
	if err := c.checkOrderedOperands(kind); err != nil {
		return err
	}
	switch c.op {
	case condBetween:
		return checkBetween(kind, c.args[1], c.args[2])
	case condIn:
		if n := len(c.args) - 1; n > MaxInOperands {
			return invalid(kind, "The IN operator is provided with too many operands; number of operands: %d", n)
		}
	}
	return nil
}

// checkOrderedOperands refuses an operand that cannot be ordered where an
// order is needed: <, <=, >, >= and BETWEEN compare strings, numbers and
// binaries only, so a list, map, set, boolean or null given as a value (or
// the number size() returns, where that is wrong) is the request's mistake,
// not a condition that is false. A document path's type is the item's, and
// decides only the outcome.
func (c *cond) checkOrderedOperands(kind string) *Error {
	var op string
	switch {
	case c.op == condBetween:
		op = "BETWEEN"
	case c.op == condCompare && c.cmp != "=" && c.cmp != "<>":
		op = c.cmp
	default:
		return nil
	}
	for _, a := range c.args {
		switch t := a.staticType(true); t {
		case attr.TypeNone, attr.TypeS, attr.TypeN, attr.TypeB:
		default:
			return invalid(kind, "Incorrect operand type for operator or function; operator or function: %s, operand type: %s", op, t)
		}
	}
	return nil
}

// checkDistinct refuses a two-operand operator or function whose operands
// are the same document path.
func checkDistinct(kind, op string, args []*operand) *Error {
	if len(args) != 2 || args[0].kind != opPath || args[1].kind != opPath || !args[0].path.Equal(args[1].path) {
		return nil
	}
	return invalid(kind, "The first operand must be distinct from the remaining operands for this operator or function; operator: %s, first operand: %s", op, args[0].path)
}

func checkConditionCall(kind string, x *call) *Error {
	wrongType := func(t string) *Error {
		return invalid(kind, "Incorrect operand type for operator or function; operator or function: %s, operand type: %s", x.name, t)
	}
	switch x.name {
	case "attribute_exists", "attribute_not_exists":
		if x.args[0].kind != opPath {
			return invalid(kind, "Operator or function requires a document path; operator or function: %s", x.name)
		}
	case "begins_with":
		for _, a := range x.args {
			if t := a.staticType(true); t != attr.TypeNone && t != attr.TypeS && t != attr.TypeB {
				return wrongType(t.String())
			}
		}
	case "attribute_type":
		switch t := x.args[1].staticType(true); t {
		case attr.TypeS:
		case attr.TypeNone:
			return wrongType(anyTypeNames)
		default:
			return wrongType(t.String())
		}
		if name := x.args[1].val.S; attr.TypeFromName(name) == attr.TypeNone {
			return invalid(kind, "Invalid attribute type name found; type: %s, valid types: %s", name, validTypeNames)
		}
	case "size":
		switch t := x.args[0].staticType(true); t {
		case attr.TypeN, attr.TypeBOOL, attr.TypeNULL:
			return wrongType(t.String())
		}
	}
	return nil
}

// checkBetween refuses bounds given as values that differ in type or are in
// the wrong order.
func checkBetween(kind string, lo, hi *operand) *Error {
	if lo.kind != opValue || hi.kind != opValue {
		return nil
	}
	bounds := "lower bound operand: AttributeValue: {" + lo.val.T.String() + ":" + scalarText(lo.val) +
		"}, upper bound operand: AttributeValue: {" + hi.val.T.String() + ":" + scalarText(hi.val) + "}"
	if lo.val.T != hi.val.T {
		return invalid(kind, "The BETWEEN operator requires same data type for lower and upper bounds; %s", bounds)
	}
	if c, ok := attr.Compare(lo.val, hi.val); ok && c > 0 {
		return invalid(kind, "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; %s", bounds)
	}
	return nil
}

// scalarText renders a value the way BETWEEN's messages print it.
func scalarText(v attr.Value) string {
	switch v.T {
	case attr.TypeS, attr.TypeN:
		return v.S
	case attr.TypeB:
		return base64.StdEncoding.EncodeToString(v.B)
	case attr.TypeBOOL:
		return strconv.FormatBool(v.Bool)
	case attr.TypeNULL:
		return "true"
	}
	return string(v.AppendJSON(nil))
}
