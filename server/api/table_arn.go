package api

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The operations that name one table in a top-level TableName accept the
// table's ARN there as well as its name (API reference: "You can also
// provide the Amazon Resource Name (ARN) of the table in this parameter").
// CreateTable takes a name only.
var tableARNOps = map[string]bool{
	"DescribeTable": true, "UpdateTable": true, "DeleteTable": true,
	"PutItem": true, "GetItem": true, "UpdateItem": true, "DeleteItem": true,
	"Query": true, "Scan": true,
	"UpdateTimeToLive": true, "DescribeTimeToLive": true,
	"DescribeContinuousBackups": true, "UpdateContinuousBackups": true,
}

// tableNameOfARN returns NAME from a table ARN arn:PARTITION:dynamodb:REGION:ACCOUNT:table/NAME.
func tableNameOfARN(s string) (string, bool) {
	parts := strings.SplitN(s, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "dynamodb" {
		return "", false
	}
	name, ok := strings.CutPrefix(parts[5], "table/")
	if !ok || name == "" || strings.Contains(name, "/") {
		return "", false
	}
	return name, true
}

// resolveTableARN rewrites a table ARN in the request's TableName to the
// table's name, so that every operation below sees a name. Any other body
// comes back as it is.
func resolveTableARN(op string, body []byte) []byte {
	if !tableARNOps[op] || !bytes.Contains(body, []byte(`"arn:`)) {
		return body
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	var ref string
	if raw, ok := m["TableName"]; !ok || json.Unmarshal(raw, &ref) != nil {
		return body
	}
	name, ok := tableNameOfARN(ref)
	if !ok {
		return body
	}
	m["TableName"], _ = json.Marshal(name)
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}
