package store

import "errors"

// Sentinel errors. Implementations translate database errors to these by
// SQLSTATE or result code, never by message text.
var (
	// ErrTableNotFound: no such table, or its storage was dropped under the call.
	ErrTableNotFound = errors.New("store: table not found")
	// ErrTableExists: CreateTable of a name already in the catalog.
	ErrTableExists = errors.New("store: table already exists")
	// ErrConflict: the operation lost a race it cannot retry by itself
	// (a deadlock or serialization failure that persisted through retries).
	ErrConflict = errors.New("store: conflict")
	// ErrStaleTable: an item write was handed a description (Table.Version)
	// that the catalog has since changed; nothing was written. The caller
	// validates the request again on a fresh description
	// (Tables.TableGetCached).
	ErrStaleTable = errors.New("store: table description out of date")
	// ErrTokenMismatch: a live client token was recorded for a different
	// request (Transactions.ItemTransactToken).
	ErrTokenMismatch = errors.New("store: client token used by a different request")
)
