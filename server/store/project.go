package store

import "github.com/dynamopg/dynamopg/server/attr"

// The service's key size limits, in bytes of the value (UTF-8 for S, raw
// bytes for B), for a table's key and an index's alike.
const (
	MaxHashKeySize  = 2048
	MaxRangeKeySize = 1024
)

// Indexable reports whether an item belongs in the index: it has every key
// attribute of the index with its declared type (the sparse-index rule, per
// attribute of a multi-attribute key), within the key size limits (each
// attribute of a multi-attribute key has the limit of its kind). The API
// refuses a write that breaks the limits, so only an online build meets
// such items (written before the index existed), and skips them as the
// service does. PostgreSQL's copy of this rule is index_row_sql's test.
func (ix *Index) Indexable(it attr.Item) bool {
	nHash := 1 + len(ix.MoreHash)
	for i, k := range ix.KeyAttrs() {
		limit := MaxHashKeySize
		if i >= nHash {
			limit = MaxRangeKeySize
		}
		if v, ok := it[k.Name]; !ok || v.T != k.Type || v.Size() > limit {
			return false
		}
	}
	return true
}

// Project returns the part of an item the index stores: the table's key, the
// index's key, and the projected attributes (all of them for ALL).
func (ix *Index) Project(t *Table, it attr.Item) attr.Item {
	if ix.Projection.Type == "ALL" {
		return it
	}
	out := t.KeyOf(it)
	for _, k := range ix.KeyAttrs() {
		if v, ok := it[k.Name]; ok {
			out[k.Name] = v
		}
	}
	for _, n := range ix.Projection.NonKeyAttributes {
		if v, ok := it[n]; ok {
			out[n] = v
		}
	}
	return out
}

// KeyNames returns the attribute names that order an index's rows: the index
// key (every attribute, in KeySchema order), then the table key (the
// tie-break that makes paging exact).
func (ix *Index) KeyNames(t *Table) []string {
	var names []string
	for _, k := range ix.KeyAttrs() {
		names = append(names, k.Name)
	}
	for _, n := range t.KeyNames() {
		if !ix.IsKey(n) {
			names = append(names, n)
		}
	}
	return names
}
