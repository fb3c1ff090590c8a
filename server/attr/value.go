// Package attr owns DynamoDB attribute values: their Go representation, the
// wire JSON codec with the service's validation texts, numbers with 38-digit
// precision, item size accounting, ordering and key encodings.
package attr

// Type is the DynamoDB data type of a Value.
type Type uint8

// The data types, in the order the wire format names them.
const (
	TypeNone Type = iota
	TypeS
	TypeN
	TypeB
	TypeBOOL
	TypeNULL
	TypeM
	TypeL
	TypeSS
	TypeNS
	TypeBS
)

var typeNames = [...]string{"", "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}

// String returns the wire name of the type ("S", "NS", ...).
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "?"
}

// TypeFromName maps a wire name ("S", "N", "B", ...) to a Type; TypeNone if unknown.
func TypeFromName(s string) Type {
	for i, n := range typeNames {
		if i > 0 && n == s {
			return Type(i)
		}
	}
	return TypeNone
}

// Value is one attribute value. Exactly the field matching T is meaningful:
// S holds the string of TypeS and the canonical text of TypeN; Strs holds the
// members of TypeSS and TypeNS (numbers canonical).
//
// Bool sits next to T so that a Value is 128 bytes: maps store larger
// elements out of line, an allocation for every Item member.
type Value struct {
	T    Type
	Bool bool
	S    string
	B    []byte
	M    map[string]Value
	L    []Value
	Strs []string
	Bins [][]byte
}

// Item is a DynamoDB item (or key): attribute name to value.
type Item map[string]Value

// Constructors for the common cases.
func Str(s string) Value           { return Value{T: TypeS, S: s} }
func Bin(b []byte) Value           { return Value{T: TypeB, B: b} }
func Bool(b bool) Value            { return Value{T: TypeBOOL, Bool: b} }
func Null() Value                  { return Value{T: TypeNULL, Bool: true} }
func Map(m map[string]Value) Value { return Value{T: TypeM, M: m} }
func List(l []Value) Value         { return Value{T: TypeL, L: l} }

// Num returns a number value from text that is already canonical (see ParseNumber).
func Num(canonical string) Value { return Value{T: TypeN, S: canonical} }

// IsSet reports whether the value is SS, NS or BS.
func (v Value) IsSet() bool { return v.T == TypeSS || v.T == TypeNS || v.T == TypeBS }

// SetLen is the number of members of a set value.
func (v Value) SetLen() int {
	if v.T == TypeBS {
		return len(v.Bins)
	}
	return len(v.Strs)
}

// Clone returns a deep copy of the value.
func (v Value) Clone() Value {
	switch v.T {
	case TypeM:
		m := make(map[string]Value, len(v.M))
		for k, e := range v.M {
			m[k] = e.Clone()
		}
		v.M = m
	case TypeL:
		l := make([]Value, len(v.L))
		for i, e := range v.L {
			l[i] = e.Clone()
		}
		v.L = l
	case TypeSS, TypeNS:
		v.Strs = append([]string(nil), v.Strs...)
	case TypeBS:
		v.Bins = append([][]byte(nil), v.Bins...)
	}
	return v
}

// Clone returns a deep copy of the item.
func (it Item) Clone() Item {
	if it == nil {
		return nil
	}
	out := make(Item, len(it))
	for k, v := range it {
		out[k] = v.Clone()
	}
	return out
}
