package expr

import (
	"sort"
	"strings"

	"github.com/dynamopg/dynamopg/server/attr"
)

// maxPlaceholderLen is the longest key either placeholder map may have.
const maxPlaceholderLen = 255

// Context holds one request's ExpressionAttributeNames and
// ExpressionAttributeValues and records which of them its expressions used.
// Parse every expression of the request with the same Context, then call
// CheckUnused. A nil *Context behaves as a request without either map.
type Context struct {
	names      map[string]string
	values     map[string]attr.Value
	usedNames  map[string]bool
	usedValues map[string]bool
}

// NewContext validates the two maps as the service does before it parses any
// expression. A nil map means the parameter was absent; a non-nil empty map is
// refused ("... must not be empty"), as the service refuses an empty object.
// The values are expected to be validated already by the attribute decoder.
func NewContext(names map[string]string, values map[string]attr.Value) (*Context, error) {
	if names != nil {
		if len(names) == 0 {
			return nil, errf("ExpressionAttributeNames must not be empty")
		}
		for _, k := range sortedKeys(names) {
			if len(k) > maxPlaceholderLen {
				return nil, errf("ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: %d", len(k))
			}
			if !validPlaceholder(k, '#') {
				return nil, errf("ExpressionAttributeNames contains invalid key: Syntax error; key: %q", k)
			}
			if names[k] == "" {
				return nil, errf("ExpressionAttributeNames contains invalid value: Empty attribute name for key %s", k)
			}
		}
	}
	if values != nil {
		if len(values) == 0 {
			return nil, errf("ExpressionAttributeValues must not be empty")
		}
		for _, k := range sortedKeys(values) {
			// Unlike the names map, the service gives no size here.
			if len(k) > maxPlaceholderLen {
				return nil, errf("ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long")
			}
			if !validPlaceholder(k, ':') {
				return nil, errf("ExpressionAttributeValues contains invalid key: Syntax error; key: %q", k)
			}
		}
	}
	return &Context{
		names:      names,
		values:     values,
		usedNames:  map[string]bool{},
		usedValues: map[string]bool{},
	}, nil
}

// validPlaceholder reports whether k is prefix followed by one or more of
// [0-9A-Za-z_].
func validPlaceholder(k string, prefix byte) bool {
	if len(k) < 2 || k[0] != prefix {
		return false
	}
	for i := 1; i < len(k); i++ {
		if !isIdentPart(k[i]) {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// name resolves a #placeholder and marks it used.
func (c *Context) name(placeholder string) (string, bool) {
	if c == nil {
		return "", false
	}
	n, ok := c.names[placeholder]
	if ok {
		c.usedNames[placeholder] = true
	}
	return n, ok
}

// value resolves a :placeholder and marks it used.
func (c *Context) value(placeholder string) (attr.Value, bool) {
	if c == nil {
		return attr.Value{}, false
	}
	v, ok := c.values[placeholder]
	if ok {
		c.usedValues[placeholder] = true
	}
	return v, ok
}

// CheckUnused refuses placeholders that no expression parsed with this
// Context used. Names are checked before values, as the service does; keys
// are listed sorted (the service's order is not specified).
func (c *Context) CheckUnused() error {
	if c == nil {
		return nil
	}
	if unused := unusedKeys(c.names, c.usedNames); unused != "" {
		return errf("Value provided in ExpressionAttributeNames unused in expressions: keys: {%s}", unused)
	}
	if unused := unusedKeys(c.values, c.usedValues); unused != "" {
		return errf("Value provided in ExpressionAttributeValues unused in expressions: keys: {%s}", unused)
	}
	return nil
}

func unusedKeys[V any](m map[string]V, used map[string]bool) string {
	var out []string
	for _, k := range sortedKeys(m) {
		if !used[k] {
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}
