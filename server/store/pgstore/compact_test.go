package pgstore

import "testing"

// TestCompactJSON compacts into a new slice, leaving the input as it was,
// and in place.
func TestCompactJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a": {"S": "x y"}, "b": {"L": [{"N": "1"}, {"BOOL": true}]}}`, `{"a":{"S":"x y"},"b":{"L":[{"N":"1"},{"BOOL":true}]}}`},
		{`{"s": {"S": "a, b: \"c\" \\ d\\"}, "t": {"S": " "}}`, `{"s":{"S":"a, b: \"c\" \\ d\\"},"t":{"S":" "}}`},
		{"{\"n\\u0001\": {\"S\": \"\\t\\n\"}}", "{\"n\\u0001\":{\"S\":\"\\t\\n\"}}"},
		{`{"a": "\"", "b": "\\\\", "c": "\\\"x\" "}`, `{"a":"\"","b":"\\\\","c":"\\\"x\" "}`},
		{`{}`, `{}`},
	} {
		in := []byte(tc.in)
		if got := string(appendCompactJSON(nil, in)); got != tc.want {
			t.Errorf("appendCompactJSON(nil, %s) = %s, want %s", tc.in, got, tc.want)
		}
		if string(in) != tc.in {
			t.Errorf("appendCompactJSON changed its input to %s", in)
		}
		if got := string(appendCompactJSON(in[:0], in)); got != tc.want {
			t.Errorf("appendCompactJSON(in[:0], %s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
