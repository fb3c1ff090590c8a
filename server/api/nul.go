package api

import "strings"

// PostgreSQL's text type cannot hold U+0000, and SQLite's C strings end at
// it, so a name, ARN or token holding one would fail its statement (a 500)
// or be cut short and collide with another. Such members name nothing the
// service could have created: they are refused before any statement.
// Strings inside items (attribute values and names) are data and are kept
// whole by both stores.

// msgNoNUL is dynamopg's constraint text for a member holding U+0000 (the
// service documents no pattern for these members).
const msgNoNUL = "Member must not contain the NUL character (U+0000)"

// hasNUL reports whether s holds U+0000.
func hasNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }

// checkNoNUL records msgNoNUL for a member holding U+0000.
func checkNoNUL(c *constraintErrors, v *string, path string) {
	if v != nil && hasNUL(*v) {
		c.add(v, path, msgNoNUL)
	}
}
