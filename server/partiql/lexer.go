// Package partiql parses the PartiQL statements DynamoDB accepts
// (ExecuteStatement, BatchExecuteStatement, ExecuteTransaction) into a small
// AST, and compiles their conditions, projections and updates into
// DynamoDB expressions (text with #name and :value placeholders) so that
// the API layer evaluates them with the same code as ConditionExpression,
// ProjectionExpression and UpdateExpression.
package partiql

import (
	"strings"
)

// Error is a statement the service refuses; the API layer reports it as a
// ValidationException with Msg as the message.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// MsgNotWellFormed prefixes every syntax error.
const MsgNotWellFormed = "Statement wasn't well formed, can't be processed: "

// Syntax error details, as the service words them.
const (
	detailUnexpectedTerm     = "Unexpected term"
	detailUnexpectedKeyword  = "Unexpected keyword"
	detailUnexpectedOperator = "Unexpected operator"
	detailMissingRHS         = "Missing right-hand side expression of infix operator"
	detailLeftover           = "Unexpected token after expression"
	detailExpectedIdentifier = "Expected identifier for simple path"
	detailExpectedDML        = "Expected data manipulation"
)

func syntaxErr(detail string) *Error { return &Error{Msg: MsgNotWellFormed + detail} }

type tokKind uint8

const (
	tEOF    tokKind = iota
	tIdent          // bare identifier or keyword
	tQIdent         // "quoted identifier"
	tString         // 'string'
	tNumber
	tPunct
	tParam // ?
)

type token struct {
	kind tokKind
	text string
	pos  int
}

// keywords are words that cannot start a term.
var keywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "AND": true, "OR": true, "NOT": true,
	"BETWEEN": true, "IN": true, "IS": true, "ORDER": true, "BY": true, "ASC": true,
	"DESC": true, "INSERT": true, "INTO": true, "VALUE": true, "VALUES": true,
	"UPDATE": true, "SET": true, "REMOVE": true, "DELETE": true, "RETURNING": true,
	"AS": true, "LIKE": true, "LIMIT": true, "GROUP": true, "HAVING": true,
	"OFFSET": true, "UNION": true, "JOIN": true, "AT": true,
}

// operatorWords are keywords that are infix operators.
var operatorWords = map[string]bool{"AND": true, "OR": true, "BETWEEN": true, "IN": true, "IS": true, "LIKE": true}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }
func isDigit(c byte) bool     { return c >= '0' && c <= '9' }

// lex splits a statement into tokens; comments (-- and /* */) are skipped.
// A character no token starts with, an unterminated string, quoted name or
// comment is a syntax error with nothing after the colon, as the service
// reports it.
func lex(s string) ([]token, int, *Error) {
	var out []token
	params := 0
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, 0, syntaxErr("")
			}
			i += end + 4
		case isIdentStart(c):
			j := i
			for j < len(s) && isIdentPart(s[j]) {
				j++
			}
			out = append(out, token{tIdent, s[i:j], i})
			i = j
		case isDigit(c) || (c == '.' && i+1 < len(s) && isDigit(s[i+1])):
			j := i
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			if j < len(s) && s[j] == '.' {
				j++
				for j < len(s) && isDigit(s[j]) {
					j++
				}
			}
			if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
				k := j + 1
				if k < len(s) && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < len(s) && isDigit(s[k]) {
					for k < len(s) && isDigit(s[k]) {
						k++
					}
					j = k
				}
			}
			out = append(out, token{tNumber, s[i:j], i})
			i = j
		case c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			closed := false
			for j < len(s) {
				if s[j] == c {
					if j+1 < len(s) && s[j+1] == c {
						b.WriteByte(c)
						j += 2
						continue
					}
					closed = true
					j++
					break
				}
				b.WriteByte(s[j])
				j++
			}
			if !closed {
				return nil, 0, syntaxErr("")
			}
			k := tString
			if c == '"' {
				k = tQIdent
			}
			out = append(out, token{k, b.String(), i})
			i = j
		case c == '?':
			out = append(out, token{tParam, "?", i})
			params++
			i++
		default:
			two := ""
			if i+1 < len(s) {
				two = s[i : i+2]
			}
			switch two {
			case "<=", ">=", "<>", "!=", "<<", ">>", "||":
				out = append(out, token{tPunct, two, i})
				i += 2
				continue
			}
			if strings.IndexByte("()[]{},.:;*=<>+-/%", c) < 0 {
				return nil, 0, syntaxErr("")
			}
			out = append(out, token{tPunct, string(c), i})
			i++
		}
	}
	out = append(out, token{tEOF, "", len(s)})
	return out, params, nil
}
