package api

import (
	"strings"
)

// checkEnum records an enum constraint failure for an optional member.
func checkEnum(c *constraintErrors, v *string, path string, set []string) {
	if v != nil && !oneOf(*v, set...) {
		c.add(v, path, "Member must satisfy enum value set: ["+strings.Join(set, ", ")+"]")
	}
}

// checkWriteEnums validates the return-option members of single-item writes.
func checkWriteEnums(c *constraintErrors, rv, rcc, ricm, rvccf *string) {
	checkEnum(c, rv, "returnValues", enumReturnValues)
	checkEnum(c, rcc, "returnConsumedCapacity", enumReturnCapacity)
	checkEnum(c, ricm, "returnItemCollectionMetrics", enumReturnMetrics)
	checkEnum(c, rvccf, "returnValuesOnConditionCheckFailure", enumReturnOnConditon)
}

func is(p *string, v string) bool { return p != nil && *p == v }
