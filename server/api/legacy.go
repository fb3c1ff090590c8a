package api

import (
	"strings"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/expr"
	"github.com/dynamopg/dynamopg/server/store"
)

// The legacy (non-expression) request parameters: Expected with
// ConditionalOperator, AttributeUpdates, AttributesToGet, KeyConditions,
// QueryFilter and ScanFilter. They are validated here with the service's
// texts and turned into the expression trees the operations already run.

// legacyCondition is one entry of Expected, QueryFilter, ScanFilter or
// KeyConditions. A nil AttributeValueList is an absent one; [] is present.
type legacyCondition struct {
	AttributeValueList []attr.Value `json:"AttributeValueList"`
	ComparisonOperator *string      `json:"ComparisonOperator"`
	Exists             *bool        `json:"Exists"`
	Value              *attr.Value  `json:"Value"`
}

// attributeValueUpdate is one entry of AttributeUpdates.
type attributeValueUpdate struct {
	Action *string     `json:"Action"`
	Value  *attr.Value `json:"Value"`
}

var (
	enumComparison          = []string{"IN", "NULL", "BETWEEN", "LT", "NOT_CONTAINS", "EQ", "GT", "NOT_NULL", "NE", "LE", "BEGINS_WITH", "GE", "CONTAINS"}
	enumConditionalOperator = []string{"OR", "AND"}
	enumAttributeAction     = []string{"ADD", "PUT", "DELETE"}
)

// param is a request parameter's name and whether the request has it.
type param struct {
	name    string
	present bool
}

// checkMixing refuses legacy and expression parameters in one request,
// listing each side's present parameters in the service's fixed order.
func checkMixing(legacy, exprs []param) error {
	var l, e []string
	for _, p := range legacy {
		if p.present {
			l = append(l, p.name)
		}
	}
	for _, p := range exprs {
		if p.present {
			e = append(e, p.name)
		}
	}
	if len(l) > 0 && len(e) > 0 {
		return ValidationError("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {%s} Expression parameters: {%s}", strings.Join(l, ", "), strings.Join(e, ", "))
	}
	return nil
}

// checkConditionalOperator applies the service's rule that ConditionalOperator
// needs at least two conditions to join (n is the size of Expected,
// QueryFilter or ScanFilter).
func checkConditionalOperator(op *string, n int) error {
	if op == nil {
		return nil
	}
	switch n {
	case 0:
		return ValidationError("ConditionalOperator cannot be used without Filter or Expected")
	case 1:
		return ValidationError("ConditionalOperator can only be used when Filter or Expected has two or more elements")
	}
	return nil
}

// checkConditionMembers records the member constraints of a map of
// conditions (member is "expected", "queryFilter", ...). Filters and key
// conditions require the operator; Expected does not.
func checkConditionMembers(c *constraintErrors, conds map[string]legacyCondition, member string, required bool) {
	for _, k := range sortedTables(conds) {
		lc := conds[k]
		path := member + "." + k + ".member.comparisonOperator"
		if required {
			c.notNull(lc.ComparisonOperator != nil, path)
		}
		checkEnum(c, lc.ComparisonOperator, path, enumComparison)
	}
}

// checkAttributesToGet records the member constraints of AttributesToGet.
func checkAttributesToGet(c *constraintErrors, names []string, member string) {
	if names == nil {
		return
	}
	if len(names) < 1 {
		c.add(strp("[]"), member, "Member must have length greater than or equal to 1")
	}
	if len(names) > 255 {
		c.add(strp("["+strings.Join(names, ", ")+"]"), member, "Member must have length less than or equal to 255")
	}
}

// checkDuplicateNames refuses a name listed twice in AttributesToGet.
func checkDuplicateNames(names []string) error {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return invalid("Duplicate value in attribute name: %s", n)
		}
		seen[n] = true
	}
	return nil
}

// argCountOK reports whether n values suit the operator.
func argCountOK(op string, n int) bool {
	switch op {
	case "NULL", "NOT_NULL":
		return n == 0
	case "IN":
		return n > 0
	case "BETWEEN":
		return n == 2
	}
	return n == 1
}

// scalarTypesFor lists the value types each operator accepts in filters
// and key conditions. EQ and NE take every type, lists and maps included
// (API reference, Condition; a QueryFilter EQ on a BOOL is measured against
// the service), so they are not listed.
var scalarTypesFor = map[string][]attr.Type{
	"LE":           {attr.TypeS, attr.TypeN, attr.TypeB},
	"LT":           {attr.TypeS, attr.TypeN, attr.TypeB},
	"GE":           {attr.TypeS, attr.TypeN, attr.TypeB},
	"GT":           {attr.TypeS, attr.TypeN, attr.TypeB},
	"CONTAINS":     {attr.TypeS, attr.TypeN, attr.TypeB},
	"NOT_CONTAINS": {attr.TypeS, attr.TypeN, attr.TypeB},
	"BEGINS_WITH":  {attr.TypeS, attr.TypeB},
	"IN":           {attr.TypeS, attr.TypeN, attr.TypeB},
	"BETWEEN":      {attr.TypeS, attr.TypeN, attr.TypeB},
}

func sameType(vs []attr.Value) bool {
	for _, v := range vs[1:] {
		if v.T != vs[0].T {
			return false
		}
	}
	return true
}

func betweenReversed(vs []attr.Value) bool {
	c, ok := attr.Compare(vs[0], vs[1])
	return ok && c > 0
}

// validateFilterConditions checks QueryFilter, ScanFilter or KeyConditions
// as the service does, in name order.
func validateFilterConditions(conds map[string]legacyCondition) error {
	for _, k := range sortedTables(conds) {
		lc := conds[k]
		op := *lc.ComparisonOperator
		vs := lc.AttributeValueList
		if !argCountOK(op, len(vs)) {
			return invalid("Invalid number of argument(s) for the %s ComparisonOperator", op)
		}
		if len(vs) > 0 && !sameType(vs) {
			return invalid("AttributeValues inside AttributeValueList must be of same type")
		}
		if types, ok := scalarTypesFor[op]; ok {
			for _, v := range vs {
				if !hasType(types, v.T) {
					return invalid("ComparisonOperator %s is not valid for %s AttributeValue type", op, v.T)
				}
			}
		}
		if op == "BETWEEN" && betweenReversed(vs) {
			return ValidationError("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
		}
	}
	return nil
}

func hasType(ts []attr.Type, t attr.Type) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// validateExpected checks Expected as the service does, in name order.
func validateExpected(conds map[string]legacyCondition) error {
	for _, k := range sortedTables(conds) {
		lc := conds[k]
		if lc.AttributeValueList != nil && lc.Value != nil {
			return invalid("Value and AttributeValueList cannot be used together for Attribute: %s", k)
		}
		if lc.ComparisonOperator != nil {
			op := *lc.ComparisonOperator
			if lc.Exists != nil {
				return invalid("Exists and ComparisonOperator cannot be used together for Attribute: %s", k)
			}
			if op != "NULL" && op != "NOT_NULL" && lc.AttributeValueList == nil && lc.Value == nil {
				return invalid("Value or AttributeValueList must be used with ComparisonOperator: %s for Attribute: %s", op, k)
			}
			vs := lc.values()
			if !argCountOK(op, len(vs)) {
				return invalid("Invalid number of argument(s) for the %s ComparisonOperator", op)
			}
			if len(lc.AttributeValueList) > 0 && !sameType(vs) {
				return invalid("AttributeValues inside AttributeValueList must be of same type")
			}
			if types, ok := scalarTypesFor[op]; ok {
				for _, v := range vs {
					if !hasType(types, v.T) {
						return invalid("ComparisonOperator %s is not valid for %s AttributeValue type", op, v.T)
					}
				}
			}
			if len(lc.AttributeValueList) > 0 {
				if op == "BETWEEN" && betweenReversed(vs) {
					return ValidationError("The BETWEEN condition was provided a range where the lower bound is greater than the upper bound")
				}
			}
			continue
		}
		if lc.AttributeValueList != nil {
			return invalid("AttributeValueList can only be used with a ComparisonOperator for Attribute: %s", k)
		}
		exists := lc.Exists == nil || *lc.Exists
		switch {
		case exists && lc.Value == nil:
			word := "null"
			if lc.Exists != nil {
				word = "true"
			}
			return invalid("Value must be provided when Exists is %s for Attribute: %s", word, k)
		case !exists && lc.Value != nil:
			return invalid("Value cannot be used when Exists is false for Attribute: %s", k)
		}
	}
	return nil
}

// values is the condition's operands: the AttributeValueList, or the Value.
func (lc legacyCondition) values() []attr.Value {
	if lc.AttributeValueList != nil {
		return lc.AttributeValueList
	}
	if lc.Value != nil {
		return []attr.Value{*lc.Value}
	}
	return nil
}

// legacyConditionOf builds the condition of validated Expected, QueryFilter
// or ScanFilter entries, joined by the ConditionalOperator (AND by default).
func legacyConditionOf(conds map[string]legacyCondition, op *string) *expr.Condition {
	if len(conds) == 0 {
		return nil
	}
	list := make([]expr.LegacyCond, 0, len(conds))
	for _, k := range sortedTables(conds) {
		lc := conds[k]
		c := expr.LegacyCond{Name: k, Exists: lc.Exists, Value: lc.Value}
		if lc.ComparisonOperator != nil {
			c.Op = *lc.ComparisonOperator
			c.Values = lc.values()
			c.Exists, c.Value = nil, nil
		}
		list = append(list, c)
	}
	return expr.LegacyCondition(list, is(op, "OR"))
}

// validateAttributeUpdates checks AttributeUpdates as the service does.
func validateAttributeUpdates(ups map[string]attributeValueUpdate) error {
	for _, k := range sortedTables(ups) {
		u := ups[k]
		action := "PUT"
		if u.Action != nil {
			action = *u.Action
		}
		if u.Value == nil {
			if action != "DELETE" {
				return invalid("Only DELETE action is allowed when no attribute value is specified")
			}
			continue
		}
		t := u.Value.T
		switch action {
		case "DELETE":
			if !u.Value.IsSet() {
				return invalid("DELETE action with value is not supported for the type %s", t)
			}
		case "ADD":
			if t != attr.TypeN && t != attr.TypeL && !u.Value.IsSet() {
				return invalid("ADD action is not supported for the type %s", t)
			}
		}
	}
	return nil
}

// legacyUpdateOf builds the update of validated AttributeUpdates.
func legacyUpdateOf(ups map[string]attributeValueUpdate) *expr.LegacyUpdate {
	list := make([]expr.AttributeUpdate, 0, len(ups))
	for _, k := range sortedTables(ups) {
		u := ups[k]
		action := "PUT"
		if u.Action != nil {
			action = *u.Action
		}
		list = append(list, expr.AttributeUpdate{Name: k, Action: action, Value: u.Value})
	}
	return expr.NewLegacyUpdate(list)
}

// checkAttributeUpdateMembers records the member constraints of AttributeUpdates.
func checkAttributeUpdateMembers(c *constraintErrors, ups map[string]attributeValueUpdate) {
	for _, k := range sortedTables(ups) {
		checkEnum(c, ups[k].Action, "attributeUpdates."+k+".member.action", enumAttributeAction)
	}
}

// keyConditionsOf converts validated KeyConditions to key conditions,
// refusing the operators no key can serve.
func keyConditionsOf(conds map[string]legacyCondition) []keyCond {
	out := make([]keyCond, 0, len(conds))
	for _, k := range sortedTables(conds) {
		lc := conds[k]
		out = append(out, keyCond{name: k, op: store.RangeOp(*lc.ComparisonOperator), values: lc.AttributeValueList})
	}
	return out
}

// matchLegacyKeyConditions maps KeyConditions onto the key schema being
// queried, with the service's texts and in its order (partition key first).
func matchLegacyKeyConditions(conds []keyCond, hashKey store.KeyAttr, rangeKey *store.KeyAttr) (attr.Value, *store.RangeCond, error) {
	byName := map[string]*keyCond{}
	for i := range conds {
		byName[conds[i].name] = &conds[i]
	}
	keys := []store.KeyAttr{hashKey}
	if rangeKey != nil {
		keys = append(keys, *rangeKey)
	}
	for i, ka := range keys {
		isHash := i == 0
		if isHash && rangeKey == nil && len(conds) > 1 {
			return attr.Value{}, nil, ValidationError("Query key condition not supported")
		}
		kc := byName[ka.Name]
		if kc == nil {
			if isHash || len(conds) > 1 {
				return attr.Value{}, nil, ValidationError("Query condition missed key schema element: %s", ka.Name)
			}
			continue
		}
		switch string(kc.op) {
		case "NULL", "NOT_NULL", "NE", "CONTAINS", "NOT_CONTAINS", "IN":
			return attr.Value{}, nil, ValidationError("Attempted conditional constraint is not an indexable operation")
		}
		for _, v := range kc.values {
			if v.T != ka.Type {
				return attr.Value{}, nil, invalid("Condition parameter type does not match schema type")
			}
		}
		if isHash && kc.op != store.RangeEQ {
			return attr.Value{}, nil, ValidationError("Query key condition not supported")
		}
	}
	hash := byName[hashKey.Name]
	if rangeKey == nil {
		return hash.values[0], nil, nil
	}
	rng := byName[rangeKey.Name]
	if rng == nil {
		return hash.values[0], nil, nil
	}
	if rng.op == store.RangeBeginsWith && rangeKey.Type == attr.TypeN {
		return attr.Value{}, nil, invalid("Query key condition not supported")
	}
	return hash.values[0], &store.RangeCond{Op: rng.op, Values: rng.values}, nil
}

// checkFilterKeys refuses a QueryFilter on the key attributes being queried.
func checkFilterKeys(filter map[string]legacyCondition, names []string) error {
	for _, n := range names {
		if _, ok := filter[n]; ok {
			return ValidationError("QueryFilter can only contain non-primary key attributes: Primary key attribute: %s", n)
		}
	}
	return nil
}

// checkLegacy refuses a single-item write that mixes legacy and expression
// parameters, then applies the ConditionalOperator rule. updates and
// updateExpr say whether an UpdateItem has AttributeUpdates and
// UpdateExpression.
func (w *writeOptions) checkLegacy(updates, updateExpr bool) error {
	err := checkMixing(
		[]param{{"AttributeUpdates", updates}, {"Expected", w.Expected != nil}, {"ConditionalOperator", w.ConditionalOperator != nil}},
		[]param{{"UpdateExpression", updateExpr}, {"ConditionExpression", w.ConditionExpression != nil}},
	)
	if err != nil {
		return err
	}
	return checkConditionalOperator(w.ConditionalOperator, len(w.Expected))
}

// legacyFilter is the request's QueryFilter or ScanFilter.
func (in *queryInput) legacyFilter() map[string]legacyCondition {
	if in.QueryFilter != nil {
		return in.QueryFilter
	}
	return in.ScanFilter
}

// projectionParam names the parameter a Query or Scan projects with, for
// the Select texts.
func (in *queryInput) projectionParam() string {
	if in.AttributesToGet != nil {
		return "AttributesToGet"
	}
	return "ProjectionExpression"
}

// checkLegacy refuses a Query or Scan that mixes legacy and expression
// parameters, then checks ConditionalOperator, the filter and
// AttributesToGet. KeyConditions counts as legacy only beside a
// KeyConditionExpression: the service accepts it with the other expressions.
func (in *queryInput) checkLegacy(isQuery bool) error {
	filterName, filter := "ScanFilter", in.ScanFilter
	if isQuery {
		filterName, filter = "QueryFilter", in.QueryFilter
	}
	legacy := []param{{"AttributesToGet", in.AttributesToGet != nil}, {filterName, filter != nil}, {"ConditionalOperator", in.ConditionalOperator != nil}}
	exprs := []param{{"ProjectionExpression", in.ProjectionExpression != nil}, {"FilterExpression", in.FilterExpression != nil}}
	if isQuery {
		legacy = append(legacy, param{"KeyConditions", in.KeyConditions != nil && in.KeyConditionExpression != nil})
		exprs = append(exprs, param{"KeyConditionExpression", in.KeyConditionExpression != nil})
	}
	if err := checkMixing(legacy, exprs); err != nil {
		return err
	}
	if err := checkConditionalOperator(in.ConditionalOperator, len(filter)); err != nil {
		return err
	}
	if err := validateFilterConditions(filter); err != nil {
		return err
	}
	return checkDuplicateNames(in.AttributesToGet)
}

// checkKeyConditions validates a Query's KeyConditions.
func (in *queryInput) checkKeyConditions() error {
	if err := validateFilterConditions(in.KeyConditions); err != nil {
		return err
	}
	// An index may have a multi-attribute key (up to 8 attributes): the
	// query checks the count against the index's key once it knows it
	// (checkKeyConditionCount).
	max := 2
	if in.IndexName != nil {
		max = maxGSIKeyElements
	}
	if n := len(in.KeyConditions); n < 1 || n > max {
		return keyConditionCountErr()
	}
	return nil
}

func keyConditionCountErr() error { return ValidationError("Conditions can be of length 1 or 2 only") }

// checkKeyConditionCount refuses more than two KeyConditions on a table or
// an index with a single-attribute key.
func checkKeyConditionCount(conds []keyCond, ix *store.Index) error {
	if len(conds) > 2 && (ix == nil || !ix.MultiKey()) {
		return keyConditionCountErr()
	}
	return nil
}
