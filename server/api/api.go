// Package api owns the DynamoDB operations: request decoding and validation
// with the service's texts, the operations' semantics, and their responses.
// It talks to a database only through the store contract.
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// API serves DynamoDB operations over a store.
type API struct {
	store store.Store
	log   *slog.Logger
	opts  Options
	ops   map[string]handler
	stats *tableStats // ItemCount and TableSizeBytes of large tables, reused
}

// Options are the server settings the operations follow.
type Options struct {
	// IndexPropagation is the propagation mode given to new secondary
	// indexes: store.PropagationSync (default) or store.PropagationAsync.
	IndexPropagation string
}

// handler runs one operation on a decoded request context.
type handler func(ctx context.Context, r *Request) (any, error)

// Request is one call: its body and what the transport learned about it.
type Request struct {
	Body   []byte
	Region string
	// Host is the address the client reached this server at (DescribeEndpoints).
	Host string
}

// NoBody is the result of an operation the service answers with an empty
// body (TagResource, UntagResource): no JSON at all, not even {}.
type NoBody struct{}

// New returns the API over st.
func New(st store.Store, log *slog.Logger, opts Options) *API {
	if opts.IndexPropagation == "" {
		opts.IndexPropagation = store.PropagationSync
	}
	a := &API{store: st, log: log, opts: opts, stats: newTableStats()}
	a.ops = map[string]handler{
		"CreateTable":        a.createTable,
		"DescribeTable":      a.describeTable,
		"ListTables":         a.listTables,
		"DeleteTable":        a.deleteTable,
		"UpdateTable":        a.updateTable,
		"PutItem":            a.putItem,
		"GetItem":            a.getItem,
		"DeleteItem":         a.deleteItem,
		"UpdateItem":         a.updateItem,
		"Query":              a.query,
		"Scan":               a.scan,
		"BatchGetItem":       a.batchGetItem,
		"BatchWriteItem":     a.batchWriteItem,
		"TransactWriteItems": a.transactWriteItems,
		"TransactGetItems":   a.transactGetItems,
		"TagResource":        a.tagResource,
		"UntagResource":      a.untagResource,
		"ListTagsOfResource": a.listTagsOfResource,
		"UpdateTimeToLive":   a.updateTimeToLive,
		"DescribeTimeToLive": a.describeTimeToLive,
		"DescribeLimits":     a.describeLimits,
		"DescribeEndpoints":  a.describeEndpoints,
	}
	a.ops["ExecuteStatement"] = a.executeStatement
	a.ops["BatchExecuteStatement"] = a.batchExecuteStatement
	a.ops["ExecuteTransaction"] = a.executeTransaction
	a.ops["DescribeContinuousBackups"] = a.describeContinuousBackups
	a.ops["UpdateContinuousBackups"] = a.updateContinuousBackups
	return a
}

// Operations lists the operations this API serves.
func (a *API) Operations() []string {
	out := make([]string, 0, len(a.ops))
	for k := range a.ops {
		out = append(out, k)
	}
	return out
}

// Call runs the named operation. The result is JSON-encodable; errors are
// *Error (client errors and mapped faults) or other errors (server faults).
func (a *API) Call(ctx context.Context, op string, r *Request) (any, error) {
	h, ok := a.ops[op]
	if !ok {
		return nil, UnknownOperationError()
	}
	if err := checkBody(r.Body); err != nil {
		return nil, err
	}
	resolved := *r
	resolved.Body = resolveTableARN(op, r.Body)
	return a.callWithTables(ctx, h, &resolved)
}

// decode unmarshals a request body, translating decoding failures into the
// service's SerializationException or ValidationException.
func decode(body []byte, v any) error {
	if fastDecode(body, v) {
		return nil
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	err := json.Unmarshal(body, v)
	if err == nil {
		return nil
	}
	var ae *attr.Error
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// Not JSON: the service's SerializationException has no message.
		return SerializationError("")
	case errors.As(err, &ae):
		if ae.Serialization {
			return SerializationError(ae.Msg)
		}
		return ValidationError("%s", ae.Msg)
	case errors.As(err, &te):
		return SerializationError(typeErrorText(te))
	default:
		return SerializationError("")
	}
}

// typeErrorText renders a JSON type mismatch the way the service's Java
// deserializer words it.
func typeErrorText(te *json.UnmarshalTypeError) string {
	from := map[string]string{"string": "java.lang.String", "number": "java.lang.Long", "bool": "java.lang.Boolean"}[te.Value]
	switch te.Value {
	case "array":
		return "Start of list found where not expected"
	case "object":
		return "Start of structure or map found where not expected."
	}
	to := "String"
	switch te.Type.Kind().String() {
	case "int64", "int", "int32":
		to = "Long"
	case "bool":
		to = "Boolean"
	case "slice":
		return "Expected list or null"
	case "map", "struct":
		return "Expected map or null"
	}
	if from == "" {
		from = "java.lang.Object"
	}
	return fmt.Sprintf("class %s can not be converted to an %s", from, to)
}

// storeErr maps store sentinel errors to the service's errors; anything else
// is a server fault and is returned wrapped for the transport to log.
func storeErr(err error, what string) error {
	var apiErr *Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &apiErr):
		return apiErr
	case errors.Is(err, store.ErrTableNotFound):
		return ResourceNotFoundError()
	case errors.Is(err, store.ErrStaleTable):
		return store.ErrStaleTable // Call runs the request again
	case errors.Is(err, store.ErrConflict):
		return newErr(nsDynamo, "TransactionConflictException", 400, "Transaction is ongoing for the item")
	case errors.Is(err, store.ErrCollectionFull):
		return ItemCollectionSizeLimitExceededError()
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
