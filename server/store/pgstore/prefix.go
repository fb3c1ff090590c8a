package pgstore

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dynamopg/dynamopg/server/attr"
)

// prefixEnd is dynamopg.prefix_end of the stored form of v: the exclusive
// upper bound of BEGINS_WITH v, as a jsonb attribute value of v's type,
// for the Query statement's $3; ok is false when there is none (every
// character U+10FFFF, every byte 0xFF). A string is compared as stored:
// with NUL and SOH spelled as escape.go spells them.
func prefixEnd(v attr.Value) (end []byte, ok bool, err error) {
	switch v.T {
	case attr.TypeS:
		s, ok := prefixEndText(storedText.Replace(v.S))
		if !ok {
			return nil, false, nil
		}
		quoted, err := json.Marshal(s) // as is: already in its stored form
		if err != nil {
			return nil, false, err
		}
		return append(append([]byte(`{"S":`), quoted...), '}'), true, nil
	case attr.TypeB:
		b, ok := prefixEndBytes(v.B)
		if !ok {
			return nil, false, nil
		}
		return []byte(`{"B":"` + base64.StdEncoding.EncodeToString(b) + `"}`), true, nil
	}
	return nil, false, fmt.Errorf("pgstore: begins_with needs S or B, not %s", v.T)
}

// storedText spells NUL and SOH as the stored form does (escapeJSON).
var storedText = strings.NewReplacer("\x00", "\x01\x01", "\x01", "\x01\x02")

// prefixEndText is dynamopg.prefix_end_text: the last character below
// U+10FFFF raised by one (past the surrogates), the rest dropped.
func prefixEndText(s string) (string, bool) {
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
		if r < utf8.MaxRune {
			r++
			if r == 0xD800 {
				r = 0xE000 // skip the surrogates D800-DFFF
			}
			return s + string(r), true
		}
	}
	return "", false
}

// prefixEndBytes is dynamopg.prefix_end_bytea: the last byte below 0xFF
// raised by one, the rest dropped.
func prefixEndBytes(p []byte) ([]byte, bool) {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] < 0xff {
			end := append([]byte(nil), p[:i+1]...)
			end[i]++
			return end, true
		}
	}
	return nil, false
}
