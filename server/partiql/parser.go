package partiql

import (
	"strconv"
	"strings"
)

// Texts of statements the service parses but refuses.
const (
	MsgAliasing = "Aliasing is not supported"
	// The FROM path's refusals, before the table is looked up (measured:
	// nubo-db/dynamodb-conformance tests/tier3/error-messages/partiqlIndexQualifier).
	MsgEmptyPathComponent = "Path component cannot be an empty string"
	MsgPathComponents     = "A path may contain at most 2 components in the FROM clause"
	// An index qualifier: ungrammatical on INSERT, refused on UPDATE and
	// DELETE once parsed (measured by a conformance suite).
	MsgInsertIndex     = "FROM clause may only contain a single table name"
	MsgWriteOnIndex    = "This operation is not supported on an index"
	MsgInsertMultiple  = "Unsupported operation: Inserting multiple items in a single statement is not supported, use \"INSERT INTO tableName VALUE item\" instead"
	MsgReturningInsert = "RETURNING is not supported in INSERT"
	MsgStarAndOthers   = "Other attributes should not be present in the projection when '*' is used."
	MsgReturningSyntax = "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING clause"
	MsgIncompleteKey   = "Where clause does not contain a mandatory equality on all key attributes"
)

// maxDepth bounds nesting, so that no input can exhaust the stack.
const maxDepth = 100

type parser struct {
	toks   []token
	pos    int
	params int // ? seen so far
	depth  int
}

// Parse parses one statement (a trailing semicolon is allowed).
func Parse(s string) (*Statement, error) {
	toks, _, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	st, perr := p.statement()
	if perr != nil {
		return nil, perr
	}
	p.punct(";")
	if p.peek().kind != tEOF {
		return nil, syntaxErr(detailLeftover)
	}
	if st.Index != "" && (st.Kind == Update || st.Kind == Delete) {
		return nil, &Error{Msg: MsgWriteOnIndex}
	}
	st.Params = p.params
	return st, nil
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) isKw(kw string) bool {
	t := p.peek()
	return t.kind == tIdent && strings.EqualFold(t.text, kw)
}

func (p *parser) kw(kw string) bool {
	if p.isKw(kw) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tPunct && t.text == s
}

func (p *parser) punct(s string) bool {
	if p.isPunct(s) {
		p.pos++
		return true
	}
	return false
}

// unexpected is the syntax error for the token at hand where a term
// should start.
func (p *parser) unexpected() *Error {
	t := p.peek()
	switch {
	case t.kind == tEOF || (t.kind == tPunct && t.text == ";"):
		return syntaxErr(detailUnexpectedTerm)
	case t.kind == tIdent && operatorWords[strings.ToUpper(t.text)]:
		return syntaxErr(detailUnexpectedOperator)
	case t.kind == tIdent && keywords[strings.ToUpper(t.text)]:
		return syntaxErr(detailUnexpectedKeyword)
	case t.kind == tPunct && strings.Contains("=<>!=<=>=+*/%||", t.text) && t.text != "<<":
		return syntaxErr(detailUnexpectedOperator)
	}
	return syntaxErr(detailUnexpectedTerm)
}

func (p *parser) statement() (*Statement, *Error) {
	switch {
	case p.kw("SELECT"):
		return p.selectStmt()
	case p.kw("INSERT"):
		return p.insertStmt()
	case p.kw("UPDATE"):
		return p.updateStmt()
	case p.kw("DELETE"):
		return p.deleteStmt()
	case p.isKw("EXISTS"):
		p.pos++
		if !p.punct("(") || !p.kw("SELECT") {
			return nil, syntaxErr(detailUnexpectedTerm)
		}
		st, err := p.selectStmt()
		if err != nil {
			return nil, err
		}
		if !p.punct(")") {
			return nil, syntaxErr(detailUnexpectedTerm)
		}
		st.Kind = Exists
		return st, nil
	}
	if p.peek().kind == tEOF {
		return nil, syntaxErr(detailUnexpectedTerm)
	}
	return nil, syntaxErr(detailExpectedDML)
}

// name reads an identifier: bare or double-quoted.
func (p *parser) name() (string, bool) {
	t := p.peek()
	switch t.kind {
	case tQIdent:
		p.pos++
		return t.text, true
	case tIdent:
		if keywords[strings.ToUpper(t.text)] {
			return "", false
		}
		p.pos++
		return t.text, true
	}
	return "", false
}

// source reads FROM's "table" or "table"."index", and refuses an alias.
func (p *parser) source(st *Statement, allowIndex bool, missing string) *Error {
	n, ok := p.name()
	if !ok {
		return syntaxErr(missing)
	}
	if n == "" {
		return &Error{Msg: MsgEmptyPathComponent}
	}
	st.Table = n
	if allowIndex && p.punct(".") {
		ix, ok := p.name()
		if !ok {
			return syntaxErr(detailUnexpectedTerm)
		}
		if ix == "" {
			return &Error{Msg: MsgEmptyPathComponent}
		}
		st.Index = ix
		if p.isPunct(".") {
			return &Error{Msg: MsgPathComponents}
		}
	}
	if p.isKw("AS") {
		return &Error{Msg: MsgAliasing}
	}
	if t := p.peek(); t.kind == tQIdent || (t.kind == tIdent && !keywords[strings.ToUpper(t.text)]) {
		return &Error{Msg: MsgAliasing}
	}
	return nil
}

func (p *parser) selectStmt() (*Statement, *Error) {
	st := &Statement{Kind: Select}
	if p.punct("*") {
		st.Star = true
	} else {
		for {
			path, err := p.path()
			if err != nil {
				return nil, err
			}
			st.Projection = append(st.Projection, path)
			if !p.punct(",") {
				break
			}
			if p.isPunct("*") {
				return nil, &Error{Msg: MsgStarAndOthers}
			}
		}
	}
	if st.Star && p.isPunct(",") {
		return nil, &Error{Msg: MsgStarAndOthers}
	}
	if !p.kw("FROM") {
		return nil, p.unexpected()
	}
	if err := p.source(st, true, detailUnexpectedTerm); err != nil {
		return nil, err
	}
	if p.kw("WHERE") {
		w, err := p.expr()
		if err != nil {
			return nil, err
		}
		st.Where = w
	}
	if p.kw("ORDER") {
		if !p.kw("BY") {
			return nil, p.unexpected()
		}
		for {
			n, ok := p.name()
			if !ok {
				return nil, p.unexpected()
			}
			o := Order{Name: n}
			if p.kw("DESC") {
				o.Desc = true
			} else {
				p.kw("ASC")
			}
			st.OrderBy = append(st.OrderBy, o)
			if !p.punct(",") {
				break
			}
		}
	}
	return st, nil
}

func (p *parser) insertStmt() (*Statement, *Error) {
	st := &Statement{Kind: Insert}
	if !p.kw("INTO") {
		return nil, p.unexpected()
	}
	n, ok := p.name()
	if !ok {
		return nil, syntaxErr(detailExpectedIdentifier)
	}
	st.Table = n
	if p.isPunct(".") {
		return nil, &Error{Msg: MsgInsertIndex}
	}
	switch {
	case p.kw("VALUE"):
	case p.isKw("VALUES") || p.isPunct("("):
		return nil, &Error{Msg: MsgInsertMultiple}
	default:
		return nil, syntaxErr(detailLeftover)
	}
	v, err := p.primary()
	if err != nil {
		return nil, err
	}
	st.Value = v
	if p.isKw("RETURNING") {
		return nil, &Error{Msg: MsgReturningInsert}
	}
	return st, nil
}

func (p *parser) updateStmt() (*Statement, *Error) {
	st := &Statement{Kind: Update}
	if err := p.source(st, true, detailExpectedIdentifier); err != nil {
		return nil, err
	}
	for {
		switch {
		case p.kw("SET"):
			for {
				path, err := p.path()
				if err != nil {
					return nil, err
				}
				if !p.punct("=") {
					return nil, p.unexpected()
				}
				v, err := p.additive()
				if err != nil {
					return nil, err
				}
				st.Sets = append(st.Sets, Assign{Path: path, Value: v})
				if !p.punct(",") {
					break
				}
			}
			continue
		case p.kw("REMOVE"):
			for {
				path, err := p.path()
				if err != nil {
					return nil, err
				}
				st.Removes = append(st.Removes, path)
				if !p.punct(",") {
					break
				}
			}
			continue
		}
		break
	}
	if len(st.Sets) == 0 && len(st.Removes) == 0 {
		return nil, p.unexpected()
	}
	if !p.kw("WHERE") {
		if p.peek().kind == tEOF || p.isPunct(";") {
			return nil, &Error{Msg: MsgIncompleteKey}
		}
		return nil, syntaxErr(detailLeftover)
	}
	w, err := p.expr()
	if err != nil {
		return nil, err
	}
	st.Where = w
	return st, p.returning(st)
}

func (p *parser) deleteStmt() (*Statement, *Error) {
	st := &Statement{Kind: Delete}
	if !p.kw("FROM") {
		return nil, p.unexpected()
	}
	if err := p.source(st, true, detailExpectedIdentifier); err != nil {
		return nil, err
	}
	if !p.kw("WHERE") {
		if p.peek().kind == tEOF || p.isPunct(";") {
			return nil, &Error{Msg: MsgIncompleteKey}
		}
		return nil, syntaxErr(detailLeftover)
	}
	w, err := p.expr()
	if err != nil {
		return nil, err
	}
	st.Where = w
	return st, p.returning(st)
}

// returning reads RETURNING (ALL|MODIFIED) (OLD|NEW) *.
func (p *parser) returning(st *Statement) *Error {
	if !p.kw("RETURNING") {
		return nil
	}
	var a, b string
	switch {
	case p.kw("ALL"):
		a = "ALL"
	case p.kw("MODIFIED"):
		a = "MODIFIED"
	default:
		return p.unexpected()
	}
	switch {
	case p.kw("OLD"):
		b = "OLD"
	case p.kw("NEW"):
		b = "NEW"
	default:
		return p.unexpected()
	}
	if !p.punct("*") {
		return &Error{Msg: MsgReturningSyntax}
	}
	st.Returning = a + " " + b
	return nil
}

// path reads a document path: name { .name | [n] }.
func (p *parser) path() (Path, *Error) {
	n, ok := p.name()
	if !ok {
		return nil, p.unexpected()
	}
	path := Path{{Name: n}}
	for {
		switch {
		case p.punct("."):
			n, ok := p.name()
			if !ok {
				return nil, syntaxErr(detailExpectedIdentifier)
			}
			path = append(path, PathElem{Name: n})
		case p.isPunct("["):
			p.pos++
			t := p.next()
			idx, err := strconv.Atoi(t.text)
			if t.kind != tNumber || err != nil || idx < 0 {
				return nil, syntaxErr(detailUnexpectedTerm)
			}
			if !p.punct("]") {
				return nil, syntaxErr(detailUnexpectedTerm)
			}
			path = append(path, PathElem{Index: idx, IsIndex: true})
		default:
			return path, nil
		}
	}
}

// expr := or
func (p *parser) expr() (Expr, *Error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, syntaxErr(detailUnexpectedTerm)
	}
	return p.or()
}

func (p *parser) or() (Expr, *Error) { return p.chain("OR", p.and) }

func (p *parser) and() (Expr, *Error) { return p.chain("AND", p.not) }

// chain parses operands of the next level joined by the keyword op, left
// associative; an op with nothing after it is a missing right-hand side.
func (p *parser) chain(op string, operand func() (Expr, *Error)) (Expr, *Error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for p.kw(op) {
		if t := p.peek(); t.kind == tEOF || p.isPunct(";") {
			return nil, syntaxErr(detailMissingRHS)
		}
		r, err := operand()
		if err != nil {
			return nil, err
		}
		l = Binary{Op: op, L: l, R: r}
	}
	return l, nil
}

func (p *parser) not() (Expr, *Error) {
	if p.kw("NOT") {
		p.depth++
		defer func() { p.depth-- }()
		if p.depth > maxDepth {
			return nil, syntaxErr(detailUnexpectedTerm)
		}
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return Not{X: x}, nil
	}
	return p.predicate()
}

var comparators = map[string]string{"=": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

func (p *parser) predicate() (Expr, *Error) {
	l, err := p.additive()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	if t.kind == tPunct {
		if op, ok := comparators[t.text]; ok {
			p.pos++
			r, err := p.additive()
			if err != nil {
				return nil, err
			}
			return Binary{Op: op, L: l, R: r}, nil
		}
	}
	not := false
	if p.isKw("NOT") {
		n := p.toks[p.pos+1]
		if n.kind == tIdent && (strings.EqualFold(n.text, "BETWEEN") || strings.EqualFold(n.text, "IN")) {
			p.pos++
			not = true
		}
	}
	switch {
	case p.kw("BETWEEN"):
		lo, err := p.additive()
		if err != nil {
			return nil, err
		}
		if !p.kw("AND") {
			return nil, p.unexpected()
		}
		hi, err := p.additive()
		if err != nil {
			return nil, err
		}
		return Between{X: l, Lo: lo, Hi: hi, Not: not}, nil
	case p.kw("IN"):
		var list []Expr
		closeWith := ""
		switch {
		case p.punct("["):
			closeWith = "]"
		case p.punct("("):
			closeWith = ")"
		default:
			return nil, p.unexpected()
		}
		if !p.punct(closeWith) {
			for {
				v, err := p.additive()
				if err != nil {
					return nil, err
				}
				list = append(list, v)
				if !p.punct(",") {
					break
				}
			}
			if !p.punct(closeWith) {
				return nil, p.unexpected()
			}
		}
		return In{X: l, List: list, Not: not}, nil
	case p.kw("IS"):
		is := Is{X: l}
		if p.kw("NOT") {
			is.Not = true
		}
		t := p.next()
		if t.kind != tIdent {
			return nil, syntaxErr("Expected type name")
		}
		is.Type = strings.ToUpper(t.text)
		switch is.Type {
		case "MISSING", "NULL", "BOOLEAN", "BOOL", "STRING", "NUMERIC", "BLOB", "LIST", "STRUCT", "TUPLE", "DECIMAL", "INT", "INTEGER", "FLOAT", "DOUBLE":
		default:
			return nil, syntaxErr("Expected type name")
		}
		return is, nil
	}
	return l, nil
}

func (p *parser) additive() (Expr, *Error) {
	l, err := p.primary()
	if err != nil {
		return nil, err
	}
	for p.isPunct("+") || p.isPunct("-") {
		op := p.next().text
		if t := p.peek(); t.kind == tEOF {
			return nil, syntaxErr(detailMissingRHS)
		}
		r, err := p.primary()
		if err != nil {
			return nil, err
		}
		l = Binary{Op: op, L: l, R: r}
	}
	return l, nil
}

func (p *parser) primary() (Expr, *Error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, syntaxErr(detailUnexpectedTerm)
	}
	t := p.peek()
	switch t.kind {
	case tString:
		p.pos++
		return Lit{Kind: LitString, Text: t.text}, nil
	case tNumber:
		p.pos++
		return Lit{Kind: LitNumber, Text: t.text}, nil
	case tParam:
		p.pos++
		n := p.params
		p.params++
		return Param{N: n}, nil
	case tQIdent:
		path, err := p.path()
		if err != nil {
			return nil, err
		}
		return PathExpr{Path: path}, nil
	case tIdent:
		up := strings.ToUpper(t.text)
		switch up {
		case "TRUE", "FALSE":
			p.pos++
			return Lit{Kind: LitBool, Bool: up == "TRUE"}, nil
		case "NULL":
			p.pos++
			return Lit{Kind: LitNull}, nil
		case "MISSING":
			p.pos++
			return Lit{Kind: LitMissing}, nil
		}
		if keywords[up] {
			return nil, p.unexpected()
		}
		if n := p.toks[p.pos+1]; n.kind == tPunct && n.text == "(" {
			p.pos += 2
			c := Call{Name: strings.ToLower(t.text)}
			if !p.punct(")") {
				for {
					a, err := p.expr()
					if err != nil {
						return nil, err
					}
					c.Args = append(c.Args, a)
					if !p.punct(",") {
						break
					}
				}
				if !p.punct(")") {
					return nil, p.unexpected()
				}
			}
			return c, nil
		}
		path, err := p.path()
		if err != nil {
			return nil, err
		}
		return PathExpr{Path: path}, nil
	case tPunct:
		switch t.text {
		case "(":
			p.pos++
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			if !p.punct(")") {
				return nil, p.unexpected()
			}
			return x, nil
		case "-":
			p.pos++
			x, err := p.primary()
			if err != nil {
				return nil, err
			}
			return Neg{X: x}, nil
		case "[":
			p.pos++
			items, err := p.items("]")
			if err != nil {
				return nil, err
			}
			return ListExpr{Items: items}, nil
		case "<<":
			p.pos++
			items, err := p.items(">>")
			if err != nil {
				return nil, err
			}
			return BagExpr{Items: items}, nil
		case "{":
			p.pos++
			m := MapExpr{}
			if p.punct("}") {
				return m, nil
			}
			for {
				k, err := p.primary()
				if err != nil {
					return nil, err
				}
				if !p.punct(":") {
					return nil, p.unexpected()
				}
				v, err := p.expr()
				if err != nil {
					return nil, err
				}
				m.Keys = append(m.Keys, k)
				m.Vals = append(m.Vals, v)
				if !p.punct(",") {
					break
				}
			}
			if !p.punct("}") {
				return nil, p.unexpected()
			}
			return m, nil
		}
	}
	return nil, p.unexpected()
}

// items reads a comma-separated list up to the closing punctuation.
func (p *parser) items(closing string) ([]Expr, *Error) {
	items := []Expr{}
	if p.punct(closing) {
		return items, nil
	}
	for {
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		if !p.punct(",") {
			break
		}
	}
	if !p.punct(closing) {
		return nil, p.unexpected()
	}
	return items, nil
}
