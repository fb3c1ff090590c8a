package api

// A request's payload is one JSON object (AWS JSON 1.0). The service reads
// it with a strict JSON parser and answers anything else before looking at
// a member: a body that is not JSON at all is a SerializationException
// with no message; a list where the request structure belongs gets the
// Java deserializer's "Start of list found where not expected"; null, a
// number, a string or a boolean is refused like a body it cannot read, so
// that `null` is never taken for `{}` (a ListTables of `null` listed the
// tables). An empty body is still read as `{}`.

// checkPayload refuses a body whose top-level JSON value is not an object.
func checkPayload(body []byte) error {
	for _, c := range body {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return nil
		case '[':
			return SerializationError("Start of list found where not expected")
		default:
			return SerializationError("")
		}
	}
	return nil
}

// checkBody runs the checks every operation's body gets before it is
// decoded: Unicode (text.go), then the payload's shape.
func checkBody(body []byte) error {
	if err := checkText(body); err != nil {
		return err
	}
	return checkPayload(body)
}
