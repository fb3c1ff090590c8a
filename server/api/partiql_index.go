package api

import (
	"strings"

	"github.com/dynamopg/dynamopg/server/expr"
	"github.com/dynamopg/dynamopg/server/store"
)

// indexHolds is the set of attributes an index without projection ALL
// holds: the table's and the index's keys and any NonKeyAttributes.
func indexHolds(t *store.Table, ix *store.Index) map[string]bool {
	held := map[string]bool{ix.Hash.Name: true}
	if ix.Range != nil {
		held[ix.Range.Name] = true
	}
	for _, n := range t.KeyNames() {
		held[n] = true
	}
	for _, n := range ix.Projection.NonKeyAttributes {
		held[n] = true
	}
	return held
}

// missingFrom lists the names the index does not hold, in order.
func missingFrom(held map[string]bool, names []string) []string {
	var out []string
	for _, n := range names {
		if !held[n] {
			out = append(out, n)
		}
	}
	return out
}

// checkPQIndexAttrs refuses a PartiQL SELECT on an index whose WHERE reads,
// or (on a global index) whose projection names, attributes the index does
// not hold. The two texts differ, and the filter one names no index kind
// (measured: nubo-db/dynamodb-conformance tests/tier3/error-messages/
// partiqlIndexQualifier).
func checkPQIndexAttrs(t *store.Table, ix *store.Index, filter *expr.Condition, proj *expr.Projection) error {
	if ix == nil || ix.Projection.Type == "ALL" {
		return nil
	}
	held := indexHolds(t, ix)
	if filter != nil {
		if m := missingFrom(held, filter.Attributes()); len(m) > 0 {
			return invalid("Secondary index %s does not project one or more filter attributes: [%s]", ix.Name, strings.Join(m, ", "))
		}
	}
	if proj != nil && ix.Global {
		if m := missingFrom(held, proj.TopLevel()); len(m) > 0 {
			return invalid("Global secondary index %s does not project [%s]", ix.Name, strings.Join(m, ", "))
		}
	}
	return nil
}
