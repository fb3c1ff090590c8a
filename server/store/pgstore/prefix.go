package pgstore

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// prefixEnd is the exclusive upper bound of BEGINS_WITH v as the Query
// statement's $3 compares it (item_query_sql), a jsonb attribute value of
// v's type; ok is false when there is none (every character U+10FFFF,
// every byte 0xFF). A string is compared as stored: with NUL and SOH
// spelled as escape.go spells them (escapeText), by code point, so its
// bound is a code point above; bytes compare in byte order.
func prefixEnd(v attr.Value) (end []byte, ok bool, err error) {
	switch v.T {
	case attr.TypeS:
		s, ok := prefixEndText(escapeText(v.S))
		if !ok {
			return nil, false, nil
		}
		quoted, err := json.Marshal(s) // as is: already in its stored form
		if err != nil {
			return nil, false, err
		}
		return append(append([]byte(`{"S":`), quoted...), '}'), true, nil
	case attr.TypeB:
		b := store.BytesPrefixEnd(v.B)
		if b == nil {
			return nil, false, nil
		}
		return []byte(`{"B":"` + base64.StdEncoding.EncodeToString(b) + `"}`), true, nil
	}
	return nil, false, fmt.Errorf("pgstore: begins_with needs S or B, not %s", v.T)
}

// prefixEndText is the least string above every string starting with s:
// its last character below U+10FFFF raised by one (past the surrogates),
// the rest dropped.
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
