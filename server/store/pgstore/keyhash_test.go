package pgstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// TestKeyHash: the SQL function key_hash, which places rows in scan
// segments, agrees with store.KeyHash.
func TestKeyHash(t *testing.T) {
	s := newStore(t)
	vals := []attr.Value{attr.Str("a"), attr.Str("\x00"), attr.Str("\x01\x00x"), attr.Str("中文😀"), attr.Num("-1.5"), attr.Num("0"),
		attr.Bin(nil), attr.Bin([]byte{0, 1, 0xff})}
	for _, v := range vals {
		var h int64
		err := s.Pool().QueryRow(context.Background(), "SELECT dynamopg.key_hash($1::jsonb)", pgValue(v)).Scan(&h)
		if err != nil {
			t.Fatal(err)
		}
		if uint32(h) != store.KeyHash(v) || h < 0 || h > 1<<32-1 {
			t.Errorf("%v: key_hash %d, store.KeyHash %d", v, h, store.KeyHash(v))
		}
	}
}

// pgValue is a value as pgstore sends it (NUL-escaped wire JSON).
func pgValue(v attr.Value) string {
	b := string(v.AppendJSON(nil))
	b = strings.ReplaceAll(b, `\u0001`, `\u0001\u0002`)
	return strings.ReplaceAll(b, `\u0000`, `\u0001\u0001`)
}
