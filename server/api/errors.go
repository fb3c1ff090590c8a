package api

import (
	"fmt"
	"net/http"
	"strings"
)

// Error is a service error as the client sees it: its __type (with the
// service's namespace prefix), message and HTTP status. Extra fields (a
// cancelled transaction's reasons, a failed condition's Item) ride along.
type Error struct {
	Type    string
	Message string
	Status  int
	Extra   map[string]any
}

func (e *Error) Error() string { return e.Type + ": " + e.Message }

// Name is the error's short name (after the '#'), as SDKs report it.
func (e *Error) Name() string {
	if i := strings.LastIndexByte(e.Type, '#'); i >= 0 {
		return e.Type[i+1:]
	}
	return e.Type
}

// The service's namespaces for error types.
const (
	nsDynamo   = "com.amazonaws.dynamodb.v20120810#"
	nsValidate = "com.amazon.coral.validate#"
	nsCoral    = "com.amazon.coral.service#"
)

func newErr(ns, name string, status int, msg string) *Error {
	return &Error{Type: ns + name, Message: msg, Status: status}
}

// ValidationError is the service's 400 ValidationException.
func ValidationError(format string, args ...any) *Error {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return newErr(nsValidate, "ValidationException", http.StatusBadRequest, msg)
}

// SerializationError is the service's answer to a body of the wrong shape.
func SerializationError(msg string) *Error {
	return newErr(nsCoral, "SerializationException", http.StatusBadRequest, msg)
}

// UnknownOperationError answers an X-Amz-Target the service does not know.
func UnknownOperationError() *Error {
	return newErr(nsCoral, "UnknownOperationException", http.StatusBadRequest, "")
}

// ResourceNotFoundError is the answer for a missing (or not yet usable) table.
func ResourceNotFoundError() *Error {
	return newErr(nsDynamo, "ResourceNotFoundException", http.StatusBadRequest, "Requested resource not found")
}

// ResourceInUseError refuses an operation on a table in the wrong state.
func ResourceInUseError(msg string) *Error {
	return newErr(nsDynamo, "ResourceInUseException", http.StatusBadRequest, msg)
}

// ConditionalCheckFailedError reports a condition that evaluated false.
func ConditionalCheckFailedError() *Error {
	return newErr(nsDynamo, "ConditionalCheckFailedException", http.StatusBadRequest, "The conditional request failed")
}

// LimitExceededError is the service's LimitExceededException.
func LimitExceededError(msg string) *Error {
	return newErr(nsDynamo, "LimitExceededException", http.StatusBadRequest, msg)
}

// InternalServerError is a real fault on our side (a bug or a database outage).
func InternalServerError() *Error {
	return newErr(nsDynamo, "InternalServerError", http.StatusInternalServerError, "Internal server error")
}

// ThrottlingError is a retryable refusal the SDKs back off on.
func ThrottlingError(msg string) *Error {
	return newErr(nsCoral, "ThrottlingException", http.StatusBadRequest, msg)
}

// constraintErrors collects the service's "N validation errors detected"
// member-constraint failures, in the order they are found.
type constraintErrors struct{ list []string }

// add records one failure; value is the offending value already rendered,
// or "" to print null.
func (c *constraintErrors) add(value *string, path, constraint string) {
	v := "null"
	if value != nil {
		v = "'" + *value + "'"
	}
	c.list = append(c.list, fmt.Sprintf("Value %s at '%s' failed to satisfy constraint: %s", v, path, constraint))
}

// addAt records a failure in the form that names the member but not its
// value, with the member's own (capitalised) name: the service's newer
// validation layer words Query's Limit and BatchGetItem's Keys this way.
func (c *constraintErrors) addAt(path, constraint string) {
	c.list = append(c.list, fmt.Sprintf("Value at '%s' failed to satisfy constraint: %s", path, constraint))
}

func (c *constraintErrors) notNull(present bool, path string) {
	if !present {
		c.add(nil, path, "Member must not be null")
	}
}

// err returns the collected failures as one ValidationException, or nil.
func (c *constraintErrors) err() *Error {
	// The service reports at most 10 failures and counts only those it
	// reports: a Scan with 11 bad members answers "10 validation errors
	// detected" (dynalite test/scan.js, "incorrect attributes").
	if len(c.list) > 10 {
		c.list = c.list[:10]
	}
	n := len(c.list)
	if n == 0 {
		return nil
	}
	plural := "s"
	if n == 1 {
		plural = ""
	}
	return ValidationError("%d validation error%s detected: %s", n, plural, strings.Join(c.list, "; "))
}

func strp(s string) *string { return &s }
