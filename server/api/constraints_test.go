package api

import (
	"strings"
	"testing"
)

func TestConstraintErrorsCap(t *testing.T) {
	var c constraintErrors
	for i := 0; i < 11; i++ {
		c.notNull(false, "m")
	}
	msg := c.err().Message
	if !strings.HasPrefix(msg, "10 validation errors detected: ") || strings.Count(msg, "Member must not be null") != 10 {
		t.Errorf("11 failures: %s", msg)
	}
}

func TestCheckTableRef(t *testing.T) {
	cases := map[string]string{
		"":     "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 1",
		"ab":   "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3",
		"a b!": "1 validation error detected: Value 'a b!' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
		"ok1":  "",
	}
	for name, want := range cases {
		var c constraintErrors
		n := name
		checkTableRef(&c, &n, "tableName")
		got := ""
		if e := c.err(); e != nil {
			got = e.Message
		}
		if got != want {
			t.Errorf("%q:\n got  %s\n want %s", name, got, want)
		}
	}
}
