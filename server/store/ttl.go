package store

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
)

// OptionTTL is the Table.Options entry holding the table's TimeToLive
// specification (TTLSpec), as UpdateTimeToLive stores it.
const OptionTTL = "ttl"

// TTLSpec is the value of Table.Options[OptionTTL].
type TTLSpec struct {
	AttributeName string `json:"attributeName"`
	Enabled       bool   `json:"enabled"`
}

// TTLSpecOf decodes a table's TTL specification (zero when absent).
func TTLSpecOf(t *Table) TTLSpec {
	var s TTLSpec
	if raw, ok := t.Options[OptionTTL]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

// TTLWindow is the service's rule for TTL values far in the past: an item
// whose TTL attribute is more than five years before now is not deleted.
// It returns the range [lo, hi) of epoch seconds that count as expired.
func TTLWindow(now time.Time) (lo, hi int64) {
	return now.AddDate(-5, 0, 0).Unix(), now.Unix()
}

// TTLExpired reports whether the item's TTL attribute (name) is a Number of
// epoch seconds in the expired window of now.
func TTLExpired(it attr.Item, name string, now time.Time) bool {
	v, ok := it[name]
	if !ok || v.T != attr.TypeN {
		return false
	}
	f, err := strconv.ParseFloat(v.S, 64)
	if err != nil {
		return false
	}
	lo, hi := TTLWindow(now)
	return f >= float64(lo) && f < float64(hi)
}
