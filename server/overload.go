package server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dynamopg/dynamopg/server/api"
)

// Server-side failures and what the client may conclude from them. The
// SDKs retry a ThrottlingException, a 503 and a 500 alike, but they mean
// different things to a client that keeps its own books: a throttled
// request and a 503 applied nothing and are safe to send again; a 500 is
// the service's "the outcome is unknown", which a client must resolve (read
// the item, use a ClientRequestToken) before it counts the write as lost.
// So a write that may have reached the database is never answered with a
// throttle or a 503:
//
//   - out of time (the request deadline) with nothing applied, that is,
//     while waiting for a pool connection or an in-process lock, or in a
//     statement the database confirms it cancelled: ThrottlingException;
//   - the database unreachable before anything was sent (no connection,
//     a send that wrote nothing): ServiceUnavailable (503);
//   - a write whose statement or COMMIT was sent and got no answer (the
//     connection reset, an unexpected EOF, 57P01 on an immediate shutdown,
//     the deadline while a statement ran): InternalServerError (500);
//   - a read cannot have applied anything: out of time it is throttled,
//     with the database gone it is a 503.

// fault maps a server-side failure of op to the client's error, and says
// whether the request may have been applied (for the log line).
func fault(op string, ctx, clientCtx context.Context, err error) (e *api.Error, mayHaveApplied bool) {
	if clientCtx.Err() != nil {
		return api.InternalServerError(), false // the client is gone; nobody reads this
	}
	applied := !readOnlyOps[op] && maySent(err)
	timedOut := errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded || queryCanceled(err)
	switch {
	case applied:
		return api.InternalServerError(), true
	case timedOut:
		return throttled(), false
	case isUnavailable(err):
		return serviceUnavailable(), false
	}
	return api.InternalServerError(), false
}

// readOnlyOps are the operations that write nothing (PartiQL's
// ExecuteStatement may be a SELECT but is not known to be one here).
var readOnlyOps = map[string]bool{
	"GetItem": true, "BatchGetItem": true, "Query": true, "Scan": true, "TransactGetItems": true,
	"DescribeTable": true, "ListTables": true, "DescribeLimits": true, "DescribeEndpoints": true,
	"DescribeTimeToLive": true, "DescribeContinuousBackups": true, "ListTagsOfResource": true,
	"DescribeStream": true, "GetRecords": true, "GetShardIterator": true, "ListStreams": true,
	"unknown": true,
}

// maySent reports whether err leaves open that a statement reached the
// database: false only when the failure provably came before anything was
// sent (pgconn.SafeToRetry: a failed connection lock or a send that wrote
// no byte; a failed connect; a batch that failed while pgx prepared or
// encoded its statements, pgx.ErrPreprocessingBatch, before it sent any
// of them, which ends its transaction before any COMMIT), when the
// database reports that it cancelled
// the statement (57014; its transaction rolled back), or when the request
// ran out of time outside any statement (a wait for a pool connection or
// an in-process lock: a deadline error that pgconn did not report).
func maySent(err error) bool {
	var ce *pgconn.ConnectError
	var pe *pgconn.PgError
	var pre pgx.ErrPreprocessingBatch
	switch {
	case errors.As(err, &pre):
		return false
	case errors.Is(err, pgconn.ErrConnClosed):
		// pgx (v5.12) reports a connection lost while it awaited an answer
		// this way too, and calls it safe to retry: MultiResultReader's
		// NextResult drops the read error, which closed the connection,
		// and the next receive finds it closed. A lost COMMIT looks so.
		return true
	case pgconn.SafeToRetry(err), errors.As(err, &ce):
		return false
	case errors.As(err, &pe):
		return pe.Code != codeQueryCanceled
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return pgconn.Timeout(err)
	}
	return true
}

// codeQueryCanceled is SQLSTATE 57014: the statement was cancelled (a
// cancel request sent when the request ran out of time).
const codeQueryCanceled = "57014"

func queryCanceled(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == codeQueryCanceled
}

// isUnavailable reports whether err says the database could not be reached
// or dropped the connection (PostgreSQL restarting, a network cut), as
// opposed to a failed statement.
func isUnavailable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &ce):
		return true
	case errors.As(err, &pe):
		// Class 08: connection exception; 57P01-57P03: admin shutdown,
		// crash shutdown, cannot connect now.
		return len(pe.Code) == 5 && (pe.Code[:2] == "08" || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03")
	case errors.As(err, &ne):
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, pgconn.ErrConnClosed):
		return true
	}
	return false
}

// throttled is the service's ThrottlingException, which every SDK retries
// with backoff.
func throttled() *api.Error {
	return &api.Error{Type: "com.amazon.coral.availability#ThrottlingException", Message: "Rate of requests exceeds the allowed throughput.", Status: http.StatusBadRequest}
}

func serviceUnavailable() *api.Error {
	return &api.Error{Type: "com.amazonaws.dynamodb.v20120810#ServiceUnavailable", Message: "The service is currently unavailable or busy.", Status: http.StatusServiceUnavailable}
}
