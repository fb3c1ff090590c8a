package sqlitestore

import (
	"strconv"
	"strings"

	"github.com/dynamopg/dynamopg/server/store"
)

// The key columns of an index table: ipk and isk for a single-attribute key
// (isk an empty BLOB without a sort key), as before multi-attribute keys;
// a multi-attribute key adds ipk2..ipk4 and isk2..isk4, one column per
// attribute in KeySchema order, so that a Query's equalities and its range
// condition are conditions on a prefix of the primary key. The templates
// of sql/storage.sql read them through these methods.

// indexVars are the variables of a statement on index ix's storage.
func indexVars(ix *store.Index) stmtVars {
	return stmtVars{ID: ix.ID, MoreHash: len(ix.MoreHash), MoreSort: len(ix.MoreRange)}
}

// numbered returns base, base2, ... baseN+1.
func numbered(base string, more int) []string {
	out := []string{base}
	for i := 2; i <= more+1; i++ {
		out = append(out, base+strconv.Itoa(i))
	}
	return out
}

// HashCols are the partition key columns.
func (v stmtVars) HashCols() []string { return numbered("ipk", v.MoreHash) }

// SortCols are the sort key columns.
func (v stmtVars) SortCols() []string { return numbered("isk", v.MoreSort) }

// KeyCols are the index key columns in order.
func (v stmtVars) KeyCols() []string { return append(v.HashCols(), v.SortCols()...) }

// KeyList is KeyCols as a column list.
func (v stmtVars) KeyList() string { return strings.Join(v.KeyCols(), ", ") }

// KeyMarks is one bind parameter per key column.
func (v stmtVars) KeyMarks() string { return marks(len(v.KeyCols())) }

// SortList is SortCols as a column list.
func (v stmtVars) SortList() string { return strings.Join(v.SortCols(), ", ") }

// SortMarks is one bind parameter per sort key column.
func (v stmtVars) SortMarks() string { return marks(len(v.SortCols())) }

// EqCols are the columns a Query tests for equality: ipk, then .Eq more.
func (v stmtVars) EqCols() []string { return v.KeyCols()[:1+v.Eq] }

// RangeCol is the column of a Query's sort key condition: the one after
// EqCols ("" when there is none).
func (v stmtVars) RangeCol() string {
	if c := v.KeyCols(); 1+v.Eq < len(c) {
		return c[1+v.Eq]
	}
	return ""
}

func marks(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
