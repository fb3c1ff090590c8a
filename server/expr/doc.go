// Package expr parses and evaluates DynamoDB expressions: ConditionExpression
// and FilterExpression (ParseCondition), KeyConditionExpression
// (ParseKeyCondition), UpdateExpression (ParseUpdate) and ProjectionExpression
// (ParseProjection), with the real service's error texts.
//
// One request builds one Context from its ExpressionAttributeNames and
// ExpressionAttributeValues, parses each of its expressions against it, then
// calls Context.CheckUnused so that placeholders no expression used are
// refused as the service refuses them.
//
// Every parser works in two steps, like the service: a syntax pass that builds
// a tree (a syntax error names the first token it could not use), then ordered
// semantic passes (reserved words, undefined placeholders, function arity and
// operand types, overlapping paths...). The order of those passes decides which
// message wins when an expression has several faults; it follows the order
// dynalite measured against the service.
//
// All errors are *Error values; the API layer reports them as
// ValidationException. Nothing here panics on any input (see the Fuzz tests).
package expr
