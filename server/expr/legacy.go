package expr

import (
	"github.com/dynamopg/dynamopg/server/attr"
)

// This file builds expression trees from the legacy request parameters
// (Expected, QueryFilter, ScanFilter, AttributesToGet, AttributeUpdates).
// The trees are built directly, never through the parser, so attribute
// names need no escaping and reserved words are fine. The API layer
// validates the parameters with the service's texts before calling these.

// LegacyCond is one entry of Expected, QueryFilter or ScanFilter: either
// ComparisonOperator with its AttributeValueList (Op set), or the older
// Exists/Value form (Op empty).
type LegacyCond struct {
	Name   string
	Op     string       // EQ NE LE LT GE GT NOT_NULL NULL CONTAINS NOT_CONTAINS BEGINS_WITH IN BETWEEN
	Values []attr.Value // the AttributeValueList (or the Value, for Op)
	Exists *bool        // Exists/Value form
	Value  *attr.Value  // Exists/Value form
}

// LegacyCondition joins the conditions with AND (or OR when or is set), in
// the order given. It returns nil for no conditions.
func LegacyCondition(conds []LegacyCond, or bool) *Condition {
	var root *cond
	for _, lc := range conds {
		c := legacyNode(lc)
		if root == nil {
			root = c
			continue
		}
		op := condAnd
		if or {
			op = condOr
		}
		root = &cond{op: op, kids: []*cond{root, c}}
	}
	if root == nil {
		return nil
	}
	return &Condition{root: root}
}

func pathOperand(name string) *operand {
	return &operand{kind: opPath, path: Path{{Name: name}}}
}

func valueOperand(v attr.Value) *operand {
	return &operand{kind: opValue, val: v}
}

func callCond(name string, args ...*operand) *cond {
	return &cond{op: condCall, call: &call{name: name, args: args}}
}

var legacyComparators = map[string]string{"EQ": "=", "NE": "<>", "LT": "<", "LE": "<=", "GT": ">", "GE": ">="}

// legacyNode is one legacy condition as a condition node, with the
// service's semantics: a missing attribute fails every operator but NE and
// NULL (NOT_CONTAINS too: it needs an attribute that does not contain the
// value); values of another type never match.
func legacyNode(lc LegacyCond) *cond {
	p := pathOperand(lc.Name)
	if lc.Op == "" {
		if lc.Exists != nil && !*lc.Exists {
			return callCond("attribute_not_exists", p)
		}
		if lc.Value == nil { // refused by validation; exists is the only sense
			return callCond("attribute_exists", p)
		}
		return &cond{op: condCompare, cmp: "=", args: []*operand{p, valueOperand(*lc.Value)}}
	}
	vals := make([]*operand, len(lc.Values))
	for i, v := range lc.Values {
		vals[i] = valueOperand(v)
	}
	if cmp, ok := legacyComparators[lc.Op]; ok {
		return &cond{op: condCompare, cmp: cmp, args: []*operand{p, vals[0]}}
	}
	switch lc.Op {
	case "NULL":
		return callCond("attribute_not_exists", p)
	case "NOT_NULL":
		return callCond("attribute_exists", p)
	case "CONTAINS":
		return callCond("contains", p, vals[0])
	case "NOT_CONTAINS":
		return &cond{op: condAnd, kids: []*cond{
			callCond("attribute_exists", p),
			{op: condNot, kids: []*cond{callCond("contains", p, vals[0])}},
		}}
	case "BEGINS_WITH":
		return callCond("begins_with", p, vals[0])
	case "IN":
		return &cond{op: condIn, args: append([]*operand{p}, vals...)}
	case "BETWEEN":
		return &cond{op: condBetween, args: []*operand{p, vals[0], vals[1]}}
	}
	// Unknown operators are refused before this; match nothing.
	return &cond{op: condAnd, kids: []*cond{callCond("attribute_exists", p), callCond("attribute_not_exists", p)}}
}

// ProjectionOf is the projection of AttributesToGet: top-level attributes
// by name (a name like "a.b" is the attribute named "a.b").
func ProjectionOf(names []string) *Projection {
	paths := make([]Path, len(names))
	for i, n := range names {
		paths[i] = Path{{Name: n}}
	}
	return &Projection{paths: paths}
}

// AttributeUpdate is one entry of UpdateItem's AttributeUpdates.
type AttributeUpdate struct {
	Name   string
	Action string      // PUT (also for an empty action), ADD, DELETE
	Value  *attr.Value // nil only for DELETE of the whole attribute
}

// LegacyUpdate is a validated AttributeUpdates parameter.
type LegacyUpdate struct {
	updates []AttributeUpdate
}

// MsgTypeMismatch is the service's text for an ADD or DELETE of
// AttributeUpdates whose value does not fit the attribute's type.
const MsgTypeMismatch = "Type mismatch for attribute to update"

// NewLegacyUpdate builds the update from the entries, applied in the order given.
func NewLegacyUpdate(updates []AttributeUpdate) *LegacyUpdate {
	return &LegacyUpdate{updates: updates}
}

// OnlyRemoves reports whether every update is a DELETE: on an item that
// does not exist, "nothing happens; there is no attribute to delete" (API
// reference, AttributeValueUpdate).
func (u *LegacyUpdate) OnlyRemoves() bool {
	for _, a := range u.updates {
		if a.Action != "DELETE" {
			return false
		}
	}
	return len(u.updates) > 0
}

// Paths returns the updated attributes, for the key check and for
// ReturnValues UPDATED_OLD and UPDATED_NEW.
func (u *LegacyUpdate) Paths() []Path {
	out := make([]Path, len(u.updates))
	for i, a := range u.updates {
		out[i] = Path{{Name: a.Name}}
	}
	return out
}

// Apply returns the item the updates make of item (nil: no item yet). The
// input is never modified.
//
// PUT replaces the attribute. ADD adds a number to a number, a set to a set
// of the same type, appends a list to a list, and creates the attribute when
// it is missing. DELETE without a value removes the attribute; with a set,
// it removes those members (the attribute goes when none are left), and
// does nothing to a missing attribute.
func (u *LegacyUpdate) Apply(item attr.Item) (attr.Item, error) {
	out := item.Clone()
	if out == nil {
		out = attr.Item{}
	}
	for _, a := range u.updates {
		old, exists := out[a.Name]
		switch a.Action {
		case "ADD":
			v := a.Value.Clone()
			if !exists {
				out[a.Name] = v
				continue
			}
			if old.T != v.T {
				return nil, errf(MsgTypeMismatch)
			}
			switch {
			case v.T == attr.TypeN:
				n, err := attr.AddNumbers(old.S, v.S, false)
				if err != nil {
					return nil, errf("%s", err.Msg)
				}
				out[a.Name] = attr.Num(n)
			case v.IsSet():
				out[a.Name] = setUnion(old, v)
			case v.T == attr.TypeL:
				l := make([]attr.Value, 0, len(old.L)+len(v.L))
				out[a.Name] = attr.List(append(append(l, old.L...), v.L...))
			default:
				return nil, errf(MsgTypeMismatch)
			}
		case "DELETE":
			if a.Value == nil {
				delete(out, a.Name)
				continue
			}
			if !exists {
				continue
			}
			if old.T != a.Value.T {
				return nil, errf(MsgTypeMismatch)
			}
			rest := setDifference(old, *a.Value)
			if rest.SetLen() == 0 {
				delete(out, a.Name)
			} else {
				out[a.Name] = rest
			}
		default: // PUT
			out[a.Name] = a.Value.Clone()
		}
	}
	return out, nil
}
