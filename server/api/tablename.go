package api

import (
	"regexp"
	"strconv"
)

var namePattern = regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)

// checkName records the service's constraints on a table or index name.
func checkName(c *constraintErrors, name *string, path string, required bool) {
	if name == nil {
		if required {
			c.notNull(false, path)
		}
		return
	}
	n := *name
	if !namePattern.MatchString(n) {
		c.add(&n, path, "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
	}
	if len(n) < 3 {
		c.add(&n, path, "Member must have length greater than or equal to 3")
	}
	if len(n) > 255 {
		c.add(&n, path, "Member must have length less than or equal to 255")
	}
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
