package store

// HashAttrs returns the index's partition key attributes in KeySchema
// order (one, or up to four for a multi-attribute key).
func (ix *Index) HashAttrs() []KeyAttr {
	return append([]KeyAttr{ix.Hash}, ix.MoreHash...)
}

// RangeAttrs returns the index's sort key attributes in KeySchema order
// (none, one, or up to four for a multi-attribute key).
func (ix *Index) RangeAttrs() []KeyAttr {
	if ix.Range == nil {
		return nil
	}
	return append([]KeyAttr{*ix.Range}, ix.MoreRange...)
}

// KeyAttrs returns every key attribute of the index in KeySchema order: the
// partition attributes, then the sort attributes.
func (ix *Index) KeyAttrs() []KeyAttr {
	return append(ix.HashAttrs(), ix.RangeAttrs()...)
}

// MultiKey reports whether the index has a multi-attribute key (more than
// one partition or more than one sort attribute).
func (ix *Index) MultiKey() bool {
	return len(ix.MoreHash) > 0 || len(ix.MoreRange) > 0
}

// IsKey reports whether name is one of the index's key attributes.
func (ix *Index) IsKey(name string) bool {
	for _, k := range ix.KeyAttrs() {
		if k.Name == name {
			return true
		}
	}
	return false
}
