package sqlitestore

import (
	"fmt"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// Key columns are BLOBs whose memcmp order is DynamoDB's key order:
//
//	S: the UTF-8 bytes (NUL included; byte order is DynamoDB's string order)
//	N: attr.NumberKey of the canonical text (exact, order-preserving)
//	B: the bytes
//
// The slices are never nil: a nil []byte binds as NULL.
func keyBytes(v attr.Value) []byte {
	switch v.T {
	case attr.TypeN:
		return attr.NumberKey(v.S)
	case attr.TypeB:
		return append([]byte{}, v.B...)
	default:
		return append([]byte{}, v.S...)
	}
}

// noSortKey is the sort key column's value when there is no sort key.
func noSortKey() []byte { return []byte{} }

// keyValue encodes one key attribute of an item, checking its type.
func keyValue(it attr.Item, k *store.KeyAttr) ([]byte, error) {
	if k == nil {
		return noSortKey(), nil
	}
	v, ok := it[k.Name]
	if !ok {
		return nil, fmt.Errorf("key attribute %q missing", k.Name)
	}
	if v.T != k.Type {
		return nil, fmt.Errorf("key attribute %q has type %s, want %s", k.Name, v.T, k.Type)
	}
	return keyBytes(v), nil
}

// rowKey is an item's position in a data table.
type rowKey struct {
	hk     int64
	pk, sk []byte
}

// tableKey encodes the primary key of a table item (or key).
func tableKey(t *store.Table, it attr.Item) (rowKey, error) {
	pk, err := keyValue(it, &t.Hash)
	if err != nil {
		return rowKey{}, err
	}
	sk, err := keyValue(it, t.Range)
	if err != nil {
		return rowKey{}, err
	}
	return rowKey{hk: int64(store.KeyHash(it[t.Hash.Name])), pk: pk, sk: sk}, nil
}

// indexKey is an item's position in an index table: its index key, then the
// base table key as the tie-break.
type indexKey struct {
	hk   int64    // KeyHash of the (first) index partition attribute
	hash [][]byte // ipk[, ipk2...]: one per partition attribute
	sort [][]byte // isk[, isk2...]: one per sort attribute; one empty BLOB without any
	base rowKey
}

// keyArgs are the index key columns' values in column order (keycols.go).
func (k indexKey) keyArgs() []any {
	out := make([]any, 0, len(k.hash)+len(k.sort))
	for _, b := range k.hash {
		out = append(out, b)
	}
	for _, b := range k.sort {
		out = append(out, b)
	}
	return out
}

// indexKeyOf encodes an item's index position; the item must be Indexable.
func indexKeyOf(t *store.Table, ix *store.Index, it attr.Item) (indexKey, error) {
	k := indexKey{hk: int64(store.KeyHash(it[ix.Hash.Name]))}
	for _, ka := range ix.HashAttrs() {
		b, err := keyValue(it, &ka)
		if err != nil {
			return indexKey{}, err
		}
		k.hash = append(k.hash, b)
	}
	for _, ka := range ix.RangeAttrs() {
		b, err := keyValue(it, &ka)
		if err != nil {
			return indexKey{}, err
		}
		k.sort = append(k.sort, b)
	}
	if len(k.sort) == 0 {
		k.sort = [][]byte{noSortKey()}
	}
	var err error
	if k.base, err = tableKey(t, it); err != nil {
		return indexKey{}, err
	}
	return k, nil
}

// nonNil turns a scanned empty BLOB (nil) back into a bindable empty BLOB.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
