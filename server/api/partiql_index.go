package api

import (
	"strings"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/expr"
	"github.com/dynamopg/dynamopg/server/partiql"
	"github.com/dynamopg/dynamopg/server/store"
)

// indexHolds is the set of attributes an index without projection ALL
// holds: the table's and the index's keys and any NonKeyAttributes.
func indexHolds(t *store.Table, ix *store.Index) map[string]bool {
	held := map[string]bool{}
	for _, k := range ix.KeyAttrs() {
		held[k.Name] = true
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

// pqMultiKeyEq makes a PartiQL read of an index with a multi-attribute key
// a Query when its WHERE has an equality, of the right type, on every
// partition attribute: it returns the first value and the others (nil, nil:
// a scan). The sort attributes do not narrow the Query; the WHERE, applied
// as the filter, keeps exactly the matching items either way.
func pqMultiKeyEq(c *partiql.Compiler, where partiql.Expr, ix *store.Index) (*attr.Value, []attr.Value, error) {
	var names []string
	for _, k := range ix.HashAttrs() {
		names = append(names, k.Name)
	}
	conds, err := c.KeyConds(where, names...)
	if err != nil {
		return nil, nil, pqErr(err)
	}
	var vals []attr.Value
	for _, k := range ix.HashAttrs() {
		found := false
		for _, kc := range conds {
			if kc.Name == k.Name && kc.Op == "=" && kc.Values[0].T == k.Type {
				vals, found = append(vals, kc.Values[0]), true
				break
			}
		}
		if !found {
			return nil, nil, nil
		}
	}
	return &vals[0], vals[1:], nil
}
