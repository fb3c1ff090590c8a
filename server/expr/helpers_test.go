package expr

import (
	"encoding/json"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
)

// item decodes wire JSON ({"a":{"S":"x"}}) into an item.
func item(t testing.TB, s string) attr.Item {
	t.Helper()
	if s == "" {
		return nil
	}
	var it attr.Item
	if err := json.Unmarshal([]byte(s), &it); err != nil {
		t.Fatalf("bad test item %s: %v", s, err)
	}
	return it
}

func itemJSON(it attr.Item) string { return string(it.AppendJSON(nil)) }

// ctx builds a context from a names map and wire JSON values.
func ctx(t testing.TB, names map[string]string, values string) *Context {
	t.Helper()
	var vals map[string]attr.Value
	if values != "" {
		vals = item(t, values)
	}
	c, err := NewContext(names, vals)
	if err != nil {
		t.Fatalf("NewContext: %v", err)
	}
	return c
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	if _, ok := err.(*Error); !ok {
		return "not an *Error: " + err.Error()
	}
	return err.Error()
}
