package api

import (
	"encoding/json"

	"github.com/dynamopg/dynamopg/server/attr"
)

// The hot operations' requests (PutItem, GetItem, UpdateItem, DeleteItem,
// Query, Scan, BatchWriteItem, BatchGetItem, TransactWriteItems,
// TransactGetItems) decoded by hand in one pass over the body
// (attr.Reader), rather than by encoding/json, which validates the whole
// body, then walks it by reflection, then hands each item to
// (*attr.Item).UnmarshalJSON, which reads it twice more.
//
// The fast path takes only what it decodes exactly as json.Unmarshal
// would: each member once, under its exact name, with a value of its
// member's type (no null, no legacy parameter), every item one the service
// accepts. For anything else it reports false before touching the input
// structure, and decode falls back to json.Unmarshal, whose result and
// errors (encoding/json's case-insensitive names, a repeated member, the
// service's texts for a wrong type or a refused value) stay as they were.
// TestFastDecode compares the two on every input of its corpus.

// fastDecode decodes body into v when v is a request the fast path knows
// and body is one it takes.
func fastDecode(body []byte, v any) bool {
	switch in := v.(type) {
	case *putItemInput:
		var out putItemInput
		var f fields
		if !attr.ReadObject(body, func(name []byte, r *attr.Reader) bool {
			if string(name) == "Item" {
				return f.first(fItem) && item(&out.Item, r)
			}
			return out.writeOptions.member(&f, name, r)
		}) {
			return false
		}
		*in = out
	case *getItemInput:
		var out getItemInput
		var f fields
		if !attr.ReadObject(body, func(name []byte, r *attr.Reader) bool {
			switch string(name) {
			case "TableName":
				return f.first(fTableName) && str(&out.TableName, r)
			case "Key":
				return f.first(fKey) && item(&out.Key, r)
			case "ProjectionExpression":
				return f.first(fProjectionExpression) && str(&out.ProjectionExpression, r)
			case "ConsistentRead":
				return f.first(fConsistentRead) && boolean(&out.ConsistentRead, r)
			case "ReturnConsumedCapacity":
				return f.first(fReturnConsumedCapacity) && str(&out.ReturnConsumedCapacity, r)
			case "AttributesToGet":
				return f.first(fAttributesToGet) && strs(&out.AttributesToGet, r)
			}
			return out.exprParams.member(&f, name, r)
		}) {
			return false
		}
		*in = out
	case *updateItemInput:
		var out updateItemInput
		var f fields
		if !attr.ReadObject(body, func(name []byte, r *attr.Reader) bool {
			switch string(name) {
			case "Key":
				return f.first(fKey) && item(&out.Key, r)
			case "UpdateExpression":
				return f.first(fUpdateExpression) && str(&out.UpdateExpression, r)
			}
			return out.writeOptions.member(&f, name, r)
		}) {
			return false
		}
		*in = out
	case *deleteItemInput:
		var out deleteItemInput
		var f fields
		if !attr.ReadObject(body, func(name []byte, r *attr.Reader) bool {
			if string(name) == "Key" {
				return f.first(fKey) && item(&out.Key, r)
			}
			return out.writeOptions.member(&f, name, r)
		}) {
			return false
		}
		*in = out
	case *queryInput:
		var out queryInput
		if !attr.ReadObject(body, out.member(new(fields))) {
			return false
		}
		*in = out
	case *batchWriteInput:
		var out batchWriteInput
		if !attr.ReadObject(body, out.member(new(fields))) {
			return false
		}
		*in = out
	case *batchGetInput:
		var out batchGetInput
		if !attr.ReadObject(body, out.member(new(fields))) {
			return false
		}
		*in = out
	case *transactWriteInput:
		var out transactWriteInput
		if !attr.ReadObject(body, out.member(new(fields))) {
			return false
		}
		*in = out
	case *transactGetInput:
		var out transactGetInput
		if !attr.ReadObject(body, out.member(new(fields))) {
			return false
		}
		*in = out
	default:
		return false
	}
	return true
}

// fields records the members a structure has read, so that a repeated one
// (which encoding/json merges or replaces member by member) goes to the
// general path.
type fields uint64

const (
	fTableName = iota
	fItem
	fKey
	fConditionExpression
	fReturnValues
	fReturnConsumedCapacity
	fReturnItemCollectionMetrics
	fReturnValuesOnConditionCheckFailure
	fConditionalOperator
	fExpressionAttributeNames
	fExpressionAttributeValues
	fUpdateExpression
	fProjectionExpression
	fConsistentRead
	fAttributesToGet
	fIndexName
	fKeyConditionExpression
	fFilterExpression
	fSelect
	fLimit
	fExclusiveStartKey
	fScanIndexForward
	fSegment
	fTotalSegments
	fRequestItems
	fPutRequest
	fDeleteRequest
	fKeys
	fTransactItems
	fClientRequestToken
	fConditionCheck
	fPut
	fDelete
	fUpdate
	fGet
)

// first reports whether the member is read for the first time.
func (f *fields) first(which uint) bool {
	if *f&(1<<which) != 0 {
		return false
	}
	*f |= 1 << which
	return true
}

func str(p **string, r *attr.Reader) bool {
	s, ok := r.String()
	*p = &s
	return ok
}

func boolean(p **bool, r *attr.Reader) bool {
	b, ok := r.Bool()
	*p = &b
	return ok
}

func int64Member(p **int64, r *attr.Reader) bool {
	n, ok := r.Int64()
	*p = &n
	return ok
}

func strs(p *[]string, r *attr.Reader) bool {
	var ok bool
	*p, ok = r.Strings()
	return ok
}

func item(p *attr.Item, r *attr.Reader) bool {
	var ok bool
	*p, ok = r.Item()
	return ok
}

// member reads the expression members; any other name is refused.
func (e *exprParams) member(f *fields, name []byte, r *attr.Reader) bool {
	switch string(name) {
	case "ExpressionAttributeNames":
		if !f.first(fExpressionAttributeNames) {
			return false
		}
		m := map[string]string{}
		e.ExpressionAttributeNames = m
		return r.Object(func(name []byte, r *attr.Reader) bool {
			s, ok := r.String()
			m[string(name)] = s
			return ok
		})
	case "ExpressionAttributeValues":
		if !f.first(fExpressionAttributeValues) {
			return false
		}
		m := map[string]json.RawMessage{}
		e.ExpressionAttributeValues = m
		return r.Object(func(name []byte, r *attr.Reader) bool {
			raw, ok := r.Raw()
			m[string(name)] = raw
			return ok
		})
	}
	return false
}

// member reads the members PutItem, DeleteItem and UpdateItem share, the
// legacy Expected aside.
func (w *writeOptions) member(f *fields, name []byte, r *attr.Reader) bool {
	switch string(name) {
	case "TableName":
		return f.first(fTableName) && str(&w.TableName, r)
	case "ConditionExpression":
		return f.first(fConditionExpression) && str(&w.ConditionExpression, r)
	case "ReturnValues":
		return f.first(fReturnValues) && str(&w.ReturnValues, r)
	case "ReturnConsumedCapacity":
		return f.first(fReturnConsumedCapacity) && str(&w.ReturnConsumedCapacity, r)
	case "ReturnItemCollectionMetrics":
		return f.first(fReturnItemCollectionMetrics) && str(&w.ReturnItemCollectionMetrics, r)
	case "ReturnValuesOnConditionCheckFailure":
		return f.first(fReturnValuesOnConditionCheckFailure) && str(&w.ReturnValuesOnConditionCheckFailure, r)
	case "ConditionalOperator":
		return f.first(fConditionalOperator) && str(&w.ConditionalOperator, r)
	}
	return w.exprParams.member(f, name, r)
}

// member reads the members of a Query or Scan, the legacy conditions aside.
func (q *queryInput) member(f *fields) func(name []byte, r *attr.Reader) bool {
	return func(name []byte, r *attr.Reader) bool {
		switch string(name) {
		case "TableName":
			return f.first(fTableName) && str(&q.TableName, r)
		case "IndexName":
			return f.first(fIndexName) && str(&q.IndexName, r)
		case "KeyConditionExpression":
			return f.first(fKeyConditionExpression) && str(&q.KeyConditionExpression, r)
		case "FilterExpression":
			return f.first(fFilterExpression) && str(&q.FilterExpression, r)
		case "ProjectionExpression":
			return f.first(fProjectionExpression) && str(&q.ProjectionExpression, r)
		case "Select":
			return f.first(fSelect) && str(&q.Select, r)
		case "Limit":
			return f.first(fLimit) && int64Member(&q.Limit, r)
		case "ExclusiveStartKey":
			return f.first(fExclusiveStartKey) && item(&q.ExclusiveStartKey, r)
		case "ScanIndexForward":
			return f.first(fScanIndexForward) && boolean(&q.ScanIndexForward, r)
		case "ConsistentRead":
			return f.first(fConsistentRead) && boolean(&q.ConsistentRead, r)
		case "ReturnConsumedCapacity":
			return f.first(fReturnConsumedCapacity) && str(&q.ReturnConsumedCapacity, r)
		case "Segment":
			return f.first(fSegment) && int64Member(&q.Segment, r)
		case "TotalSegments":
			return f.first(fTotalSegments) && int64Member(&q.TotalSegments, r)
		case "AttributesToGet":
			return f.first(fAttributesToGet) && strs(&q.AttributesToGet, r)
		case "ConditionalOperator":
			return f.first(fConditionalOperator) && str(&q.ConditionalOperator, r)
		}
		return q.exprParams.member(f, name, r)
	}
}

// member reads the members of a BatchWriteItem.
func (b *batchWriteInput) member(f *fields) func(name []byte, r *attr.Reader) bool {
	return func(name []byte, r *attr.Reader) bool {
		switch string(name) {
		case "ReturnConsumedCapacity":
			return f.first(fReturnConsumedCapacity) && str(&b.ReturnConsumedCapacity, r)
		case "ReturnItemCollectionMetrics":
			return f.first(fReturnItemCollectionMetrics) && str(&b.ReturnItemCollectionMetrics, r)
		case "RequestItems":
			if !f.first(fRequestItems) {
				return false
			}
			m := map[string][]writeRequest{}
			b.RequestItems = m
			return r.Object(func(name []byte, r *attr.Reader) bool {
				reqs := []writeRequest{}
				ok := r.Array(func(r *attr.Reader) bool {
					var wr writeRequest
					ok := wr.read(r)
					reqs = append(reqs, wr)
					return ok
				})
				m[string(name)] = reqs
				return ok
			})
		}
		return false
	}
}

// read reads one write request: {"PutRequest":{"Item":…}} or
// {"DeleteRequest":{"Key":…}} (both, or neither, for the validation to
// refuse).
func (wr *writeRequest) read(r *attr.Reader) bool {
	var f fields
	return r.Object(func(name []byte, r *attr.Reader) bool {
		switch string(name) {
		case "PutRequest":
			if !f.first(fPutRequest) {
				return false
			}
			wr.PutRequest = &putRequest{}
			var g fields
			return r.Object(func(name []byte, r *attr.Reader) bool {
				return string(name) == "Item" && g.first(fItem) && item(&wr.PutRequest.Item, r)
			})
		case "DeleteRequest":
			if !f.first(fDeleteRequest) {
				return false
			}
			wr.DeleteRequest = &deleteRequest{}
			var g fields
			return r.Object(func(name []byte, r *attr.Reader) bool {
				return string(name) == "Key" && g.first(fKey) && item(&wr.DeleteRequest.Key, r)
			})
		}
		return false
	})
}

// member reads the members of a BatchGetItem.
func (b *batchGetInput) member(f *fields) func(name []byte, r *attr.Reader) bool {
	return func(name []byte, r *attr.Reader) bool {
		switch string(name) {
		case "ReturnConsumedCapacity":
			return f.first(fReturnConsumedCapacity) && str(&b.ReturnConsumedCapacity, r)
		case "RequestItems":
			if !f.first(fRequestItems) {
				return false
			}
			m := map[string]batchGetTable{}
			b.RequestItems = m
			return r.Object(func(name []byte, r *attr.Reader) bool {
				var t batchGetTable
				ok := t.read(r)
				m[string(name)] = t
				return ok
			})
		}
		return false
	}
}

// read reads one table's keys and options of a BatchGetItem.
func (t *batchGetTable) read(r *attr.Reader) bool {
	var f fields
	return r.Object(func(name []byte, r *attr.Reader) bool {
		switch string(name) {
		case "Keys":
			if !f.first(fKeys) {
				return false
			}
			t.Keys = []attr.Item{}
			return r.Array(func(r *attr.Reader) bool {
				k, ok := r.Item()
				t.Keys = append(t.Keys, k)
				return ok
			})
		case "ProjectionExpression":
			return f.first(fProjectionExpression) && str(&t.ProjectionExpression, r)
		case "ConsistentRead":
			return f.first(fConsistentRead) && boolean(&t.ConsistentRead, r)
		case "AttributesToGet":
			return f.first(fAttributesToGet) && strs(&t.AttributesToGet, r)
		}
		return t.exprParams.member(&f, name, r)
	})
}

// member reads the members of a TransactWriteItems.
func (t *transactWriteInput) member(f *fields) func(name []byte, r *attr.Reader) bool {
	return func(name []byte, r *attr.Reader) bool {
		switch string(name) {
		case "ClientRequestToken":
			return f.first(fClientRequestToken) && str(&t.ClientRequestToken, r)
		case "ReturnConsumedCapacity":
			return f.first(fReturnConsumedCapacity) && str(&t.ReturnConsumedCapacity, r)
		case "ReturnItemCollectionMetrics":
			return f.first(fReturnItemCollectionMetrics) && str(&t.ReturnItemCollectionMetrics, r)
		case "TransactItems":
			if !f.first(fTransactItems) {
				return false
			}
			t.TransactItems = []transactWriteItem{}
			return r.Array(func(r *attr.Reader) bool {
				var it transactWriteItem
				ok := it.read(r)
				t.TransactItems = append(t.TransactItems, it)
				return ok
			})
		}
		return false
	}
}

// read reads one action of a TransactWriteItems.
func (it *transactWriteItem) read(r *attr.Reader) bool {
	var f fields
	return r.Object(func(name []byte, r *attr.Reader) bool {
		switch string(name) {
		case "ConditionCheck":
			if !f.first(fConditionCheck) {
				return false
			}
			it.ConditionCheck = &txCommon{}
			var g fields
			return r.Object(func(name []byte, r *attr.Reader) bool { return it.ConditionCheck.member(&g, name, r) })
		case "Delete":
			if !f.first(fDelete) {
				return false
			}
			it.Delete = &txCommon{}
			var g fields
			return r.Object(func(name []byte, r *attr.Reader) bool { return it.Delete.member(&g, name, r) })
		case "Put":
			if !f.first(fPut) {
				return false
			}
			it.Put = &txPut{}
			var g fields
			return r.Object(func(name []byte, r *attr.Reader) bool {
				if string(name) == "Item" {
					return g.first(fItem) && item(&it.Put.Item, r)
				}
				return it.Put.txCommon.member(&g, name, r)
			})
		case "Update":
			if !f.first(fUpdate) {
				return false
			}
			it.Update = &txUpdate{}
			var g fields
			return r.Object(func(name []byte, r *attr.Reader) bool {
				if string(name) == "UpdateExpression" {
					return g.first(fUpdateExpression) && str(&it.Update.UpdateExpression, r)
				}
				return it.Update.txCommon.member(&g, name, r)
			})
		}
		return false
	})
}

// member reads the members the actions of a transaction share.
func (c *txCommon) member(f *fields, name []byte, r *attr.Reader) bool {
	switch string(name) {
	case "TableName":
		return f.first(fTableName) && str(&c.TableName, r)
	case "ConditionExpression":
		return f.first(fConditionExpression) && str(&c.ConditionExpression, r)
	case "ReturnValuesOnConditionCheckFailure":
		return f.first(fReturnValuesOnConditionCheckFailure) && str(&c.ReturnValuesOnConditionCheckFailure, r)
	case "Key":
		return f.first(fKey) && item(&c.Key, r)
	}
	return c.exprParams.member(f, name, r)
}

// member reads the members of a TransactGetItems.
func (t *transactGetInput) member(f *fields) func(name []byte, r *attr.Reader) bool {
	return func(name []byte, r *attr.Reader) bool {
		switch string(name) {
		case "ReturnConsumedCapacity":
			return f.first(fReturnConsumedCapacity) && str(&t.ReturnConsumedCapacity, r)
		case "TransactItems":
			if !f.first(fTransactItems) {
				return false
			}
			t.TransactItems = []transactGetItem{}
			return r.Array(func(r *attr.Reader) bool {
				var it transactGetItem
				var g fields
				ok := r.Object(func(name []byte, r *attr.Reader) bool {
					if string(name) != "Get" || !g.first(fGet) {
						return false
					}
					it.Get = &txGet{}
					var h fields
					return r.Object(func(name []byte, r *attr.Reader) bool {
						switch string(name) {
						case "TableName":
							return h.first(fTableName) && str(&it.Get.TableName, r)
						case "Key":
							return h.first(fKey) && item(&it.Get.Key, r)
						case "ProjectionExpression":
							return h.first(fProjectionExpression) && str(&it.Get.ProjectionExpression, r)
						}
						return it.Get.exprParams.member(&h, name, r)
					})
				})
				t.TransactItems = append(t.TransactItems, it)
				return ok
			})
		}
		return false
	}
}
