package pgstore

import (
	"bytes"
	"strings"
)

// PostgreSQL text and jsonb cannot hold U+0000. Every JSON text pgstore sends
// has its strings rewritten with an order-preserving, prefix-free escape
//
//	U+0001 → U+0001 U+0002
//	U+0000 → U+0001 U+0001
//
// and everything it reads is rewritten back (sql/README.md). In JSON text
// these characters only appear as the escapes \u0000 and \u0001 (both
// attr.Item.AppendJSON and encoding/json write control characters so, and
// so does PostgreSQL's jsonb output), so the rewriting works on the text.

var (
	seqNUL = []byte(`\u0000`)
	seqSOH = []byte(`\u0001`)
)

// escapeText is the escape on a string itself: the text a string's stored
// form holds.
func escapeText(s string) string { return textEscaper.Replace(s) }

var textEscaper = strings.NewReplacer("\x00", "\x01\x01", "\x01", "\x01\x02")

// escapeJSON returns JSON text without \u0000 escapes; b itself when there
// is nothing to do.
func escapeJSON(b []byte) []byte {
	if !bytes.Contains(b, seqNUL) && !bytes.Contains(b, seqSOH) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			i++
			continue
		}
		switch {
		case bytes.HasPrefix(b[i:], seqNUL):
			out = append(out, `\u0001\u0001`...)
			i += len(seqNUL)
		case bytes.HasPrefix(b[i:], seqSOH):
			out = append(out, `\u0001\u0002`...)
			i += len(seqSOH)
		default: // any other escape, \\ included, is copied whole
			out = append(out, c, b[i+1])
			i += 2
		}
	}
	return out
}

// unescapeJSON reverses escapeJSON on JSON text read from PostgreSQL.
func unescapeJSON(b []byte) []byte {
	if !bytes.Contains(b, seqSOH) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			i++
			continue
		}
		switch {
		case bytes.HasPrefix(b[i:], []byte(`\u0001\u0001`)):
			out = append(out, seqNUL...)
			i += 2 * len(seqSOH)
		case bytes.HasPrefix(b[i:], []byte(`\u0001\u0002`)):
			out = append(out, seqSOH...)
			i += 2 * len(seqSOH)
		default:
			out = append(out, c, b[i+1])
			i += 2
		}
	}
	return out
}

// appendCompactJSON appends JSON text b to out without the whitespace
// outside its strings: jsonb's output (`{"a": {"S": "x"}}`) as a response
// writes JSON. out may be b[:0], compacting b in place (the text only moves
// towards its start); otherwise b is not changed (ItemGet's images keep
// it). A string's text is copied by runs up to its next quote or backslash.
func appendCompactJSON(out, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		switch c {
		case ' ', '\n', '\t', '\r':
			i++
			continue
		case '"':
		default:
			out = append(out, c)
			i++
			continue
		}
		// A string: from its opening quote to its closing one.
		out = append(out, '"')
		i++
		for i < len(b) {
			j := bytes.IndexByte(b[i:], '"')
			if j < 0 {
				return append(out, b[i:]...) // not JSON: left as it is
			}
			if k := bytes.IndexByte(b[i:i+j], '\\'); k >= 0 {
				// An escape: copy through it (it may escape a quote).
				end := min(i+k+2, len(b))
				out = append(out, b[i:end]...)
				i = end
				continue
			}
			out = append(out, b[i:i+j+1]...)
			i += j + 1
			break
		}
	}
	return out
}
