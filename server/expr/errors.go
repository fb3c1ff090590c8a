package expr

import "fmt"

// Error is an expression the service refuses. The API layer reports it as a
// ValidationException with Msg as the message.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errf(format string, a ...any) *Error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// Kinds name the request parameter an expression came from; they prefix most
// messages ("Invalid ConditionExpression: ...").
const (
	KindCondition    = "ConditionExpression"
	KindFilter       = "FilterExpression"
	KindKeyCondition = "KeyConditionExpression"
	KindUpdate       = "UpdateExpression"
	KindProjection   = "ProjectionExpression"
)

// MaxExpressionSize is the service's limit on one expression string, in bytes.
const MaxExpressionSize = 4096

// MaxInOperands is the most operands the right side of IN may have.
const MaxInOperands = 100

// MaxOperators is the most operators (comparisons, BETWEEN, IN, AND, OR,
// NOT; not parentheses, not functions) a condition may have. The service
// says "operator count: 301" whatever the count: it stops at the first one
// too many (alternator's test_deeply_nested_expression_2).
const MaxOperators = 300

// MaxPathDepth is the most elements a document path may have, the
// top-level name included.
const MaxPathDepth = 32

// maxListIndex is the largest list index an expression may name (a Java int).
const maxListIndex = 1<<31 - 1

// Texts of errors found while applying or evaluating, without a kind prefix.
const (
	MsgAttributeMissing  = "The provided expression refers to an attribute that does not exist in the item"
	MsgInvalidUpdatePath = "The document path provided in the update expression is invalid for update"
	MsgIncorrectDataType = "An operand in the update expression has an incorrect data type"
)

// validTypeNames is the list attribute_type's error prints. The service prints
// a Java set, in its own order and without spaces; dynalite's test (checked
// against the service) accepts exactly this shape.
const validTypeNames = "{B,NULL,SS,BOOL,L,BS,N,NS,S,M}"

// anyTypeNames is what the service prints as the operand type of
// attribute_type's second operand when that operand is a document path,
// whose type is unknown before evaluation.
const anyTypeNames = "{NS,SS,L,BS,N,M,B,BOOL,NULL,S}"

// invalid prefixes a message with "Invalid <kind>: ".
func invalid(kind, format string, a ...any) *Error {
	return &Error{Msg: "Invalid " + kind + ": " + fmt.Sprintf(format, a...)}
}

// checkSize applies the checks every expression gets before parsing.
func checkSize(kind, s string) *Error {
	if s == "" {
		return invalid(kind, "The expression can not be empty;")
	}
	if len(s) > MaxExpressionSize {
		return invalid(kind, "Expression size has exceeded the maximum allowed size; expression size: %d", len(s))
	}
	return nil
}
