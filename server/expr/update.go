package expr

import (
	"strings"

	"github.com/dynamopg/dynamopg/server/attr"
)

// Update is a parsed UpdateExpression.
type Update struct {
	actions []*action
}

// action is one SET, REMOVE, ADD or DELETE of one path.
type action struct {
	verb   string // SET REMOVE ADD DELETE
	raw    []rawElem
	path   Path
	val    *operand // SET: the value; ADD, DELETE: the :value
	clause int      // index of the clause, to report a repeated one in order
}

// OnlyRemoves reports whether every action removes (REMOVE, DELETE): such
// an update of an item that does not exist creates nothing.
func (u *Update) OnlyRemoves() bool {
	for _, a := range u.actions {
		if a.verb != "REMOVE" && a.verb != "DELETE" {
			return false
		}
	}
	return len(u.actions) > 0
}

var updateKeywords = map[string]bool{"SET": true, "REMOVE": true, "ADD": true, "DELETE": true}

// updateFuncs gives the operand count of each function updates know; + and -
// are checked as two-operand functions.
var updateFuncs = map[string]int{"if_not_exists": 2, "list_append": 2, "+": 2, "-": 2}

// ParseUpdate parses an UpdateExpression.
func ParseUpdate(expr string, ctx *Context) (*Update, error) {
	if err := checkSize(KindUpdate, expr); err != nil {
		return nil, err
	}
	p := newParser(KindUpdate, expr, updateKeywords)
	var u Update
	var clauses []string
	for !p.atEOF() {
		verb, ok := p.clause(&u, len(clauses))
		if !ok {
			return nil, p.syntaxError()
		}
		clauses = append(clauses, verb)
	}
	if err := u.validate(clauses, ctx); err != nil {
		return nil, err
	}
	return &u, nil
}

// clause parses one SET, REMOVE, ADD or DELETE clause with its actions.
func (p *parser) clause(u *Update, n int) (string, bool) {
	t := p.peek()
	verb := strings.ToUpper(t.text)
	if t.kind != tkIdent || !updateKeywords[verb] {
		return "", p.fail()
	}
	p.pos++
	for {
		a := &action{verb: verb, clause: n}
		raw, ok := p.path()
		if !ok {
			return "", false
		}
		a.raw = raw
		switch verb {
		case "SET":
			if !p.punct("=") {
				return "", false
			}
			if a.val, ok = p.setValue(); !ok {
				return "", false
			}
		case "ADD", "DELETE":
			v := p.peek()
			if v.kind != tkValue {
				return "", p.fail()
			}
			p.pos++
			a.val = &operand{kind: opValue, placeholder: v.text}
		}
		u.actions = append(u.actions, a)
		// After an action: a comma, another clause, or the end.
		if !p.punct(",") {
			if p.atEOF() || p.isKeyword(p.peek()) {
				return verb, true
			}
			return "", false
		}
	}
}

// setValue parses operand [(+|-) operand], possibly in parentheses.
func (p *parser) setValue() (*operand, bool) {
	st := p.save()
	if v, ok := p.setArithmetic(); ok {
		return v, true
	}
	p.restore(st)
	if !p.punct("(") {
		return nil, false
	}
	v, ok := p.setArithmetic()
	if !ok || !p.punct(")") {
		p.restore(st)
		return nil, false
	}
	return v, true
}

func (p *parser) setArithmetic() (*operand, bool) {
	left, ok := p.updateOperandParens()
	if !ok {
		return nil, false
	}
	if t := p.peek(); t.kind == tkPunct && (t.text == "+" || t.text == "-") {
		p.pos++
		right, ok := p.updateOperandParens()
		if !ok {
			return nil, false
		}
		return &operand{kind: opCall, call: &call{name: t.text, args: []*operand{left, right}}}, true
	}
	return left, true
}

// updateOperandParens is an operand in at most one pair of parentheses.
func (p *parser) updateOperandParens() (*operand, bool) {
	st := p.save()
	if p.punct("(") {
		o, ok := p.operand()
		if ok && p.punct(")") {
			return o, true
		}
		p.restore(st)
		return nil, false
	}
	return p.operand()
}

// validate runs the semantic checks in the service's order: reserved words,
// unknown functions, repeated clauses, undefined names, undefined values,
// overlapping paths, ADD/DELETE operand types, function operands.
func (u *Update) validate(clauses []string, ctx *Context) *Error {
	var ops []*operand // every operand, in source order
	for _, a := range u.actions {
		ops = append(ops, &operand{kind: opPath, raw: a.raw})
		if a.val != nil {
			a.val.walk(func(o *operand) { ops = append(ops, o) })
		}
	}
	for _, o := range ops {
		if o.kind == opPath {
			if err := checkPathWords(KindUpdate, o.raw); err != nil {
				return err
			}
		}
	}
	calls := u.calls()
	for _, c := range calls {
		if _, ok := updateFuncs[c.name]; !ok {
			return invalid(KindUpdate, "Invalid function name; function: %s", c.name)
		}
	}
	seen := map[string]bool{}
	for _, verb := range clauses {
		if seen[verb] {
			return invalid(KindUpdate, "The \"%s\" section can only be used once in an update expression;", verb)
		}
		seen[verb] = true
	}
	for _, o := range ops {
		if o.kind == opPath {
			p, err := resolvePath(KindUpdate, o.raw, ctx)
			if err != nil {
				return err
			}
			o.path = p
		}
	}
	for _, o := range ops {
		if o.kind == opValue {
			v, ok := ctx.value(o.placeholder)
			if !ok {
				return invalid(KindUpdate, "An expression attribute value used in expression is not defined; attribute value: %s", o.placeholder)
			}
			o.val = v
		}
	}
	// The action paths were resolved as the first operand of each action.
	i := 0
	paths := make([]Path, len(u.actions))
	for j, a := range u.actions {
		a.path = ops[i].path
		paths[j] = a.path
		i++
		if a.val != nil {
			a.val.walk(func(*operand) { i++ })
		}
	}
	if err := checkOverlaps(KindUpdate, paths); err != nil {
		return err
	}
	for _, a := range u.actions {
		if a.verb != "ADD" && a.verb != "DELETE" {
			continue
		}
		t := a.val.val.T
		if name, ok := updateTypeWords[t]; ok && !(a.verb == "ADD" && t == attr.TypeN) {
			return invalid(KindUpdate, "Incorrect operand type for operator or function; operator: %s, operand type: %s", a.verb, name)
		}
	}
	for _, c := range calls {
		if err := checkUpdateCall(c); err != nil {
			return err
		}
	}
	return nil
}

// updateTypeWords are the words ADD and DELETE errors use for value types
// they refuse (sets are never refused at parse time).
var updateTypeWords = map[attr.Type]string{
	attr.TypeS:    "STRING",
	attr.TypeN:    "NUMBER",
	attr.TypeB:    "BINARY",
	attr.TypeNULL: "NULL",
	attr.TypeBOOL: "BOOLEAN",
	attr.TypeL:    "LIST",
	attr.TypeM:    "MAP",
}

// calls lists the SET values' calls, innermost first, in source order.
func (u *Update) calls() []*call {
	var out []*call
	for _, a := range u.actions {
		if a.verb == "SET" && a.val.kind == opCall {
			a.val.call.walkCalls(func(c *call) { out = append(out, c) })
		}
	}
	return out
}

func checkUpdateCall(c *call) *Error {
	if n := updateFuncs[c.name]; n != len(c.args) {
		return invalid(KindUpdate, "Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", c.name, len(c.args))
	}
	switch c.name {
	case "if_not_exists":
		if c.args[0].kind != opPath {
			return invalid(KindUpdate, "Operator or function requires a document path; operator or function: %s", c.name)
		}
	case "list_append", "+", "-":
		want := attr.TypeN
		if c.name == "list_append" {
			want = attr.TypeL
		}
		for _, a := range c.args {
			if t := a.staticType(false); t != attr.TypeNone && t != want {
				return invalid(KindUpdate, "Incorrect operand type for operator or function; operator or function: %s, operand type: %s", c.name, t)
			}
		}
	}
	return nil
}

// Paths returns the paths the update sets, removes, adds to or deletes from,
// in source order: the API layer refuses key attributes among them and
// projects them for UPDATED_OLD and UPDATED_NEW.
func (u *Update) Paths() []Path {
	out := make([]Path, len(u.actions))
	for i, a := range u.actions {
		out[i] = a.path
	}
	return out
}
