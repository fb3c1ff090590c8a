package server

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
)

// maxTablesLogged bounds the table names a batch request's log line lists.
const maxTablesLogged = 5

// tableOf finds the table a request names, for logs: TableName, the keys of
// RequestItems (batch operations), or the table of a ResourceArn (tags). It
// reads only the top level of the body and never fails: "" when none.
func tableOf(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return ""
		}
		key, _ := kt.(string)
		switch key {
		case "TableName":
			var name string
			if dec.Decode(&name) != nil {
				return ""
			}
			return name
		case "ResourceArn":
			var arn string
			if dec.Decode(&arn) != nil {
				return ""
			}
			if i := strings.LastIndex(arn, ":table/"); i >= 0 {
				return arn[i+len(":table/"):]
			}
			return ""
		case "RequestItems":
			var m map[string]json.RawMessage
			if dec.Decode(&m) != nil {
				return ""
			}
			names := make([]string, 0, len(m))
			for k := range m {
				names = append(names, k)
			}
			sort.Strings(names)
			if len(names) > maxTablesLogged {
				names = append(names[:maxTablesLogged], "…")
			}
			return strings.Join(names, ",")
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return ""
			}
		}
	}
	return ""
}
