package api

import (
	"fmt"

	"github.com/dynamopg/dynamopg/server/attr"
)

// storedItem is an item a read returned, in the wire JSON the store keeps
// it in, decoded only when the read must look inside it.
type storedItem struct {
	json attr.ItemJSON
	item attr.Item // nil until decoded
}

// decoded returns the item, decoding it the first time.
func (s *storedItem) decoded() (attr.Item, error) {
	if s.item == nil {
		it, err := attr.DecodeItem(s.json)
		if err != nil {
			return nil, fmt.Errorf("decode stored item: %w", err)
		}
		s.item = it
	}
	return s.item, nil
}

// size is the item's Size, read from its JSON when it is not decoded.
func (s *storedItem) size() (int, error) {
	if s.item == nil {
		if n, ok := attr.StoredSize(s.json); ok {
			return n, nil
		}
	}
	it, err := s.decoded()
	if err != nil {
		return 0, err
	}
	return it.Size(), nil
}
