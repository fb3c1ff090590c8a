package pgstore

import (
	"context"
	"strings"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// prefixEnd is dynamopg.prefix_end of the stored form: for strings with
// escapes, NUL and SOH, characters at the top of the range and before the
// surrogates, and byte strings ending in 0xFF, Go's bound is the jsonb the
// SQL function returns, and "none" where it returns NULL.
func TestPrefixEndIsTheSQLFunctions(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, pgtest.URL(t), Options{Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	values := []attr.Value{
		attr.Str("a"), attr.Str("abc"), attr.Str("a\"b\\c"), attr.Str("é"), attr.Str("日本"),
		attr.Str("a\x00"), attr.Str("a\x01"), attr.Str("\x00\x01\x02"), attr.Str("x\u007f"),
		attr.Str("a\U0010FFFF"), attr.Str("\U0010FFFF\U0010FFFF"), attr.Str("a\uD7FF"), attr.Str("\uFFFF"),
		attr.Str(strings.Repeat("z", 300)),
		attr.Bin([]byte{0}), attr.Bin([]byte{1, 2, 0xff}), attr.Bin([]byte{0xff, 0xff}), attr.Bin([]byte{0xfe, 0xff}),
		attr.Bin([]byte(strings.Repeat("\x10", 100))),
	}
	for _, v := range values {
		end, ok, err := prefixEnd(v)
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		var want []byte
		if err := s.pool.QueryRow(ctx, `SELECT dynamopg.prefix_end($1::jsonb)`, encodeValue(v)).Scan(&want); err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		if ok != (want != nil) {
			t.Fatalf("%v: Go has a bound %v (%s), SQL %s", v, ok, end, want)
		}
		if !ok {
			continue
		}
		var same bool
		// Binary bounds as bytes: PostgreSQL's base64 breaks its lines.
		if err := s.pool.QueryRow(ctx, `SELECT CASE WHEN $1::jsonb ? 'B'
		    THEN decode($1::jsonb->>'B', 'base64') = decode($2::jsonb->>'B', 'base64')
		    ELSE $1::jsonb = $2::jsonb END`, end, want).Scan(&same); err != nil {
			t.Fatalf("%v: %s: %v", v, end, err)
		}
		if !same {
			t.Fatalf("%v: Go's bound %s, SQL's %s", v, end, want)
		}
	}
	if _, _, err := prefixEnd(attr.Num("1")); err == nil {
		t.Fatal("a number prefix was accepted")
	}
}
