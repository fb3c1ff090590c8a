package store

import "github.com/dynamopg/dynamopg/server/attr"

// The service's key size limits, in bytes of the value (UTF-8 for S, raw
// bytes for B), for a table's key and an index's alike.
const (
	MaxHashKeySize  = 2048
	MaxRangeKeySize = 1024
)

// Indexable reports whether an item belongs in the index: it has the index's
// key attributes with their declared types, within the key size limits. The
// API refuses a write that breaks the limits, so only an online build meets
// such items (written before the index existed), and skips them as the
// service does. PostgreSQL's copy of this rule is index_row_sql's test.
func (ix *Index) Indexable(it attr.Item) bool {
	if v, ok := it[ix.Hash.Name]; !ok || v.T != ix.Hash.Type || v.Size() > MaxHashKeySize {
		return false
	}
	if ix.Range != nil {
		if v, ok := it[ix.Range.Name]; !ok || v.T != ix.Range.Type || v.Size() > MaxRangeKeySize {
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
	for _, n := range []*KeyAttr{&ix.Hash, ix.Range} {
		if n != nil {
			if v, ok := it[n.Name]; ok {
				out[n.Name] = v
			}
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
// key, then the table key (the tie-break that makes paging exact).
func (ix *Index) KeyNames(t *Table) []string {
	names := []string{ix.Hash.Name}
	if ix.Range != nil {
		names = append(names, ix.Range.Name)
	}
	for _, n := range t.KeyNames() {
		if n != ix.Hash.Name && (ix.Range == nil || n != ix.Range.Name) {
			names = append(names, n)
		}
	}
	return names
}
