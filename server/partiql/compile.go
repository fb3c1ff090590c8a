package partiql

import (
	"strconv"
	"strings"

	"github.com/dynamopg/dynamopg/server/attr"
)

// Texts of the service for values and operators it refuses.
const (
	MsgParamCount      = "Number of parameters in request and statement don't match."
	MsgEmptyBag        = "Empty bags are not supported"
	MsgBagType         = "Unsupported data type in Bag. DynamoDB only supports either numbers or strings in bags"
	MsgMissingCompare  = "MISSING must be compared using IS operator"
	MsgUpdateAction    = "Only SET and REMOVE are supported in update expressions at this time"
	MsgWhereNotBoolean = "WHERE clause must contain an expression that resolves to a boolean"
)

// Compiler turns expressions into DynamoDB expression text, collecting the
// #name and :value placeholders it uses. One Compiler serves one statement.
type Compiler struct {
	params []attr.Value
	Names  map[string]string     // #n0 -> attribute name
	Values map[string]attr.Value // :v0 -> value
	byName map[string]string
}

// NewCompiler returns a compiler binding ? to params (in order).
func NewCompiler(params []attr.Value) *Compiler {
	return &Compiler{params: params, Names: map[string]string{}, Values: map[string]attr.Value{}, byName: map[string]string{}}
}

// NamesOrNil and ValuesOrNil give the maps, nil when empty (the expression
// context refuses empty maps).
func (c *Compiler) NamesOrNil() map[string]string {
	if len(c.Names) == 0 {
		return nil
	}
	return c.Names
}

// ValuesOrNil: see NamesOrNil.
func (c *Compiler) ValuesOrNil() map[string]attr.Value {
	if len(c.Values) == 0 {
		return nil
	}
	return c.Values
}

func (c *Compiler) name(n string) string {
	if ph, ok := c.byName[n]; ok {
		return ph
	}
	ph := "#n" + strconv.Itoa(len(c.byName))
	c.byName[n] = ph
	c.Names[ph] = n
	return ph
}

func (c *Compiler) value(v attr.Value) string {
	ph := ":v" + strconv.Itoa(len(c.Values))
	c.Values[ph] = v
	return ph
}

// Path renders a document path with name placeholders.
func (c *Compiler) Path(p Path) string {
	var b strings.Builder
	for i, e := range p {
		switch {
		case e.IsIndex:
			b.WriteString("[" + strconv.Itoa(e.Index) + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(c.name(e.Name))
		}
	}
	return b.String()
}

// Projection renders a projection list.
func (c *Compiler) Projection(paths []Path) string {
	parts := make([]string, len(paths))
	for i, p := range paths {
		parts[i] = c.Path(p)
	}
	return strings.Join(parts, ", ")
}

// IsConst reports whether e is a value known without an item.
func IsConst(e Expr) bool {
	switch x := e.(type) {
	case Lit:
		return x.Kind != LitMissing
	case Param:
		return true
	case Neg:
		return IsConst(x.X)
	case ListExpr:
		for _, i := range x.Items {
			if !IsConst(i) {
				return false
			}
		}
		return true
	case BagExpr:
		for _, i := range x.Items {
			if !IsConst(i) {
				return false
			}
		}
		return true
	case MapExpr:
		for _, i := range x.Vals {
			if !IsConst(i) {
				return false
			}
		}
		return true
	}
	return false
}

// Const evaluates a constant expression to an attribute value.
func (c *Compiler) Const(e Expr) (attr.Value, error) {
	switch x := e.(type) {
	case Lit:
		switch x.Kind {
		case LitString:
			return attr.Str(x.Text), nil
		case LitNumber:
			n, err := attr.ParseNumber(x.Text)
			if err != nil {
				return attr.Value{}, &Error{Msg: err.Msg}
			}
			return attr.Num(n), nil
		case LitBool:
			return attr.Bool(x.Bool), nil
		case LitNull:
			return attr.Null(), nil
		}
		return attr.Value{}, &Error{Msg: MsgMissingCompare}
	case Param:
		if x.N >= len(c.params) {
			return attr.Value{}, &Error{Msg: MsgParamCount}
		}
		return c.params[x.N], nil
	case Neg:
		if l, ok := x.X.(Lit); ok && l.Kind == LitNumber {
			return c.Const(Lit{Kind: LitNumber, Text: "-" + l.Text})
		}
		v, err := c.Const(x.X)
		if err != nil {
			return attr.Value{}, err
		}
		if v.T != attr.TypeN {
			return attr.Value{}, &Error{Msg: "Unsupported operator in Condition Expression. Operator: -"}
		}
		n, aerr := attr.AddNumbers("0", v.S, true)
		if aerr != nil {
			return attr.Value{}, &Error{Msg: aerr.Msg}
		}
		return attr.Num(n), nil
	case ListExpr:
		l := make([]attr.Value, len(x.Items))
		for i, it := range x.Items {
			v, err := c.Const(it)
			if err != nil {
				return attr.Value{}, err
			}
			l[i] = v
		}
		return attr.List(l), nil
	case MapExpr:
		m := make(map[string]attr.Value, len(x.Keys))
		for i, k := range x.Keys {
			kv, err := c.Const(k)
			if err != nil {
				return attr.Value{}, err
			}
			if kv.T != attr.TypeS {
				return attr.Value{}, &Error{Msg: "Tuple keys must be of type String. Actual type: " + kv.T.String() + " under root"}
			}
			v, err := c.Const(x.Vals[i])
			if err != nil {
				return attr.Value{}, err
			}
			if _, dup := m[kv.S]; dup {
				return attr.Value{}, &Error{Msg: "Duplicate keys in tuple. Key: " + kv.S + " under root"}
			}
			m[kv.S] = v
		}
		return attr.Map(m), nil
	case BagExpr:
		if len(x.Items) == 0 {
			return attr.Value{}, &Error{Msg: MsgEmptyBag}
		}
		var t attr.Type
		seen := map[string]bool{}
		var strs []string
		var bins [][]byte
		for _, it := range x.Items {
			v, err := c.Const(it)
			if err != nil {
				return attr.Value{}, err
			}
			if v.T != attr.TypeS && v.T != attr.TypeN && v.T != attr.TypeB {
				return attr.Value{}, &Error{Msg: MsgBagType}
			}
			if t != attr.TypeNone && v.T != t {
				return attr.Value{}, &Error{Msg: MsgBagType}
			}
			t = v.T
			k := v.S
			if v.T == attr.TypeB {
				k = string(v.B)
			}
			if seen[k] {
				continue
			}
			seen[k] = true
			if v.T == attr.TypeB {
				bins = append(bins, v.B)
			} else {
				strs = append(strs, v.S)
			}
		}
		var set attr.Value
		switch t {
		case attr.TypeS:
			set = attr.Value{T: attr.TypeSS, Strs: strs}
		case attr.TypeN:
			set = attr.Value{T: attr.TypeNS, Strs: strs}
		default:
			set = attr.Value{T: attr.TypeBS, Bins: bins}
		}
		attr.SortSet(&set)
		return set, nil
	}
	return attr.Value{}, &Error{Msg: MsgWhereNotBoolean}
}

// operand renders a condition operand: a path, a value or size(path).
func (c *Compiler) operand(e Expr) (string, error) {
	switch x := e.(type) {
	case PathExpr:
		return c.Path(x.Path), nil
	case Call:
		if x.Name == "size" && len(x.Args) == 1 {
			a, err := c.operand(x.Args[0])
			if err != nil {
				return "", err
			}
			return "size(" + a + ")", nil
		}
		return "", &Error{Msg: "Unrecognized function: " + x.Name}
	case Binary:
		return "", &Error{Msg: "Unsupported operator in Condition Expression. Operator: " + x.Op}
	}
	if !IsConst(e) {
		if l, ok := e.(Lit); ok && l.Kind == LitMissing {
			return "", &Error{Msg: MsgMissingCompare}
		}
		return "", &Error{Msg: MsgWhereNotBoolean}
	}
	v, err := c.Const(e)
	if err != nil {
		return "", err
	}
	return c.value(v), nil
}

// typeNames maps IS type names to DynamoDB types.
var typeNames = map[string][]string{
	"NULL": {"NULL"}, "BOOLEAN": {"BOOL"}, "BOOL": {"BOOL"}, "STRING": {"S"}, "NUMERIC": {"N"},
	"DECIMAL": {"N"}, "INT": {"N"}, "INTEGER": {"N"}, "FLOAT": {"N"}, "DOUBLE": {"N"},
	"BLOB": {"B"}, "LIST": {"L"}, "STRUCT": {"M"}, "TUPLE": {"M"},
}

// Condition renders a condition (WHERE) as ConditionExpression text.
func (c *Compiler) Condition(e Expr) (string, error) {
	switch x := e.(type) {
	case Binary:
		switch x.Op {
		case "AND", "OR":
			l, err := c.Condition(x.L)
			if err != nil {
				return "", err
			}
			r, err := c.Condition(x.R)
			if err != nil {
				return "", err
			}
			return "(" + l + ") " + x.Op + " (" + r + ")", nil
		case "+", "-":
			return "", &Error{Msg: MsgWhereNotBoolean}
		}
		l, err := c.operand(x.L)
		if err != nil {
			return "", err
		}
		r, err := c.operand(x.R)
		if err != nil {
			return "", err
		}
		return l + " " + x.Op + " " + r, nil
	case Not:
		s, err := c.Condition(x.X)
		if err != nil {
			return "", err
		}
		return "NOT (" + s + ")", nil
	case Between:
		v, err := c.operand(x.X)
		if err != nil {
			return "", err
		}
		lo, err := c.operand(x.Lo)
		if err != nil {
			return "", err
		}
		hi, err := c.operand(x.Hi)
		if err != nil {
			return "", err
		}
		s := v + " BETWEEN " + lo + " AND " + hi
		if x.Not {
			s = "NOT (" + s + ")"
		}
		return s, nil
	case In:
		if _, ok := x.X.(PathExpr); !ok || len(x.List) == 0 {
			return "", &Error{Msg: "IN operator must have a left hand argument of type Variable Reference and right hand argument of type Seq with at least one member"}
		}
		v, err := c.operand(x.X)
		if err != nil {
			return "", err
		}
		parts := make([]string, len(x.List))
		for i, it := range x.List {
			if parts[i], err = c.operand(it); err != nil {
				return "", err
			}
		}
		s := v + " IN (" + strings.Join(parts, ", ") + ")"
		if x.Not {
			s = "NOT (" + s + ")"
		}
		return s, nil
	case Is:
		pe, ok := x.X.(PathExpr)
		if !ok {
			return "", &Error{Msg: "The left hand side argument to IS must be a Variable Reference, Literal, or Path"}
		}
		p := c.Path(pe.Path)
		var s string
		if x.Type == "MISSING" {
			if x.Not {
				return "attribute_exists(" + p + ")", nil
			}
			return "attribute_not_exists(" + p + ")", nil
		}
		names, ok := typeNames[x.Type]
		if !ok {
			return "", &Error{Msg: "Unsupported data type for IS operator: " + x.Type + ". Supported data types are [MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]"}
		}
		s = "attribute_type(" + p + ", " + c.value(attr.Str(names[0])) + ")"
		if x.Not {
			s = "NOT (" + s + ")"
		}
		return s, nil
	case Call:
		switch x.Name {
		case "begins_with", "contains", "attribute_type":
			if len(x.Args) != 2 {
				return "", &Error{Msg: "Incorrect number of arguments for function: " + x.Name}
			}
		case "attribute_exists", "attribute_not_exists", "missing":
			if len(x.Args) != 1 {
				return "", &Error{Msg: "Incorrect number of arguments for function: " + x.Name}
			}
		default:
			return "", &Error{Msg: "Unrecognized function: " + x.Name}
		}
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			s, err := c.operand(a)
			if err != nil {
				return "", err
			}
			args[i] = s
		}
		name := x.Name
		if name == "missing" {
			name = "attribute_not_exists"
		}
		return name + "(" + strings.Join(args, ", ") + ")", nil
	case Lit:
		if x.Kind == LitBool {
			// TRUE / FALSE as a whole condition.
			return "", &Error{Msg: MsgWhereNotBoolean}
		}
	}
	return "", &Error{Msg: MsgWhereNotBoolean}
}

// Update renders UPDATE's SET and REMOVE as UpdateExpression text.
// set_add and set_delete become ADD and DELETE.
func (c *Compiler) Update(sets []Assign, removes []Path) (string, error) {
	var set, add, del, rem []string
	for _, a := range sets {
		p := c.Path(a.Path)
		if call, ok := a.Value.(Call); ok && (call.Name == "set_add" || call.Name == "set_delete") {
			op := strings.ToUpper(call.Name[4:])
			if len(call.Args) != 2 {
				return "", &Error{Msg: "SET_" + op + " must have exactly two arguments"}
			}
			first, ok := call.Args[0].(PathExpr)
			if !ok || c.Path(first.Path) != p {
				return "", &Error{Msg: "The first argument to SET_" + op + " must equal the assignment value"}
			}
			if !IsConst(call.Args[1]) {
				return "", &Error{Msg: "The second argument to SET_" + op + " must be a value with type SET"}
			}
			v, err := c.Const(call.Args[1])
			if err != nil {
				return "", err
			}
			if !v.IsSet() {
				return "", &Error{Msg: "The second argument to SET_" + op + " must be a value with type SET"}
			}
			if op == "ADD" {
				add = append(add, p+" "+c.value(v))
			} else {
				del = append(del, p+" "+c.value(v))
			}
			continue
		}
		v, err := c.updateValue(a.Value)
		if err != nil {
			return "", err
		}
		set = append(set, p+" = "+v)
	}
	for _, r := range removes {
		rem = append(rem, c.Path(r))
	}
	var parts []string
	if len(set) > 0 {
		parts = append(parts, "SET "+strings.Join(set, ", "))
	}
	if len(rem) > 0 {
		parts = append(parts, "REMOVE "+strings.Join(rem, ", "))
	}
	if len(add) > 0 {
		parts = append(parts, "ADD "+strings.Join(add, ", "))
	}
	if len(del) > 0 {
		parts = append(parts, "DELETE "+strings.Join(del, ", "))
	}
	return strings.Join(parts, " "), nil
}

// updateValue renders a SET value: a value, a path, a + b, a - b,
// list_append(a, b), if_not_exists(path, v).
func (c *Compiler) updateValue(e Expr) (string, error) {
	switch x := e.(type) {
	case PathExpr:
		return c.Path(x.Path), nil
	case Binary:
		if x.Op != "+" && x.Op != "-" {
			return "", &Error{Msg: "Unsupported operator in Update Expression. Operator: " + x.Op}
		}
		l, err := c.updateValue(x.L)
		if err != nil {
			return "", err
		}
		r, err := c.updateValue(x.R)
		if err != nil {
			return "", err
		}
		return l + " " + x.Op + " " + r, nil
	case Call:
		switch x.Name {
		case "list_append", "if_not_exists":
			if len(x.Args) != 2 {
				return "", &Error{Msg: "Incorrect number of arguments for function: " + x.Name}
			}
			a, err := c.updateValue(x.Args[0])
			if err != nil {
				return "", err
			}
			b, err := c.updateValue(x.Args[1])
			if err != nil {
				return "", err
			}
			return x.Name + "(" + a + ", " + b + ")", nil
		}
		return "", &Error{Msg: "Unrecognized function: " + x.Name}
	case Is, In, Between, Not:
		return "", &Error{Msg: "IS operator is not supported in update expressions"}
	}
	v, err := c.Const(e)
	if err != nil {
		return "", err
	}
	return c.value(v), nil
}

// Conjuncts splits a condition on its top-level ANDs.
func Conjuncts(e Expr) []Expr {
	if b, ok := e.(Binary); ok && b.Op == "AND" {
		return append(Conjuncts(b.L), Conjuncts(b.R)...)
	}
	if e == nil {
		return nil
	}
	return []Expr{e}
}

// KeyCond is a condition of the WHERE on one top-level attribute, usable
// as a key condition: Op is = < <= > >= BETWEEN BEGINS_WITH.
type KeyCond struct {
	Name   string
	Op     string
	Values []attr.Value
}

// KeyConds returns the top-level AND conditions that compare one
// attribute with constants, in order; names is the attributes wanted.
func (c *Compiler) KeyConds(where Expr, names ...string) ([]KeyCond, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	flip := map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
	var out []KeyCond
	attrOf := func(e Expr) (string, bool) {
		pe, ok := e.(PathExpr)
		if !ok || len(pe.Path) != 1 || !want[pe.Path[0].Name] {
			return "", false
		}
		return pe.Path[0].Name, true
	}
	for _, cj := range Conjuncts(where) {
		switch x := cj.(type) {
		case Binary:
			op, ok := flip[x.Op]
			if !ok {
				continue
			}
			if n, ok := attrOf(x.L); ok && IsConst(x.R) {
				v, err := c.Const(x.R)
				if err != nil {
					return nil, err
				}
				out = append(out, KeyCond{Name: n, Op: x.Op, Values: []attr.Value{v}})
			} else if n, ok := attrOf(x.R); ok && IsConst(x.L) {
				v, err := c.Const(x.L)
				if err != nil {
					return nil, err
				}
				out = append(out, KeyCond{Name: n, Op: op, Values: []attr.Value{v}})
			}
		case Between:
			if n, ok := attrOf(x.X); ok && !x.Not && IsConst(x.Lo) && IsConst(x.Hi) {
				lo, err := c.Const(x.Lo)
				if err != nil {
					return nil, err
				}
				hi, err := c.Const(x.Hi)
				if err != nil {
					return nil, err
				}
				out = append(out, KeyCond{Name: n, Op: "BETWEEN", Values: []attr.Value{lo, hi}})
			}
		case Call:
			if x.Name == "begins_with" && len(x.Args) == 2 {
				if n, ok := attrOf(x.Args[0]); ok && IsConst(x.Args[1]) {
					v, err := c.Const(x.Args[1])
					if err != nil {
						return nil, err
					}
					out = append(out, KeyCond{Name: n, Op: "BEGINS_WITH", Values: []attr.Value{v}})
				}
			}
		}
	}
	return out, nil
}

// CheckParams refuses fewer parameters than the statement's ? (the service
// accepts more).
func (st *Statement) CheckParams(n int) error {
	if n < st.Params {
		return &Error{Msg: MsgParamCount}
	}
	return nil
}
