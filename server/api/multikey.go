package api

import (
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// Multi-attribute keys of global secondary indexes: a GSI's KeySchema may
// name up to four HASH attributes and then up to four RANGE attributes.
// Tables and local secondary indexes keep one HASH and at most one RANGE.
const (
	maxGSIKeyElements = 8
	maxKeyAttrsOfType = 4
)

// isMultiKeySchema reports whether a global index's KeySchema is a
// multi-attribute key's (checkMultiKeyOrder) rather than one HASH and at
// most one RANGE (checkKeyOrder, whose texts it keeps for those): more
// than two elements, or a second HASH.
func isMultiKeySchema(ks []keySchemaElement) bool {
	return len(ks) > 2 || len(ks) == 2 && *ks[1].KeyType == "HASH"
}

// checkMultiKeyOrder checks a global index's KeySchema of more than one
// HASH or more than one RANGE element and returns its number of HASH
// elements. The texts for duplicates among more than two elements, the
// order and the counts are ours, in the service's style: the service's
// own are not documented.
func checkMultiKeyOrder(ks []keySchemaElement) (nHash int, err error) {
	seen := map[string]bool{}
	for _, k := range ks {
		if seen[*k.AttributeName] {
			if len(ks) == 2 {
				return 0, ValidationError("Both the Hash Key and the Range Key element in the KeySchema have the same name")
			}
			return 0, ValidationError("Invalid KeySchema: Duplicate KeySchemaElement attribute name: %s", *k.AttributeName)
		}
		seen[*k.AttributeName] = true
	}
	if *ks[0].KeyType != "HASH" {
		return 0, ValidationError("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	nRange := 0
	for _, k := range ks {
		switch {
		case *k.KeyType == "HASH" && nRange > 0:
			return 0, ValidationError("Invalid KeySchema: HASH KeySchemaElements must precede RANGE KeySchemaElements")
		case *k.KeyType == "HASH":
			nHash++
		default:
			nRange++
		}
	}
	if nHash > maxKeyAttrsOfType {
		return 0, ValidationError("Invalid KeySchema: A global secondary index KeySchema can have at most %d HASH KeySchemaElements", maxKeyAttrsOfType)
	}
	if nRange > maxKeyAttrsOfType {
		return 0, ValidationError("Invalid KeySchema: A global secondary index KeySchema can have at most %d RANGE KeySchemaElements", maxKeyAttrsOfType)
	}
	return nHash, nil
}

// keyNamesOf returns the key attribute names of the table (ix nil) or of an
// index, every attribute of a multi-attribute key included.
func keyNamesOf(t *store.Table, ix *store.Index) []string {
	if ix == nil {
		return t.KeyNames()
	}
	var out []string
	for _, k := range ix.KeyAttrs() {
		out = append(out, k.Name)
	}
	return out
}

// matchMultiKeyConditions maps a Query's key conditions onto a global
// index with a multi-attribute key: an equality on every partition
// attribute, then on the sort attributes a left-to-right prefix of
// equalities, optionally ending with one range condition on the next. It
// returns the first partition value, the further equalities in KeySchema
// order (store.QueryInput.Eq) and the range condition. "Query condition
// missed key schema element" and "Query key condition not supported" are
// the service's texts for single keys; which one the service gives for
// each multi-attribute case is not documented, so the choices here are
// ours: a missing attribute (a partition attribute, or a sort attribute
// before one that has a condition) is named as missed, a condition after a
// range condition is not supported.
func matchMultiKeyConditions(conds []keyCond, ix *store.Index) (attr.Value, []attr.Value, *store.RangeCond, error) {
	byName := map[string]*keyCond{}
	for i := range conds {
		byName[conds[i].name] = &conds[i]
	}
	hashes, ranges := ix.HashAttrs(), ix.RangeAttrs()
	missed := func() error {
		for _, k := range append(hashes, ranges...) {
			if byName[k.Name] == nil {
				return ValidationError("Query condition missed key schema element: %s", k.Name)
			}
		}
		return ValidationError("Query key condition not supported")
	}
	for _, kc := range conds {
		if !ix.IsKey(kc.name) {
			return attr.Value{}, nil, nil, missed()
		}
		switch string(kc.op) {
		case "NULL", "NOT_NULL", "NE", "CONTAINS", "NOT_CONTAINS", "IN":
			return attr.Value{}, nil, nil, ValidationError("Attempted conditional constraint is not an indexable operation")
		}
	}
	var vals []attr.Value
	for _, k := range hashes {
		kc := byName[k.Name]
		if kc == nil {
			return attr.Value{}, nil, nil, missed()
		}
		if kc.op != store.RangeEQ {
			return attr.Value{}, nil, nil, ValidationError("Query key condition not supported")
		}
		if kc.values[0].T != k.Type {
			return attr.Value{}, nil, nil, invalid("Condition parameter type does not match schema type")
		}
		vals = append(vals, kc.values[0])
	}
	var rng *store.RangeCond
	used := len(hashes)
	for _, k := range ranges {
		kc := byName[k.Name]
		if kc == nil {
			break
		}
		if rng != nil {
			return attr.Value{}, nil, nil, ValidationError("Query key condition not supported")
		}
		used++
		for _, v := range kc.values {
			if v.T != k.Type {
				return attr.Value{}, nil, nil, invalid("Condition parameter type does not match schema type")
			}
		}
		switch {
		case kc.op == store.RangeEQ:
			vals = append(vals, kc.values[0])
		case kc.op == store.RangeBeginsWith && k.Type == attr.TypeN:
			return attr.Value{}, nil, nil, invalid("Query key condition not supported")
		case kc.op == store.RangeBetween:
			if c, _ := attr.Compare(kc.values[0], kc.values[1]); c > 0 {
				return attr.Value{}, nil, nil, ValidationError("Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {%s}, upper bound operand: AttributeValue: {%s}", renderScalar(kc.values[0]), renderScalar(kc.values[1]))
			}
			fallthrough
		default:
			rng = &store.RangeCond{Op: kc.op, Values: kc.values}
		}
	}
	if used != len(conds) {
		// A sort attribute has a condition although one before it has none.
		return attr.Value{}, nil, nil, missed()
	}
	return vals[0], vals[1:], rng, nil
}
