package api

import (
	"regexp"
	"testing"
)

func TestValidName(t *testing.T) {
	pattern := regexp.MustCompile(`^[a-zA-Z0-9_.-]+$`)
	names := []string{"", "a", "abc", "A-b_c.9", "a b", "a\n", "\na", "é", "a\x00", "a/b", "ab$", "^ab", "a+", strings255()}
	for c := 0; c < 256; c++ {
		names = append(names, string(rune(c)), "ab"+string([]byte{byte(c)}), string([]byte{byte(c)})+"ab")
	}
	for _, n := range names {
		if got, want := validName(n), pattern.MatchString(n); got != want {
			t.Errorf("validName(%q) = %v, the pattern says %v", n, got, want)
		}
	}
}

func strings255() string {
	b := make([]byte, 255)
	for i := range b {
		b[i] = "abc-_.019XYZ"[i%12]
	}
	return string(b)
}
