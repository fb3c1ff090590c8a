package attr

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestStoredSize reads the size of random items from their wire JSON, compact
// as AppendJSON writes it and spaced as PostgreSQL's jsonb prints it.
func TestStoredSize(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 3000 {
		it := randItem(r, 1+i%5)
		data := it.AppendJSON(nil)
		for _, form := range [][]byte{data, jsonbSpaced(data)} {
			if n, ok := StoredSize(form); !ok || n != it.Size() {
				t.Fatalf("StoredSize(%s) = %d, %v; want %d", form, n, ok, it.Size())
			}
		}
	}
	// Numbers not in canonical form are sized as ParseNumber reads them.
	if n, ok := StoredSize([]byte(`{"n":{"N":"0012.50"}}`)); !ok || n != (Item{"n": Num("12.5")}).Size() {
		t.Fatalf("non-canonical number: %d, %v", n, ok)
	}
}

// TestStoredSizeRefuses: what is not an item in its stored shape is left to
// the decoder.
func TestStoredSizeRefuses(t *testing.T) {
	for _, in := range []string{
		``, `null`, `[]`, `{"a":"x"}`, `{"a":{}}`, `{"a":{"S":"x","N":"1"}}`, `{"a":{"X":"x"}}`,
		`{"a":{"N":"x"}}`, `{"a":{"B":"abc"}}`, `{"a":{"BOOL":1}}`, `{"a":{"L":{}}}`, `{"a":{"M":[]}}`,
		`{"a":{"SS":["x",1]}}`, `{"a":{"S":"x"}}x`, `{"a":{"S":"x"}`, `{"a":{"S":"x}}`,
	} {
		if n, ok := StoredSize([]byte(in)); ok {
			t.Errorf("StoredSize(%s) = %d, true; want false", in, n)
		}
	}
}

// jsonbSpaced puts a space after every ':' and ',' outside strings, as
// jsonb's text output does.
func jsonbSpaced(b []byte) []byte {
	var out bytes.Buffer
	in, esc := false, false
	for _, c := range b {
		out.WriteByte(c)
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ':' || c == ','):
			out.WriteByte(' ')
		}
	}
	return out.Bytes()
}

func BenchmarkStoredSize(b *testing.B) {
	data := benchItem()
	for b.Loop() {
		if _, ok := StoredSize(data); !ok {
			b.Fatal("not a stored item")
		}
	}
}
