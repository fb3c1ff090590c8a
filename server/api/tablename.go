package api

import "strconv"

// validName reports whether n matches the pattern a table or index name
// must match, [a-zA-Z0-9_.-]+ (without a regexp, which cost 1% of a
// request's CPU; TestValidName compares the two).
func validName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		switch c := n[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '.', c == '-':
		default:
			return false
		}
	}
	return true
}

// checkName records the service's constraints on a table or index name.
func checkName(c *constraintErrors, name *string, path string, required bool) {
	if name == nil {
		if required {
			c.notNull(false, path)
		}
		return
	}
	n := *name
	if !validName(n) {
		c.add(&n, path, "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
	}
	if len(n) < 3 {
		c.add(&n, path, "Member must have length greater than or equal to 3")
	}
	if len(n) > 255 {
		c.add(&n, path, "Member must have length less than or equal to 255")
	}
}

// checkTableRef records the constraints on the TableName of a data-plane
// operation. Those members take a name or a table ARN (length 1 to 1024 in
// the API reference), so an empty name fails only the minimum length of 1;
// a non-empty name is then held to the table name rules. Measured: PutItem,
// UpdateItem and DeleteItem with an empty TableName answer one error,
// "... at 'tableName' ... Member must have length greater than or equal to 1"
// (nubo-db/dynamodb-conformance, tests/tier3/validation-ordering and
// registry/splits.json put-item-validation-error-aggregation).
func checkTableRef(c *constraintErrors, name *string, path string) {
	if name != nil && *name == "" {
		c.add(name, path, "Member must have length greater than or equal to 1")
		return
	}
	checkName(c, name, path, true)
}

// tableNameOnly validates a request whose only required member is TableName.
func tableNameOnly(body []byte) (string, error) {
	var in tableNameInput
	if err := decode(body, &in); err != nil {
		return "", err
	}
	var c constraintErrors
	checkName(&c, in.TableName, "tableName", true)
	if err := c.err(); err != nil {
		return "", err
	}
	return *in.TableName, nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
