package expr

import (
	"strings"

	"github.com/dynamopg/dynamopg/server/attr"
)

// KeyOp is the operator of one key condition, named as in the legacy
// KeyConditions parameter.
type KeyOp string

// The operators a key condition may use.
const (
	KeyEQ         KeyOp = "EQ"
	KeyLT         KeyOp = "LT"
	KeyLE         KeyOp = "LE"
	KeyGT         KeyOp = "GT"
	KeyGE         KeyOp = "GE"
	KeyBetween    KeyOp = "BETWEEN"
	KeyBeginsWith KeyOp = "BEGINS_WITH"
)

// KeyCond is one condition on one key attribute: Name Op Values (one value,
// two for BETWEEN).
type KeyCond struct {
	Name   string
	Op     KeyOp
	Values []attr.Value
}

// KeyCondition is a parsed KeyConditionExpression: conditions on distinct
// top-level attributes joined by AND, in source order. Use Match to check it
// against a key schema.
type KeyCondition struct {
	Conds []KeyCond
}

// ParseKeyCondition parses a KeyConditionExpression. It is parsed and
// checked as a condition first (so syntax and placeholder errors read
// "Invalid KeyConditionExpression: ..."), then its shape is checked: only AND,
// only comparisons, BETWEEN and begins_with, each between one top-level
// attribute and values, at most one condition per attribute.
func ParseKeyCondition(expr string, ctx *Context) (*KeyCondition, error) {
	root, err := parseConditionTree(KindKeyCondition, expr, ctx)
	if err != nil {
		return nil, err
	}
	kc := &KeyCondition{}
	if err := kc.collect(root); err != nil {
		return nil, err
	}
	return kc, nil
}

var flipped = map[string]string{"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

var keyOps = map[string]KeyOp{"=": KeyEQ, "<": KeyLT, "<=": KeyLE, ">": KeyGT, ">=": KeyGE}

// collect walks the tree as the service does: the operator of a node is
// judged before its operands, operands left to right.
func (kc *KeyCondition) collect(c *cond) *Error {
	switch c.op {
	case condAnd:
		for _, k := range c.kids {
			if err := kc.collect(k); err != nil {
				return err
			}
		}
		return nil
	case condOr:
		return errf("Invalid operator used in KeyConditionExpression: OR")
	case condNot:
		return errf("Invalid operator used in KeyConditionExpression: NOT")
	case condIn:
		return errf("Invalid operator used in KeyConditionExpression: IN")
	case condCompare:
		if c.cmp == "<>" {
			return errf("Invalid operator used in KeyConditionExpression: <>")
		}
	case condBetween:
		if c.args[0].kind != opPath {
			return errf("Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand")
		}
	case condCall:
		switch c.call.name {
		case "begins_with":
			if c.call.args[0].kind != opPath {
				return errf("Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand")
			}
		default:
			// size() as a condition was refused as misused before this.
			return errf("Invalid operator used in KeyConditionExpression: %s", c.call.name)
		}
	}
	var (
		name   string
		at     int
		values []attr.Value
	)
	for i, o := range c.topOperands() {
		switch o.kind {
		case opPath:
			if name != "" {
				return errf("Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition")
			}
			if len(o.path) > 1 {
				return errf("KeyConditionExpressions cannot have conditions on nested attributes")
			}
			name, at = o.path[0].Name, i
		case opCall:
			return errf("KeyConditionExpressions cannot contain nested operations")
		default:
			values = append(values, o.val)
		}
	}
	if name == "" {
		return errf("Invalid condition in KeyConditionExpression: No key attribute specified")
	}
	for _, k := range kc.Conds {
		if k.Name == name {
			return errf("KeyConditionExpressions must only contain one condition per key")
		}
	}
	var op KeyOp
	switch c.op {
	case condBetween:
		op = KeyBetween
	case condCall:
		op = KeyBeginsWith
	default:
		cmp := c.cmp
		if at != 0 { // ":v < k" is "k > :v"
			cmp = flipped[cmp]
		}
		op = keyOps[cmp]
	}
	kc.Conds = append(kc.Conds, KeyCond{Name: name, Op: op, Values: values})
	return nil
}

// Match checks the conditions against a key schema (rangeKey "" for a
// hash-only table or index) and returns the partition key's condition and
// the sort key's, if any, with the service's texts for what it refuses.
func (kc *KeyCondition) Match(hashKey, rangeKey string) (hash KeyCond, rng *KeyCond, err error) {
	var found bool
	for i := range kc.Conds {
		k := kc.Conds[i]
		switch {
		case k.Name == hashKey:
			if k.Op != KeyEQ {
				return KeyCond{}, nil, errf("Query key condition not supported")
			}
			hash, found = k, true
		case rangeKey != "" && k.Name == rangeKey:
			rng = &kc.Conds[i]
		case rangeKey != "":
			return KeyCond{}, nil, errf("Query condition missed key schema element: %s", rangeKey)
		default:
			return KeyCond{}, nil, errf("Query key condition not supported")
		}
	}
	if !found {
		return KeyCond{}, nil, errf("Query condition missed key schema element: %s", hashKey)
	}
	return hash, rng, nil
}

// String renders the conditions for logs and tests: "a EQ [x] AND b GT [1]".
func (kc *KeyCondition) String() string {
	parts := make([]string, len(kc.Conds))
	for i, k := range kc.Conds {
		vals := make([]string, len(k.Values))
		for j, v := range k.Values {
			vals[j] = scalarText(v)
		}
		parts[i] = k.Name + " " + string(k.Op) + " [" + strings.Join(vals, ", ") + "]"
	}
	return strings.Join(parts, " AND ")
}
