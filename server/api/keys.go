package api

import (
	"sort"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// Key size limits of the service.
const (
	maxHashKeySize  = 2048
	maxRangeKeySize = 1024
)

func keyValueSize(v attr.Value) int {
	if v.T == attr.TypeB {
		return len(v.B)
	}
	return v.Size()
}

func emptyKeyErr(name string, v attr.Value) error {
	kind := "string"
	if v.T == attr.TypeB {
		kind = "binary"
	}
	return ValidationError("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty %s value. Key: %s", kind, name)
}

func isEmptyScalar(v attr.Value) bool {
	return (v.T == attr.TypeS && v.S == "") || (v.T == attr.TypeB && len(v.B) == 0)
}

// checkKeySizes applies the key size limits to a key's values.
func checkKeySizes(t *store.Table, it attr.Item) error {
	if v, ok := it[t.Hash.Name]; ok && keyValueSize(v) > maxHashKeySize {
		return invalid("Size of hashkey has exceeded the maximum size limit of2048 bytes")
	}
	if t.Range != nil {
		if v, ok := it[t.Range.Name]; ok && keyValueSize(v) > maxRangeKeySize {
			return invalid("Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
		}
	}
	return nil
}

// checkKey validates a Key member (GetItem, DeleteItem, UpdateItem).
func checkKey(t *store.Table, key attr.Item) error {
	names := t.KeyNames()
	if len(key) != len(names) {
		return ValidationError("The provided key element does not match the schema")
	}
	for _, ka := range []*store.KeyAttr{&t.Hash, t.Range} {
		if ka == nil {
			continue
		}
		v, ok := key[ka.Name]
		if !ok || v.T != ka.Type {
			return ValidationError("The provided key element does not match the schema")
		}
	}
	for _, n := range names {
		if isEmptyScalar(key[n]) {
			return emptyKeyErr(n, key[n])
		}
	}
	return checkKeySizes(t, key)
}

// checkItemKey validates the key attributes of a whole item (PutItem).
func checkItemKey(t *store.Table, it attr.Item) error {
	for _, ka := range []*store.KeyAttr{&t.Hash, t.Range} {
		if ka == nil {
			continue
		}
		v, ok := it[ka.Name]
		if !ok {
			return invalid("Missing the key %s in the item", ka.Name)
		}
		if v.T != ka.Type {
			return invalid("Type mismatch for key %s expected: %s actual: %s", ka.Name, ka.Type, v.T)
		}
		if isEmptyScalar(v) {
			return emptyKeyErr(ka.Name, v)
		}
	}
	return checkKeySizes(t, it)
}

// checkIndexKeys refuses index key attributes of the wrong type or empty,
// naming the alphabetically first index concerned, as the service does.
func checkIndexKeys(t *store.Table, it attr.Item, byUpdate bool) error {
	idx := make([]store.Index, len(t.Indexes))
	copy(idx, t.Indexes)
	sort.Slice(idx, func(i, j int) bool { return idx[i].Name < idx[j].Name })
	for _, ix := range idx {
		for _, ka := range []*store.KeyAttr{&ix.Hash, ix.Range} {
			if ka == nil {
				continue
			}
			v, ok := it[ka.Name]
			if !ok {
				continue
			}
			if v.T != ka.Type {
				return invalid("Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", ka.Name, ka.Type, v.T, ix.Name)
			}
			if isEmptyScalar(v) {
				kind := "string"
				if v.T == attr.TypeB {
					kind = "binary"
				}
				lead := "A value specified for a secondary index key is not supported."
				if byUpdate {
					lead = "The update expression attempted to update a secondary index key to a value that is not supported."
				}
				return ValidationError("One or more parameter values are not valid. %s The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s", lead, kind, ix.Name, ka.Name)
			}
		}
	}
	return nil
}
