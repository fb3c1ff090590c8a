package attr

import (
	"strings"
	"testing"
)

// plainWord agrees with a test per byte for every byte value at every
// position of the word, alone and beside every other byte value.
func TestPlainWord(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	for p := range 8 {
		for c := range 256 {
			for _, other := range []byte{'a', 0, 0x1f, 0x20, '"', '\\', 0x7f, 0x80, 0xff} {
				w := []byte(strings.Repeat(string(other), 8))
				w[p] = byte(c)
				want := true
				for _, x := range w {
					want = want && plain(x)
				}
				if got := plainWord(load8(string(w))); got != want {
					t.Fatalf("plainWord(%q) = %v, want %v", w, got, want)
				}
			}
		}
	}
}

// appendString escapes what a JSON string must escape wherever it falls
// in a long string (the eight-byte path and the byte path meet).
func TestAppendStringLong(t *testing.T) {
	for _, special := range []string{`"`, `\`, "\n", "\x01", "é", "\u2028", "\xff"} {
		for p := range 20 {
			s := strings.Repeat("a", p) + special + strings.Repeat("b", 20-p)
			got := string(appendString(nil, s))
			want := `"` + strings.Repeat("a", p) + string(appendStringSlow(special)) + strings.Repeat("b", 20-p) + `"`
			if got != want {
				t.Errorf("appendString(%q) = %s, want %s", s, got, want)
			}
		}
	}
}

// appendStringSlow is appendString of a string too short for the word path.
func appendStringSlow(s string) string {
	out := string(appendString(nil, s))
	return out[1 : len(out)-1]
}

func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 23) // ~1 KB
	buf := make([]byte, 0, 2048)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = appendString(buf[:0], s)
	}
}
