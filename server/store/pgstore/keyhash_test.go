package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
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
	// Generated values of every length around the four-byte steps, with
	// the bytes the NUL escape involves (0x00, 0x01, 0x02) and multi-byte
	// runes.
	rng := rand.New(rand.NewPCG(17, 0))
	alphabet := []rune{0, 1, 2, 'a', 'z', 0x7f, 'é', '中', '😀'}
	for n := range 40 {
		for range 10 {
			var b strings.Builder
			for range n {
				b.WriteRune(alphabet[rng.IntN(len(alphabet))])
			}
			raw := make([]byte, n)
			for i := range raw {
				raw[i] = byte(rng.IntN(256))
			}
			vals = append(vals, attr.Str(b.String()), attr.Bin(raw))
		}
		vals = append(vals, attr.Num(fmt.Sprintf("%d", rng.Int64N(1e12)-5e11)), attr.Num(fmt.Sprintf("-%d.%d", n, rng.IntN(9)+1)))
	}
	wire := make([]string, len(vals))
	for i, v := range vals {
		wire[i] = pgValue(v)
	}
	rows, err := s.Pool().Query(context.Background(), "SELECT dynamopg.key_hash(v) FROM unnest($1::jsonb[]) WITH ORDINALITY u(v, n) ORDER BY n", wire)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var h int64
		if err := rows.Scan(&h); err != nil {
			t.Fatal(err)
		}
		if v := vals[i]; uint32(h) != store.KeyHash(v) || h < 0 || h > 1<<32-1 {
			t.Errorf("%q: key_hash %d, store.KeyHash %d", pgValue(v), h, store.KeyHash(v))
		}
	}
	if err := rows.Err(); err != nil || i != len(vals) {
		t.Fatalf("%d hashes of %d values: %v", i, len(vals), err)
	}
}

// pgValue is a value as pgstore sends it (NUL-escaped wire JSON).
func pgValue(v attr.Value) string {
	b := string(v.AppendJSON(nil))
	b = strings.ReplaceAll(b, `\u0001`, `\u0001\u0002`)
	return strings.ReplaceAll(b, `\u0000`, `\u0001\u0001`)
}
