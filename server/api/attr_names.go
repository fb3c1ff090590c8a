package api

import "github.com/dynamopg/dynamopg/server/attr"

// Attribute names: at least one byte, at most 65535 (the service's limit
// is "less than 65536 bytes"), at every level of an item, nested map keys
// included. The texts are the service's (ExtendDB measured the too-large
// one against it in 2026: "1 validation error detected: Attribute name is
// too large, must be less than 65536 bytes", for top-level names, nested
// map keys and names an UpdateItem writes); the empty one has the same
// form, DynamoDB Local's base text "Empty attribute name". Nested map keys
// may be empty, as the service's maps allow.

const maxAttributeNameBytes = 65535

// checkAttributeNames refuses an item with an empty top-level attribute
// name or any attribute name over maxAttributeNameBytes.
func checkAttributeNames(it attr.Item) error {
	for k, v := range it {
		if k == "" {
			return ValidationError("1 validation error detected: Empty attribute name")
		}
		if len(k) > maxAttributeNameBytes || nestedNameTooLarge(v) {
			return nameTooLarge()
		}
	}
	return nil
}

func nameTooLarge() *Error {
	return ValidationError("1 validation error detected: Attribute name is too large, must be less than 65536 bytes")
}

// nestedNameTooLarge reports a map key over the limit anywhere inside v.
func nestedNameTooLarge(v attr.Value) bool {
	switch v.T {
	case attr.TypeM:
		for k, e := range v.M {
			if len(k) > maxAttributeNameBytes || nestedNameTooLarge(e) {
				return true
			}
		}
	case attr.TypeL:
		for _, e := range v.L {
			if nestedNameTooLarge(e) {
				return true
			}
		}
	}
	return false
}
