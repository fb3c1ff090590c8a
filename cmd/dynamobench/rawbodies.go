package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Request bodies of the workloads in raw form: pre-encoded DynamoDB JSON
// with the keys appended per call. Keys and the payload are plain ASCII,
// so nothing needs escaping.

func appendKey(b []byte, prefix string, n, width int) []byte {
	b = append(b, prefix...)
	var d [20]byte
	s := strconv.AppendInt(d[:0], int64(n), 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

func appendNewKey(b []byte) []byte { return appendKey(b, "n", int(keySeq.Add(1)), 0) }
func appendGetKey(b []byte) []byte { return appendKey(b, "k", rand.IntN(getKeys), 4) }
func appendGSIKey(b []byte) []byte { return appendKey(b, "g", rand.IntN(gsiGroups), 3) }

// appendItem appends dynItem(pk, "s", g, g2) as JSON, with pk, g and g2
// appended by the functions given.
func appendItem(b []byte, pk, g, g2 func([]byte) []byte) []byte {
	b = append(b, `{"pk":{"S":"`...)
	b = pk(b)
	b = append(b, `"},"sk":{"S":"s"},"g":{"S":"`...)
	b = g(b)
	b = append(b, `"},"g2":{"S":"`...)
	b = g2(b)
	b = append(b, `"},"n":{"N":"1"},"data":{"S":"`...)
	b = append(b, payload...)
	return append(b, `"}}`...)
}

func constKey(s string) func([]byte) []byte { return func(b []byte) []byte { return append(b, s...) } }

var gKey = constKey("g")

func tableField(table string) string { return `{"TableName":` + strconv.Quote(table) }

func rawPut(table string, cond bool) rawOp {
	head := tableField(table) + `,"Item":`
	tail := "}"
	if cond {
		tail = `,"ConditionExpression":"attribute_not_exists(pk)"}`
	}
	return rawOp{op: "PutItem", body: func(b []byte, _ int) []byte {
		b = append(b, head...)
		b = appendItem(b, appendNewKey, gKey, gKey)
		return append(b, tail...)
	}, check: expectObject}
}

func rawPut2GSI(table string) rawOp {
	head := tableField(table) + `,"Item":`
	return rawOp{op: "PutItem", body: func(b []byte, _ int) []byte {
		b = append(b, head...)
		b = appendItem(b, appendNewKey, appendGSIKey, appendGSIKey)
		return append(b, '}')
	}, check: expectObject}
}

// rawPutLSI replaces a preloaded item of the LSI table (lsiKey), with a
// new LSI sort key g.
func rawPutLSI(table string) rawOp {
	head := tableField(table) + `,"Item":{"pk":{"S":"`
	return rawOp{op: "PutItem", body: func(b []byte, _ int) []byte {
		b = append(b, head...)
		b = appendKey(b, "c", rand.IntN(lsiParts), 2)
		b = append(b, `"},"sk":{"S":"`...)
		b = appendKey(b, "s", rand.IntN(lsiPartSize), 3)
		b = append(b, `"},"g":{"S":"`...)
		b = appendGSIKey(b)
		b = append(b, `"},"g2":{"S":"g"},"n":{"N":"1"},"data":{"S":"`...)
		b = append(b, payload...)
		return append(b, `"}}}`...)
	}, check: expectObject}
}

// rawTransactGet reads n distinct preloaded items of the plain table.
func rawTransactGet(table string, n int) rawOp {
	get := `{"Get":{"TableName":` + strconv.Quote(table) + `,"Key":{"pk":{"S":"`
	return rawOp{op: "TransactGetItems", body: func(b []byte, _ int) []byte {
		b = append(b, `{"TransactItems":[`...)
		first := rand.IntN(getKeys)
		for i := 0; i < n; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, get...)
			b = appendKey(b, "k", (first+i*(getKeys/n))%getKeys, 4)
			b = append(b, `"},"sk":{"S":"s"}}}}`...)
		}
		return append(b, "]}"...)
	}, check: expectMember("Responses", "[")}
}

// rawBatchGet reads n distinct preloaded items of the plain table.
func rawBatchGet(table string, n int) rawOp {
	head := `{"RequestItems":{` + strconv.Quote(table) + `:{"Keys":[`
	return rawOp{op: "BatchGetItem", body: func(b []byte, _ int) []byte {
		b = append(b, head...)
		first := rand.IntN(getKeys)
		for i := 0; i < n; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"pk":{"S":"`...)
			b = appendKey(b, "k", (first+i*(getKeys/n))%getKeys, 4)
			b = append(b, `"},"sk":{"S":"s"}}`...)
		}
		return append(b, "]}}}"...)
	}, check: expectMember("Responses", "{")}
}

func rawGet(table string) rawOp {
	head := tableField(table) + `,"Key":{"pk":{"S":"`
	return rawOp{op: "GetItem", body: func(b []byte, _ int) []byte {
		b = append(b, head...)
		b = appendGetKey(b)
		return append(b, `"},"sk":{"S":"s"}}}`...)
	}, check: expectMember("Item", "{")}
}

func rawUpdate(table string) rawOp {
	head := tableField(table) + `,"Key":{"pk":{"S":"`
	return rawOp{op: "UpdateItem", body: func(b []byte, _ int) []byte {
		b = append(b, head...)
		b = appendGetKey(b)
		b = append(b, `"},"sk":{"S":"s"}},"UpdateExpression":"SET n = :n","ExpressionAttributeValues":{":n":{"N":"`...)
		b = strconv.AppendInt(b, int64(rand.IntN(1e6)), 10)
		return append(b, `"}}}`...)
	}, check: expectObject}
}

func rawQuery(table string) rawOp {
	head := tableField(table) + `,"KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"`
	return rawOp{op: "Query", body: func(b []byte, _ int) []byte {
		b = append(b, head...)
		b = appendKey(b, "q", rand.IntN(queryParts), 3)
		return append(b, `"}}}`...)
	}, check: expectMember("Count", strconv.Itoa(queryPartSize))}
}

func rawQueryGSI(table string) rawOp {
	head := tableField(table) + `,"IndexName":"byG","KeyConditionExpression":"g = :g","ExpressionAttributeValues":{":g":{"S":"`
	return rawOp{op: "Query", body: func(b []byte, _ int) []byte {
		b = append(b, head...)
		b = appendGSIKey(b)
		return append(b, `"}}}`...)
	}, check: expectMember("Count", "10")}
}

func rawBatch(table string, n int) rawOp {
	head := `{"RequestItems":{` + strconv.Quote(table) + `:[`
	return rawOp{op: "BatchWriteItem", body: func(b []byte, _ int) []byte {
		b = append(b, head...)
		for i := 0; i < n; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"PutRequest":{"Item":`...)
			b = appendItem(b, appendNewKey, gKey, gKey)
			b = append(b, "}}"...)
		}
		return append(b, "]}}"...)
	}, check: expectMember("UnprocessedItems", "{}")}
}

func rawTransact(table string, n int) rawOp {
	put := `{"Put":{"TableName":` + strconv.Quote(table) + `,"Item":`
	return rawOp{op: "TransactWriteItems", body: func(b []byte, _ int) []byte {
		b = append(b, `{"TransactItems":[`...)
		for i := 0; i < n; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, put...)
			b = appendItem(b, appendNewKey, gKey, gKey)
			b = append(b, "}}"...)
		}
		return append(b, "]}"...)
	}, check: expectObject}
}

// expectObject checks that a write's 200 response is a JSON object ("{}"
// from dynamopg and dynalite; moto adds ConsumedCapacity).
func expectObject(body []byte) error {
	b := bytes.TrimSpace(body)
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' || bytes.Contains(b, []byte(`"__type"`)) {
		return fmt.Errorf("response %q, want a JSON object", trunc(string(body), 120))
	}
	return nil
}

// expectMember checks that the response has member name whose value
// starts with want (JSON whitespace allowed around the colon: moto's
// responses have it).
func expectMember(name, want string) func([]byte) error {
	key := []byte(strconv.Quote(name))
	return func(body []byte) error {
		i := bytes.Index(body, key)
		if i >= 0 {
			rest := bytes.TrimLeft(body[i+len(key):], " \t\r\n")
			if len(rest) > 0 && rest[0] == ':' {
				rest = bytes.TrimLeft(rest[1:], " \t\r\n")
				if want == "{}" {
					if len(rest) > 0 && rest[0] == '{' && len(bytes.TrimLeft(rest[1:], " \t\r\n")) > 0 && bytes.TrimLeft(rest[1:], " \t\r\n")[0] == '}' {
						return nil
					}
				} else if bytes.HasPrefix(rest, []byte(want)) {
					if len(rest) == len(want) || want == "{" || !isDigit(rest[len(want)]) {
						return nil
					}
				}
			}
		}
		return fmt.Errorf("response %q has no %s: %s", trunc(string(body), 120), name, want)
	}
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }
