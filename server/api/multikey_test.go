package api

import (
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// TestMatchMultiKeyConditions maps key conditions onto a 2 + 2 key
// (a S, b N + c S, d N): what reaches the store (Hash, Eq, Range) and the
// refusals.
func TestMatchMultiKeyConditions(t *testing.T) {
	ix := &store.Index{Name: "mk", Global: true, Hash: store.KeyAttr{Name: "a", Type: attr.TypeS},
		MoreHash: []store.KeyAttr{{Name: "b", Type: attr.TypeN}},
		Range:    &store.KeyAttr{Name: "c", Type: attr.TypeS}, MoreRange: []store.KeyAttr{{Name: "d", Type: attr.TypeN}}}
	eq := func(n string, v attr.Value) keyCond {
		return keyCond{name: n, op: store.RangeEQ, values: []attr.Value{v}}
	}
	a, b, c, d := eq("a", attr.Str("x")), eq("b", attr.Num("1")), eq("c", attr.Str("c")), eq("d", attr.Num("2"))
	between := func(n string, lo, hi attr.Value) keyCond {
		return keyCond{name: n, op: store.RangeBetween, values: []attr.Value{lo, hi}}
	}
	for _, tc := range []struct {
		conds  []keyCond
		eq     int    // len(Eq)
		op     string // Range's operator, "" for none
		errMsg string
	}{
		{conds: []keyCond{b, a}, eq: 1},
		{conds: []keyCond{a, b, c}, eq: 2},
		{conds: []keyCond{a, b, c, d}, eq: 3},
		{conds: []keyCond{a, b, between("c", attr.Str("a"), attr.Str("b"))}, eq: 1, op: "BETWEEN"},
		{conds: []keyCond{a, b, c, between("d", attr.Num("1"), attr.Num("3"))}, eq: 2, op: "BETWEEN"},
		{conds: []keyCond{a, b, {name: "c", op: store.RangeBeginsWith, values: []attr.Value{attr.Str("c")}}}, eq: 1, op: "BEGINS_WITH"},
		{conds: []keyCond{a}, errMsg: "Query condition missed key schema element: b"},
		{conds: []keyCond{a, b, d}, errMsg: "Query condition missed key schema element: c"},
		{conds: []keyCond{a, {name: "b", op: store.RangeGT, values: []attr.Value{attr.Num("1")}}}, errMsg: "Query key condition not supported"},
		{conds: []keyCond{a, b, {name: "c", op: store.RangeLT, values: []attr.Value{attr.Str("c")}}, d}, errMsg: "Query key condition not supported"},
		{conds: []keyCond{a, b, eq("x", attr.Str("x"))}, errMsg: "Query condition missed key schema element: c"},
		{conds: []keyCond{a, b, c, d, eq("x", attr.Str("x"))}, errMsg: "Query key condition not supported"},
		{conds: []keyCond{a, eq("b", attr.Str("1"))}, errMsg: "One or more parameter values were invalid: Condition parameter type does not match schema type"},
		{conds: []keyCond{a, b, c, {name: "d", op: store.RangeBeginsWith, values: []attr.Value{attr.Num("1")}}}, errMsg: "One or more parameter values were invalid: Query key condition not supported"},
		{conds: []keyCond{a, b, between("c", attr.Str("b"), attr.Str("a"))},
			errMsg: "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}"},
		{conds: []keyCond{a, b, {name: "c", op: "NOT_NULL"}}, errMsg: "Attempted conditional constraint is not an indexable operation"},
	} {
		hash, gotEq, rng, err := matchMultiKeyConditions(tc.conds, ix)
		if tc.errMsg != "" {
			e, ok := err.(*Error)
			if !ok || e.Message != tc.errMsg {
				t.Errorf("%v: error %v, want %q", tc.conds, err, tc.errMsg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.conds, err)
			continue
		}
		op := ""
		if rng != nil {
			op = string(rng.Op)
		}
		if !attr.Equal(hash, attr.Str("x")) || len(gotEq) != tc.eq || op != tc.op || !attr.Equal(gotEq[0], attr.Num("1")) {
			t.Errorf("%v: hash %v, eq %v, range %v; want eq of %d, op %q", tc.conds, hash, gotEq, rng, tc.eq, tc.op)
		}
	}
}
