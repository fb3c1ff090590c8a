package api

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// fastDecodeCorpus are request bodies of the operations the fast path
// decodes: what the SDKs send, and the forms it must leave to
// encoding/json (names in another case, a repeated member, null, a wrong
// type, a value the service refuses, escapes, deep nesting).
var fastDecodeCorpus = []string{
	`{"TableName":"t","Item":{"pk":{"S":"a"},"sk":{"N":"1"},"a":{"L":[{"M":{"b":{"NS":["2","1"]}}},{"BOOL":true},{"NULL":true},{"B":"AQ=="},{"BS":["AQ==","Ag=="]},{"SS":["y","x"]}]}}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"ConditionExpression":"attribute_not_exists(pk)"}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"ConditionExpression":"#a = :v","ExpressionAttributeNames":{"#a":"a"},"ExpressionAttributeValues":{":v":{"S":"x"}},"ReturnValues":"ALL_OLD","ReturnConsumedCapacity":"TOTAL","ReturnItemCollectionMetrics":"SIZE","ReturnValuesOnConditionCheckFailure":"ALL_OLD"}`,
	` { "TableName" : "t" , "Item" : { "pk" : { "S" : "a" } } } `,
	"\n\t{\"TableName\":\"t\",\"Item\":{}}\r\n",
	`{"TableName":"t","Item":{"pk":{"S":"\u00e9\n\"x\"\ud83d\ude00"}}}`,
	`{"TableName":"t\u0041","Item":{"p\u006b":{"S":"a"}}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"},"pk":{"S":"b"}}}`,
	`{"TableName":"t","Item":{"pk":{"N":"01"}}}`,
	`{"TableName":"t","Item":{"pk":{"N":"1.50"}}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a","N":"1"}}}`,
	`{"TableName":"t","Item":{"pk":{}}}`,
	`{"TableName":"t","Item":null}`,
	`{"TableName":null,"Item":{"pk":{"S":"a"}}}`,
	`{"TableName":"t","TableName":"u","Item":{"pk":{"S":"a"}}}`,
	`{"tablename":"t","ITEM":{"pk":{"S":"a"}}}`,
	`{"TableName":5,"Item":{"pk":{"S":"a"}}}`,
	`{"TableName":"t","Item":[]}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"Unknown":{"x":[1,2,{"y":null}]}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"Expected":{"a":{"Exists":false}}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"ExpressionAttributeValues":{":v":{"S":"x"}},"ExpressionAttributeValues":{":w":{"S":"y"}}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"ExpressionAttributeValues":{":v":null}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"ExpressionAttributeValues":{":v":{"S":"x"},":v":{"N":"2"}}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"ExpressionAttributeNames":{"#a":"a","#a":"b"}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"ExpressionAttributeNames":{"#\u0061":"a"}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},"ExpressionAttributeNames":{}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}}}}`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}}} x`,
	`{"TableName":"t","Item":{"pk":{"S":"a"}},}`,
	`{"TableName":"t" "Item":{"pk":{"S":"a"}}}`,
	`{}`, ``, ` `, `null`, `[]`, `"x"`, `{"TableName":"t"`,
	// Not UTF-8 (the API refuses these before decoding; the fast path
	// still agrees with encoding/json on them).
	"{\"TableName\":\"t\xff\",\"Item\":{\"p\xfek\":{\"S\":\"a\xff\"}},\"ExpressionAttributeNames\":{\"#\xff\":\"a\"}}",
	"{\"TableName\":\"t\xff\",\"Item\":{\"p\xfek\":{\"S\":\"a\xff\"}}}",
	`{"TableName":"t","Key":{"pk":{"S":"a"},"sk":{"N":"1"}}}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"ProjectionExpression":"a, #b","ExpressionAttributeNames":{"#b":"b"},"ConsistentRead":true,"ReturnConsumedCapacity":"NONE"}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"AttributesToGet":["a","b"],"ConsistentRead":false}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"AttributesToGet":[]}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"AttributesToGet":["a",1]}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"ConsistentRead":"true"}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"ConsistentRead":tru}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"},"sk":{"S":"s"}},"UpdateExpression":"SET n = :n","ExpressionAttributeValues":{":n":{"N":"7"}},"ReturnValues":"ALL_NEW"}`,
	`{"TableName":"t","Key":{"pk":{"S":"a"}},"AttributeUpdates":{"n":{"Action":"PUT","Value":{"N":"1"}}}}`,
	`{"TableName":"t","KeyConditionExpression":"pk = :p AND sk BETWEEN :a AND :b","FilterExpression":"contains(a, :x)","ExpressionAttributeValues":{":p":{"S":"a"},":a":{"N":"0"},":b":{"N":"9"},":x":{"S":"q"}},"Limit":2,"ScanIndexForward":false,"Select":"ALL_ATTRIBUTES","IndexName":"i","ExclusiveStartKey":{"pk":{"S":"a"}}}`,
	`{"TableName":"t","Segment":1,"TotalSegments":3,"Select":"COUNT"}`,
	`{"TableName":"t","Limit":-0}`, `{"TableName":"t","Limit":0}`, `{"TableName":"t","Limit":-9223372036854775808}`,
	`{"TableName":"t","Limit":9223372036854775807}`, `{"TableName":"t","Limit":9223372036854775808}`,
	`{"TableName":"t","Limit":-9223372036854775809}`, `{"TableName":"t","Limit":99999999999999999999}`,
	`{"TableName":"t","Limit":1.0}`, `{"TableName":"t","Limit":1e2}`, `{"TableName":"t","Limit":01}`, `{"TableName":"t","Limit":-}`,
	`{"TableName":"t","Limit":"1"}`, `{"TableName":"t","KeyConditions":{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"a"}]}}}`,
	`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"b"},"sk":{"N":"2"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"a"},"sk":{"N":"1"}}}}],"u":[]},"ReturnConsumedCapacity":"TOTAL","ReturnItemCollectionMetrics":"SIZE"}`,
	`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"b"}}},"DeleteRequest":{"Key":{"pk":{"S":"a"}}}},{},{"PutRequest":{}}]}}`,
	`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"b"}}}}],"t":[{"DeleteRequest":{"Key":{"pk":{"S":"a"}}}}]}}`,
	`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"b"}}},"PutRequest":{"Item":{"pk":{"S":"c"}}}}]}}`,
	`{"RequestItems":{"t":[{"PutRequest":null}]}}`, `{"RequestItems":{"t":null}}`, `{"RequestItems":{}}`,
	`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"b"}},"Extra":1}}]}}`,
	`{"RequestItems":{"t":{"PutRequest":{}}}}`,
	`{"TableName":"t","Item":{"a":{"L":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}}`,
	`{"RequestItems":{"t":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}},{"pk":{"S":"b"}}],"AttributesToGet":["pk"],"ConsistentRead":true},"u":{"Keys":[],"ProjectionExpression":"#a","ExpressionAttributeNames":{"#a":"a"}}},"ReturnConsumedCapacity":"TOTAL"}`,
	`{"RequestItems":{"t":{"Keys":[{"pk":{"S":"a"}}]},"t":{"Keys":[{"pk":{"S":"b"}}]}}}`,
	`{"RequestItems":{"t":{"Keys":[{"pk":{"S":"a"}}],"Keys":[{"pk":{"S":"b"}}]}}}`,
	`{"RequestItems":{"t":{"Keys":null}}}`, `{"RequestItems":{"t":{"Keys":[null]}}}`, `{"RequestItems":{"t":{}}}`,
	`{"TransactItems":[{"ConditionCheck":{"TableName":"t","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ConditionExpression":"attribute_not_exists(pk)"}},{"Update":{"TableName":"t","Key":{"pk":{"S":"b"},"sk":{"N":"2"}},"UpdateExpression":"SET x = :v","ExpressionAttributeValues":{":v":{"BS":["AQ=="]}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"}},{"Put":{"TableName":"t","Item":{"pk":{"S":"c"}},"ConditionExpression":"#n <> :z","ExpressionAttributeNames":{"#n":"n"},"ExpressionAttributeValues":{":z":{"N":"0"}}}},{"Delete":{"TableName":"t","Key":{"pk":{"S":"d"}}}}],"ClientRequestToken":"tok","ReturnConsumedCapacity":"INDEXES","ReturnItemCollectionMetrics":"SIZE"}`,
	`{"TransactItems":[]}`, `{"TransactItems":[{}]}`, `{"TransactItems":[{"Put":{}}]}`, `{"TransactItems":null}`, `{"TransactItems":[null]}`,
	`{"TransactItems":[{"Put":{"TableName":"t","Item":{"pk":{"S":"c"}}},"Delete":{"TableName":"t","Key":{"pk":{"S":"d"}}}}]}`,
	`{"TransactItems":[{"Put":{"TableName":"t","Item":{"pk":{"S":"c"}},"Item":{"pk":{"S":"d"}}}}]}`,
	`{"TransactItems":[{"Put":{"TableName":"t","Item":{"pk":{"S":"c"}}},"Put":{"TableName":"u"}}]}`,
	`{"TransactItems":[{"Put":{"TableName":"t","Item":{"pk":{"S":"c"}},"UpdateExpression":"SET a = :a"}}]}`,
	`{"TransactItems":[{"Get":{"TableName":"t","Key":{"pk":{"S":"a"}},"ProjectionExpression":"#a","ExpressionAttributeNames":{"#a":"a"}}},{"Get":{"TableName":"u","Key":{"pk":{"S":"b"}}}}],"ReturnConsumedCapacity":"TOTAL"}`,
	`{"TransactItems":[{"Get":{"TableName":"t","Key":{"pk":{"S":"a"}}},"Get":{"TableName":"u"}}]}`,
	`{"TransactItems":[{"Get":null}]}`, `{"TransactItems":[{"Get":{"TableName":"t","ConditionExpression":"x"}}]}`,
}

// deep nests M 40 levels: the service's limit is 32.
func deep(n int) string {
	return `{"TableName":"t","Item":{"a":` + strings.Repeat(`{"M":{"a":`, n) + `{"S":"x"}` + strings.Repeat(`}}`, n) + `}}`
}

func fastDecodeTargets() []func() any {
	return []func() any{
		func() any { return new(putItemInput) },
		func() any { return new(getItemInput) },
		func() any { return new(updateItemInput) },
		func() any { return new(deleteItemInput) },
		func() any { return new(queryInput) },
		func() any { return new(batchWriteInput) },
		func() any { return new(batchGetInput) },
		func() any { return new(transactWriteInput) },
		func() any { return new(transactGetInput) },
	}
}

// checkFastDecode: whatever the fast path takes, json.Unmarshal decodes
// without error to the same value; it takes what the hot operations send.
func checkFastDecode(t *testing.T, body []byte) (taken int) {
	t.Helper()
	for _, target := range fastDecodeTargets() {
		fast, slow := target(), target()
		if !fastDecode(body, fast) {
			if !reflect.DeepEqual(fast, target()) {
				t.Errorf("%T %q: refused but changed: %+v", fast, body, fast)
			}
			continue
		}
		taken++
		if err := json.Unmarshal(body, slow); err != nil {
			t.Errorf("%T %q: taken by the fast path, refused by encoding/json: %v", fast, body, err)
			continue
		}
		if !reflect.DeepEqual(fast, slow) {
			fj, _ := json.Marshal(fast)
			sj, _ := json.Marshal(slow)
			t.Errorf("%T %q:\nfast %s\nslow %s", fast, body, fj, sj)
		}
	}
	return taken
}

func TestFastDecode(t *testing.T) {
	for _, body := range append(fastDecodeCorpus, deep(31), deep(32), deep(33), deep(40)) {
		checkFastDecode(t, []byte(body))
	}
	// What the fast path is for: it must take these.
	for _, tc := range []struct {
		body string
		v    any
	}{
		{fastDecodeCorpus[0], new(putItemInput)},
		{fastDecodeCorpus[2], new(putItemInput)},
		{fastDecodeCorpus[3], new(putItemInput)},
		{fastDecodeCorpus[5], new(putItemInput)},
		{`{"TableName":"t","Key":{"pk":{"S":"a"}},"ProjectionExpression":"a, #b","ExpressionAttributeNames":{"#b":"b"},"ConsistentRead":true,"ReturnConsumedCapacity":"NONE"}`, new(getItemInput)},
		{`{"TableName":"t","Key":{"pk":{"S":"a"},"sk":{"S":"s"}},"UpdateExpression":"SET n = :n","ExpressionAttributeValues":{":n":{"N":"7"}},"ReturnValues":"ALL_NEW"}`, new(updateItemInput)},
		{`{"TableName":"t","Segment":1,"TotalSegments":3,"Select":"COUNT"}`, new(queryInput)},
		{`{"RequestItems":{"t":[{"PutRequest":{"Item":{"pk":{"S":"b"},"sk":{"N":"2"}}}},{"DeleteRequest":{"Key":{"pk":{"S":"a"},"sk":{"N":"1"}}}}],"u":[]},"ReturnConsumedCapacity":"TOTAL","ReturnItemCollectionMetrics":"SIZE"}`, new(batchWriteInput)},
		{`{"RequestItems":{"t":{"Keys":[{"pk":{"S":"a"},"sk":{"N":"1"}},{"pk":{"S":"b"}}],"AttributesToGet":["pk"],"ConsistentRead":true},"u":{"Keys":[],"ProjectionExpression":"#a","ExpressionAttributeNames":{"#a":"a"}}},"ReturnConsumedCapacity":"TOTAL"}`, new(batchGetInput)},
		{`{"TransactItems":[{"ConditionCheck":{"TableName":"t","Key":{"pk":{"S":"a"},"sk":{"N":"1"}},"ConditionExpression":"attribute_not_exists(pk)"}},{"Update":{"TableName":"t","Key":{"pk":{"S":"b"},"sk":{"N":"2"}},"UpdateExpression":"SET x = :v","ExpressionAttributeValues":{":v":{"BS":["AQ=="]}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"}},{"Put":{"TableName":"t","Item":{"pk":{"S":"c"}},"ConditionExpression":"#n <> :z","ExpressionAttributeNames":{"#n":"n"},"ExpressionAttributeValues":{":z":{"N":"0"}}}},{"Delete":{"TableName":"t","Key":{"pk":{"S":"d"}}}}],"ClientRequestToken":"tok","ReturnConsumedCapacity":"INDEXES","ReturnItemCollectionMetrics":"SIZE"}`, new(transactWriteInput)},
		{`{"TransactItems":[{"Get":{"TableName":"t","Key":{"pk":{"S":"a"}},"ProjectionExpression":"#a","ExpressionAttributeNames":{"#a":"a"}}},{"Get":{"TableName":"u","Key":{"pk":{"S":"b"}}}}],"ReturnConsumedCapacity":"TOTAL"}`, new(transactGetInput)},
	} {
		if !fastDecode([]byte(tc.body), tc.v) {
			t.Errorf("%T %s: not taken by the fast path", tc.v, tc.body)
		}
	}
}

func FuzzFastDecode(f *testing.F) {
	for _, s := range fastDecodeCorpus {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !validText(body) {
			return // refused before decoding (checkBody)
		}
		checkFastDecode(t, body)
	})
}

// BenchmarkDecodeRequest: the PutItem, UpdateItem and TransactWriteItems
// bodies of cmd/dynamobench, through decode (the fast path) and
// json.Unmarshal.
func BenchmarkDecodeRequest(b *testing.B) {
	put := []byte(`{"TableName":"bench","Item":{"pk":{"S":"n123"},"sk":{"S":"s"},"g":{"S":"g"},"g2":{"S":"g"},"n":{"N":"1"},"data":{"S":"` +
		strings.Repeat("x", 900) + `"}},"ConditionExpression":"attribute_not_exists(pk)"}`)
	update := []byte(`{"TableName":"bench","Key":{"pk":{"S":"k0042"},"sk":{"S":"s"}},"UpdateExpression":"SET n = :n","ExpressionAttributeValues":{":n":{"N":"123456"}}}`)
	itemJSON := `{"pk":{"S":"n123"},"sk":{"S":"s"},"g":{"S":"g"},"g2":{"S":"g"},"n":{"N":"1"},"data":{"S":"` + strings.Repeat("x", 900) + `"}}`
	transact := []byte(`{"TransactItems":[` + strings.TrimSuffix(strings.Repeat(`{"Put":{"TableName":"bench","Item":`+itemJSON+`}},`, 4), ",") + `]}`)
	for _, tc := range []struct {
		name string
		body []byte
		v    func() any
	}{
		{"put", put, func() any { return new(putItemInput) }},
		{"update", update, func() any { return new(updateItemInput) }},
		{"transact4", transact, func() any { return new(transactWriteInput) }},
	} {
		b.Run(tc.name+"/decode", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := decode(tc.body, tc.v()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/json.Unmarshal", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := json.Unmarshal(tc.body, tc.v()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
