package expr

import (
	"strings"
	"unicode/utf8"
)

type tokKind uint8

const (
	tkEOF     tokKind = iota
	tkSpace           // a run of blanks; kept because syntax errors quote it
	tkIdent           // [A-Za-z][A-Za-z0-9_]*
	tkName            // #[A-Za-z0-9_]*
	tkValue           // :[A-Za-z0-9_]*
	tkNumber          // [0-9]+, only valid as a list index
	tkPunct           // ( ) [ ] , . = <> < <= > >= + -
	tkInvalid         // any other character, one rune
)

type token struct {
	kind tokKind
	text string
}

func isSpace(c byte) bool     { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isLetter(c byte) bool    { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isIdentPart(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' }

// lex splits s into tokens, whitespace included. It never fails: characters
// outside the grammar become tkInvalid tokens for the parser to report.
func lex(s string) []token {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		j := i + 1
		kind := tkPunct
		switch {
		case isSpace(c):
			for j < len(s) && isSpace(s[j]) {
				j++
			}
			kind = tkSpace
		case isLetter(c):
			for j < len(s) && isIdentPart(s[j]) {
				j++
			}
			kind = tkIdent
		case c == '#' || c == ':':
			for j < len(s) && isIdentPart(s[j]) {
				j++
			}
			kind = tkName
			if c == ':' {
				kind = tkValue
			}
		case isDigit(c):
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			kind = tkNumber
		case c == '<':
			if j < len(s) && (s[j] == '=' || s[j] == '>') {
				j++
			}
		case c == '>':
			if j < len(s) && s[j] == '=' {
				j++
			}
		case strings.IndexByte("()[],.=+-", c) >= 0:
		default:
			_, n := utf8.DecodeRuneInString(s[i:])
			j = i + n
			kind = tkInvalid
		}
		out = append(out, token{kind: kind, text: s[i:j]})
		i = j
	}
	return out
}
