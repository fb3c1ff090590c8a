package api

import "testing"

func TestValidText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{"pk":{"S":"k"}}`, true},
		{`{"pk":{"S":"é \u00e9 \ud83d\ude00 😀"}}`, true},
		{`{"pk":{"S":"k` + "\xff" + `"}}`, false},
		{`{"pk":{"S":"k` + "\xfe" + `"}}`, false},
		{`{"pk":{"S":"k` + "\xed\xa0\x80" + `"}}`, false}, // U+D800 encoded as UTF-8
		{`{"pk":{"S":"k\ud800"}}`, false},
		{`{"pk":{"S":"k\uD800x"}}`, false},
		{`{"pk":{"S":"k\udc00"}}`, false},
		{`{"pk":{"S":"k\ud800\u0041"}}`, false},
		{`{"pk":{"S":"k\ud800\ud800"}}`, false},
		{`{"pk":{"S":"k\ud800`, false},
		{`{"pk":{"S":"k\\ud800"}}`, true},        // an escaped backslash, then text
		{`{"pk":{"S":"k\\\ud83d\ude00"}}`, true}, // \\ then a pair
		{`{"pk":{"S":"k\\\ud800"}}`, false},
		{`{"pk":{"S":"\u12"}}`, true}, // malformed: the decoder's to report
		{`\`, true},
	} {
		if got := validText([]byte(tc.in)); got != tc.want {
			t.Errorf("validText(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
