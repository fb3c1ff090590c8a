package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
)

// OptionStream is the Table.Options entry that enables a table's stream.
// Stores read it from the catalog definition inside each write's
// transaction: when Enabled, every change of an item (every write path:
// single-item, batch, transactions, TTL deletions, PartiQL) writes one
// StreamRecord in the same transaction as the change.
const OptionStream = "stream"

// StreamRetention is how long stream records (and deleted tables' entries)
// are kept: the service's 24 hours.
const StreamRetention = 24 * time.Hour

// StreamSpec is the value of Table.Options[OptionStream].
type StreamSpec struct {
	Enabled  bool   `json:"enabled"`
	ViewType string `json:"viewType"` // KEYS_ONLY, NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES
	// Label is the current stream's label (its creation time, as the
	// service's StreamLabel); records are kept per label, so a stream that
	// was disabled (or replaced) stays readable until its records expire.
	Label string `json:"label"`
	// Previous lists earlier labels of the table, newest first.
	Previous []string `json:"previous,omitempty"`
}

// StreamSpecOf decodes a table's stream specification (zero when absent).
func StreamSpecOf(t *Table) StreamSpec {
	raw, ok := t.Options[OptionStream]
	if !ok {
		// Before s: its address escapes to json.Unmarshal, which puts it on
		// the heap, and writes ask this several times each.
		return StreamSpec{}
	}
	var s StreamSpec
	_ = json.Unmarshal(raw, &s)
	return s
}

// StreamChanged reports whether a write that takes an item from old to nu
// (nil: absent) changes it, and so writes a stream record: an insert and a
// deletion always do (a TTL deletion too), a write that leaves the item
// as it was (an identical re-put, a REMOVE of an absent attribute, an
// update that sets the same values) does not, the images compared as the
// service compares values (numbers as numbers, sets as sets).
func StreamChanged(old, nu attr.Item) bool {
	if old == nil || nu == nil {
		return old != nil || nu != nil
	}
	return !attr.EqualItems(old, nu)
}

// StreamRecord is one change of one item. Stores keep both images; the API
// applies the stream's view type when it serves records.
type StreamRecord struct {
	Seq       int64     // increasing per (table, label); unique
	Label     string    // the stream the record belongs to
	EventName string    // INSERT, MODIFY or REMOVE
	Keys      attr.Item // the item's primary key
	OldImage  attr.Item // nil for INSERT
	NewImage  attr.Item // nil for REMOVE
	CreatedAt time.Time
	// TTL marks a deletion by the TTL sweeper (userIdentity
	// dynamodb.amazonaws.com, type Service).
	TTL bool
}

// DeletedTable is the catalog entry of a deleted table that had a stream,
// as it was when DeleteTable removed it: its streams stay readable (by
// table ID) until their records expire, and DescribeStream needs the
// table's name, key schema and stream history to describe them.
type DeletedTable struct {
	Table     *Table
	DeletedAt time.Time
}

// StreamLabels lists every stream label the table has had and still
// tracks: the current one first, then the earlier ones.
func StreamLabels(t *Table) []string {
	s := StreamSpecOf(t)
	if s.Label == "" {
		return nil
	}
	return append([]string{s.Label}, s.Previous...)
}

// Streams serves the change log. Records older than 24 hours may be trimmed.
type Streams interface {
	// StreamRead returns up to limit records of the table's stream label
	// with Seq > after, in Seq order. It reads records of dropped tables
	// too (by table id) until they expire.
	StreamRead(ctx context.Context, tableID int64, label string, after int64, limit int) ([]StreamRecord, error)
	// StreamBounds returns the lowest and highest Seq present for the label
	// (0, 0 when it has no records).
	StreamBounds(ctx context.Context, tableID int64, label string) (first, last int64, err error)
	// StreamTrim deletes records created before the cutoff, and the
	// DeletedTable entries of tables deleted before it.
	StreamTrim(ctx context.Context, before time.Time) error
	// DeletedTableGet returns the most recently deleted table named name
	// whose StreamLabels include label. TableDelete records every table
	// that has a stream label, in its own transaction. ErrTableNotFound
	// when none is kept.
	DeletedTableGet(ctx context.Context, name, label string) (*DeletedTable, error)
	// DeletedTableList returns the deleted tables still kept, those named
	// name ("" for all), in name order, the latest deletion first.
	DeletedTableList(ctx context.Context, name string) ([]DeletedTable, error)
}

type ttlDeleteKey struct{}

// WithTTLDelete marks the context of a write made by the TTL sweeper, so
// the store records its stream record as a service deletion.
func WithTTLDelete(ctx context.Context) context.Context {
	return context.WithValue(ctx, ttlDeleteKey{}, true)
}

// IsTTLDelete reports whether the write's context was marked by WithTTLDelete.
func IsTTLDelete(ctx context.Context) bool {
	v, _ := ctx.Value(ttlDeleteKey{}).(bool)
	return v
}
