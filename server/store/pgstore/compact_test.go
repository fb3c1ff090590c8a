package pgstore

import "testing"

func TestCompactJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a": {"S": "x y"}, "b": {"L": [{"N": "1"}, {"BOOL": true}]}}`, `{"a":{"S":"x y"},"b":{"L":[{"N":"1"},{"BOOL":true}]}}`},
		{`{"s": {"S": "a, b: \"c\" \\ d\\"}, "t": {"S": " "}}`, `{"s":{"S":"a, b: \"c\" \\ d\\"},"t":{"S":" "}}`},
		{"{\"n\\u0001\": {\"S\": \"\\t\\n\"}}", "{\"n\\u0001\":{\"S\":\"\\t\\n\"}}"},
		{`{"a": "\"", "b": "\\\\", "c": "\\\"x\" "}`, `{"a":"\"","b":"\\\\","c":"\\\"x\" "}`},
		{`{}`, `{}`},
	} {
		in := []byte(tc.in)
		if got := string(compactJSON(in)); got != tc.want {
			t.Errorf("compactJSON(%s) = %s, want %s", tc.in, got, tc.want)
		}
		if string(in) != tc.in {
			t.Errorf("compactJSON changed its input to %s", in)
		}
	}
}
