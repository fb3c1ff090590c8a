package pgstore

import (
	"bytes"
	"slices"
	"strings"

	"github.com/dynamopg/dynamopg/server/attr"
)

// itemPatch is the change from item old to item nu as update_version_sql
// applies it: the top-level attributes nu sets (new, or not stored the
// same) and the names it removes. ok is false when a removed name holds
// a NUL or SOH character, which the stored key spells escaped
// (escape.go): the caller then writes the whole item.
func itemPatch(old, nu attr.Item) (set attr.Item, removed []string, ok bool) {
	set = attr.Item{}
	removed = []string{} // NULL would make the whole item NULL
	for k, v := range nu {
		if o, found := old[k]; !found || !identical(o, v) {
			set[k] = v
		}
	}
	for k := range old {
		if _, found := nu[k]; !found {
			if strings.ContainsAny(k, "\x00\x01") {
				return nil, nil, false
			}
			removed = append(removed, k)
		}
	}
	return set, removed, true
}

// identical reports whether a and b are stored the same (encodeItem): the
// same type and the same text, members in the same order. Stricter than
// attr.Equal, which compares sets regardless of order: a value it calls
// different is only written again.
func identical(a, b attr.Value) bool {
	if a.T != b.T || a.Bool != b.Bool || a.S != b.S || !bytes.Equal(a.B, b.B) ||
		len(a.M) != len(b.M) || len(a.L) != len(b.L) ||
		!slices.Equal(a.Strs, b.Strs) || !slices.EqualFunc(a.Bins, b.Bins, bytes.Equal) {
		return false
	}
	for k, av := range a.M {
		bv, ok := b.M[k]
		if !ok || !identical(av, bv) {
			return false
		}
	}
	for i := range a.L {
		if !identical(a.L[i], b.L[i]) {
			return false
		}
	}
	return true
}
