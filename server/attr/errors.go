package attr

// Error is a value that the service refuses. Serialization marks errors the
// service reports as SerializationException (wrong JSON shapes); the rest are
// ValidationException messages, given in the service's exact text.
type Error struct {
	Serialization bool
	Msg           string
}

func (e *Error) Error() string { return e.Msg }

func validationErr(msg string) *Error    { return &Error{Msg: msg} }
func serializationErr(msg string) *Error { return &Error{Serialization: true, Msg: msg} }

// Texts the service uses for values it refuses.
const (
	MsgEmptyValue      = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
	MsgMultipleTypes   = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
	MsgNullNotTrue     = "One or more parameter values were invalid: Null attribute value types must have the value of true"
	MsgEmptySS         = "One or more parameter values were invalid: An string set  may not be empty"
	MsgEmptyNS         = "One or more parameter values were invalid: An number set  may not be empty"
	MsgEmptyBS         = "One or more parameter values were invalid: Binary sets should not be empty"
	MsgNotNumeric      = "The parameter cannot be converted to a numeric value"
	MsgNumberOverflow  = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	MsgNumberUnderflow = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
	MsgNumberPrecision = "Attempting to store more than 38 significant digits in a Number"
	MsgNSDuplicates    = "Input collection contains duplicates"
	MsgNesting         = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
)
