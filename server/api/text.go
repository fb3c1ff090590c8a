package api

import (
	"bytes"
	"unicode/utf8"
)

// JSON text that is not Unicode. encoding/json (and attr's decoder, which
// follows it) replaces invalid UTF-8 bytes and lone surrogate escapes with
// U+FFFD, so keys "k\xff", "k\xfe" and "k\ud800" would all decode to
// "k\ufffd": three acknowledged writes landing on one item. The service
// reads its requests with a strict UTF-8 JSON parser and answers a body it
// cannot read with SerializationException (400, no message), so dynamopg
// refuses such a body whole before decoding it.

// checkText refuses a request body holding invalid UTF-8 or a \u escape of
// a lone surrogate. A malformed escape is left to the decoder to report.
func checkText(body []byte) error {
	if validText(body) {
		return nil
	}
	return SerializationError("")
}

// validText reports whether b is valid UTF-8 whose \u escapes encode only
// whole surrogate pairs. Outside strings a backslash is malformed JSON,
// which the decoder reports, so escapes are found without tracking strings.
func validText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 {
			return true
		}
		i += j + 1 // the escaped character
		if i >= len(b) {
			return true
		}
		if b[i] != 'u' {
			i++ // \\, \", \n, ...: the escaped character is not an escape
			continue
		}
		r, ok := hex4(b[i+1:])
		if !ok {
			continue
		}
		i += 5
		switch {
		case 0xDC00 <= r && r <= 0xDFFF:
			return false // a low surrogate with no high one before it
		case 0xD800 <= r && r <= 0xDBFF:
			if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
				return false
			}
			if lo, ok := hex4(b[i+2:]); !ok || lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			i += 6
		}
	}
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
