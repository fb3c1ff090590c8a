package pgstore

import (
	"encoding/json"
	"fmt"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// encodeItem is an item (or key) as pgstore's functions take it: jsonb wire
// form, NUL-escaped. nil stays nil (SQL NULL).
func encodeItem(it attr.Item) []byte {
	if it == nil {
		return nil
	}
	return escapeJSON(it.AppendJSON(nil))
}

// encodeItemSized is encodeItem of an item of DynamoDB size size (its
// names and values, itemSize): the buffer is allocated once, for the size
// and the JSON around each attribute, instead of grown from nothing.
func encodeItemSized(it attr.Item, size int32) []byte {
	if it == nil {
		return nil
	}
	return escapeJSON(it.AppendJSON(make([]byte, 0, int(size)+16*len(it)+16)))
}

// encodeValue is one attribute value in the same form.
func encodeValue(v attr.Value) []byte {
	return escapeJSON(v.AppendJSON(nil))
}

// encodeValues is a jsonb array of attribute values in the same form.
func encodeValues(vs []attr.Value) []byte {
	b := []byte{'['}
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = v.AppendJSON(b)
	}
	return escapeJSON(append(b, ']'))
}

// decodeItem reads an item the functions returned; NULL is nil.
func decodeItem(b []byte) (attr.Item, error) {
	if b == nil {
		return nil, nil
	}
	it, err := attr.DecodeItem(unescapeJSON(b))
	if err != nil {
		return nil, fmt.Errorf("pgstore: decode item: %w", err)
	}
	return it, nil
}

// decodeItems reads a list of items.
func decodeItems(rows [][]byte) ([]attr.Item, error) {
	out := make([]attr.Item, 0, len(rows))
	for _, r := range rows {
		it, err := decodeItem(r)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// encodeTable is a table's catalog JSON.
func encodeTable(t *store.Table) ([]byte, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("pgstore: encode table: %w", err)
	}
	return escapeJSON(b), nil
}

// decodeTable reads a table's catalog JSON.
func decodeTable(b []byte) (*store.Table, error) {
	var t store.Table
	if err := json.Unmarshal(unescapeJSON(b), &t); err != nil {
		return nil, fmt.Errorf("pgstore: decode table: %w", err)
	}
	return &t, nil
}
