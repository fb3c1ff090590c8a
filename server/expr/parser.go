package expr

import (
	"strconv"
	"strings"
)

// parser is the backtracking recursive-descent machinery the grammars share.
// Alternatives that fail restore pos; the farthest position any alternative
// reached is where the syntax error is reported, which is the first token no
// reading of the expression can use.
type parser struct {
	kind     string
	all      []token // every token, whitespace included, for "near" texts
	sig      []int   // indexes in all of the significant tokens
	pos      int     // index in sig; len(sig) is end of input
	far      int     // farthest failing pos
	keywords map[string]bool
	// redundant records "((x))"; it is part of the backtracking state because
	// an alternative that fails must not leave it set.
	redundant bool
}

type parserState struct {
	pos       int
	redundant bool
}

func newParser(kind, s string, keywords map[string]bool) *parser {
	p := &parser{kind: kind, all: lex(s), keywords: keywords}
	for i, t := range p.all {
		if t.kind != tkSpace {
			p.sig = append(p.sig, i)
		}
	}
	return p
}

func (p *parser) save() parserState      { return parserState{p.pos, p.redundant} }
func (p *parser) restore(st parserState) { p.pos, p.redundant = st.pos, st.redundant }

func (p *parser) peek() token {
	if p.pos >= len(p.sig) {
		return token{kind: tkEOF}
	}
	return p.all[p.sig[p.pos]]
}

// peekAt looks n significant tokens ahead.
func (p *parser) peekAt(n int) token {
	if p.pos+n >= len(p.sig) {
		return token{kind: tkEOF}
	}
	return p.all[p.sig[p.pos+n]]
}

func (p *parser) atEOF() bool { return p.pos >= len(p.sig) }

// fail notes that the current token could not be used and returns false.
func (p *parser) fail() bool {
	if p.pos > p.far {
		p.far = p.pos
	}
	return false
}

// punct consumes the punctuation s if it is next.
func (p *parser) punct(s string) bool {
	if t := p.peek(); t.kind == tkPunct && t.text == s {
		p.pos++
		return true
	}
	return p.fail()
}

// keyword consumes the keyword kw (upper case) if it is next, in any case.
func (p *parser) keyword(kw string) bool {
	if t := p.peek(); t.kind == tkIdent && strings.ToUpper(t.text) == kw {
		p.pos++
		return true
	}
	return p.fail()
}

func (p *parser) isKeyword(t token) bool {
	return t.kind == tkIdent && p.keywords[strings.ToUpper(t.text)]
}

// syntaxError reports the farthest failure: the token and what surrounds it.
// "near" is the token before it (with the blank between, and the token before
// that blank), the token itself, and the token after it (likewise), which is
// the shape the service prints.
func (p *parser) syntaxError() *Error {
	i := len(p.all)
	tok := "<EOF>"
	if p.far < len(p.sig) {
		i = p.sig[p.far]
		tok = p.all[i].text
	}
	var b strings.Builder
	if i-1 >= 0 {
		if p.all[i-1].kind == tkSpace && i-2 >= 0 {
			b.WriteString(p.all[i-2].text)
		}
		b.WriteString(p.all[i-1].text)
	}
	if i < len(p.all) {
		b.WriteString(p.all[i].text)
		if i+1 < len(p.all) {
			b.WriteString(p.all[i+1].text)
			if p.all[i+1].kind == tkSpace && i+2 < len(p.all) {
				b.WriteString(p.all[i+2].text)
			}
		}
	}
	return invalid(p.kind, "Syntax error; token: \"%s\", near: \"%s\"", tok, b.String())
}

// rawElem is one element of a document path as written, before placeholders
// are resolved.
type rawElem struct {
	text    string // identifier, or "#placeholder"
	index   int    // -1: past maxListIndex
	isIndex bool
	// indexText is the index as written, for the out-of-range message.
	indexText string
}

func (e rawElem) isPlaceholder() bool { return !e.isIndex && strings.HasPrefix(e.text, "#") }

// path parses a document path: (ident | #name) ('.' (ident | #name) | '[' n ']')*.
func (p *parser) path() ([]rawElem, bool) {
	first, ok := p.pathName()
	if !ok {
		return nil, false
	}
	out := []rawElem{first}
	for {
		st := p.save()
		switch t := p.peek(); {
		case t.kind == tkPunct && t.text == ".":
			p.pos++
			e, ok := p.pathName()
			if !ok {
				p.restore(st)
				return out, true
			}
			out = append(out, e)
		case t.kind == tkPunct && t.text == "[":
			p.pos++
			n := p.peek()
			if n.kind != tkNumber {
				p.fail()
				p.restore(st)
				return out, true
			}
			ix, err := strconv.Atoi(n.text)
			if err != nil || len(n.text) > 10 || ix > maxListIndex {
				ix = -1 // refused by checkPathWords, in the service's order
			}
			p.pos++
			if !p.punct("]") {
				p.restore(st)
				return out, true
			}
			out = append(out, rawElem{index: ix, isIndex: true, indexText: n.text})
		default:
			return out, true
		}
	}
}

func (p *parser) pathName() (rawElem, bool) {
	t := p.peek()
	if t.kind == tkName || t.kind == tkIdent && !p.isKeyword(t) {
		p.pos++
		return rawElem{text: t.text}, true
	}
	return rawElem{}, p.fail()
}
