package store

import "sync/atomic"

// Counters of work done in this process, for GET /metrics. They are not
// stored: each process counts its own, and a restart starts from zero.

// ttlDeleted counts the items TTLDelete deleted.
var ttlDeleted atomic.Int64

// TTLDeletions returns how many expired items the TTL sweeper of this
// process deleted.
func TTLDeletions() int64 { return ttlDeleted.Load() }
