package store

import (
	"hash/fnv"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
)

// Table statuses and index statuses, as DescribeTable reports them.
const (
	StatusCreating = "CREATING"
	StatusActive   = "ACTIVE"
	StatusDeleting = "DELETING"
	StatusUpdating = "UPDATING"
)

// Index propagation modes.
const (
	PropagationSync  = "sync"
	PropagationAsync = "async"
)

// Async reports whether writes reach the index through the queue.
func (ix *Index) Async() bool { return ix.Propagation == PropagationAsync }

// KeyAttr is a key attribute: its name and scalar type (S, N or B).
type KeyAttr struct {
	Name string    `json:"name"`
	Type attr.Type `json:"type"`
}

// Table is a table's catalog entry. Stores persist it whole (as JSON) beside
// the columns they need to find it; fields added later need no migration.
type Table struct {
	// ID is assigned by the store at TableCreate and names the table's storage.
	ID int64 `json:"id"`
	// Version is the catalog version the description was read at, where the
	// store keeps one (PostgreSQL, on every description it hands out; 0
	// otherwise). Item writes given a description whose Version is not the
	// catalog's refuse it with ErrStaleTable: the caller reads the table
	// again.
	Version   int64     `json:"-"`
	Name      string    `json:"name"`
	TableID   string    `json:"tableId"` // the UUID DescribeTable shows
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`

	Hash  KeyAttr  `json:"hash"`
	Range *KeyAttr `json:"range,omitempty"`
	// AttributeDefinitions in the order the client gave them.
	AttributeDefinitions []KeyAttr `json:"attributeDefinitions"`

	BillingMode string     `json:"billingMode"` // PROVISIONED or PAY_PER_REQUEST
	Throughput  Throughput `json:"throughput"`
	// BillingModeSetAt is when BillingMode was last set (LastUpdateToPayPerRequestDateTime).
	BillingModeSetAt time.Time `json:"billingModeSetAt"`

	Indexes []Index `json:"indexes,omitempty"`

	// Options the control plane stores and echoes (streams, TTL, tags,
	// deletion protection, table class, SSE...) as raw JSON by name, so the
	// catalog needs no schema change when one is added.
	Options map[string][]byte `json:"options,omitempty"`
}

// Throughput is provisioned capacity and its change history.
type Throughput struct {
	Read           int64     `json:"read"`
	Write          int64     `json:"write"`
	LastIncrease   time.Time `json:"lastIncrease,omitzero"`
	LastDecrease   time.Time `json:"lastDecrease,omitzero"`
	DecreasesToday int64     `json:"decreasesToday"`
}

// Index is a local or global secondary index of a table.
type Index struct {
	// ID is assigned by the store and names the index's storage.
	ID     int64    `json:"id"`
	Name   string   `json:"name"`
	Global bool     `json:"global"`
	Hash   KeyAttr  `json:"hash"`
	Range  *KeyAttr `json:"range,omitempty"`
	// MoreHash and MoreRange are a global index's further key attributes
	// (a multi-attribute key: up to 4 HASH and 4 RANGE elements). The
	// KeySchema is Hash, MoreHash..., then Range, MoreRange...; MoreRange
	// needs Range. Both are empty for a single-attribute key, whose
	// catalog JSON and storage are as before they existed.
	MoreHash   []KeyAttr  `json:"moreHash,omitempty"`
	MoreRange  []KeyAttr  `json:"moreRange,omitempty"`
	Projection Projection `json:"projection"`
	// Propagation is how writes reach the index: PropagationSync inside the
	// write's transaction, PropagationAsync through the queue. Empty is sync.
	Propagation string     `json:"propagation,omitempty"`
	Status      string     `json:"status"`
	Backfilling bool       `json:"backfilling,omitempty"`
	Throughput  Throughput `json:"throughput"`
	// OnDemand holds a global index's OnDemandThroughput maxima (-1: no
	// maximum); nil when none is set.
	OnDemand *Capacity `json:"onDemand,omitempty"`
	// Warm is the highest WarmThroughput a global index has been given or
	// has had through its provisioned throughput; zero members are not
	// recorded (the API reports at least the defaults).
	Warm Capacity `json:"warm,omitzero"`
}

// Capacity is a pair of read and write units: an index's WarmThroughput
// or its OnDemandThroughput maxima.
type Capacity struct {
	Read  int64 `json:"read"`
	Write int64 `json:"write"`
}

// Projection is which attributes an index copies.
type Projection struct {
	Type             string   `json:"type"` // ALL, KEYS_ONLY or INCLUDE
	NonKeyAttributes []string `json:"nonKeyAttributes,omitempty"`
}

// KeyNames returns the table's key attribute names (hash first).
func (t *Table) KeyNames() []string {
	if t.Range != nil {
		return []string{t.Hash.Name, t.Range.Name}
	}
	return []string{t.Hash.Name}
}

// Index returns the index with the given name, or nil.
func (t *Table) Index(name string) *Index {
	for i := range t.Indexes {
		if t.Indexes[i].Name == name {
			return &t.Indexes[i]
		}
	}
	return nil
}

// KeyOf returns the primary key attributes of an item (missing ones omitted).
func (t *Table) KeyOf(it attr.Item) attr.Item {
	k := attr.Item{}
	for _, n := range t.KeyNames() {
		if v, ok := it[n]; ok {
			k[n] = v
		}
	}
	return k
}

// KeyHash is the hash that places a partition key value in a scan segment
// and in the scan order: FNV-1a over the type and the value's bytes, then
// murmur3's fmix32 finalizer. Segments are ranges of the hash's high bits,
// which FNV-1a alone barely moves for short keys differing in their last
// byte ("p1", "p2", ...). Both stores store it with each item so that
// parallel scans are range scans; PostgreSQL computes the same value in
// dynamopg.key_hash.
func KeyHash(v attr.Value) uint32 {
	h := fnv.New32a()
	h.Write([]byte{byte(v.T)})
	switch v.T {
	case attr.TypeB:
		h.Write(v.B)
	default:
		h.Write([]byte(v.S))
	}
	x := h.Sum32()
	x ^= x >> 16
	x *= 0x85ebca6b
	x ^= x >> 13
	x *= 0xc2b2ae35
	x ^= x >> 16
	return x
}

// SegmentBounds returns the half-open KeyHash range [lo, hi) of a scan
// segment; hi is 1<<32 for the last segment.
func SegmentBounds(segment, total int) (lo, hi uint64) {
	span := uint64(1) << 32
	lo = span * uint64(segment) / uint64(total)
	hi = span * uint64(segment+1) / uint64(total)
	return lo, hi
}
