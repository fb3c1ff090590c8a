package api

import (
	"fmt"
	"strings"
)

// The member constraints of BatchGetItem and BatchWriteItem. Measured texts:
// dynalite test/batchGetItem.js and test/batchWriteItem.js (the RequestItems
// map's keys are table names, refused as one "Map keys" constraint on
// 'requestItems'); nubo-db/dynamodb-conformance tests/tier3/error-messages
// (an empty RequestItems answers the operation's own sentence).

const msgMapKeys = "Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]"

// badTableKey reports whether a RequestItems key breaks the table name rules.
func badTableKey(n string) bool {
	return len(n) < 3 || len(n) > 255 || !validName(n)
}

// requestItemsEcho renders the RequestItems map for a message as the
// service's echo is shaped ({name=value, ...}); values are summarized.
func requestItemsEcho(names []string, value func(string) string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + value(n)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// checkRequestItemKeys records one "Map keys" failure per table name that
// breaks the rules.
func checkRequestItemKeys(c *constraintErrors, names []string, echo string) {
	for _, n := range names {
		if badTableKey(n) {
			c.add(&echo, "requestItems", msgMapKeys)
		}
	}
}

// emptyRequestItems is the answer for RequestItems: {}.
func emptyRequestItems(op string) *Error {
	return ValidationError("The requestItems parameter is required for %s", op)
}

// batchGetConstraints records BatchGetItem's member constraints.
func (in *batchGetInput) constraints(names []string) *Error {
	var c constraintErrors
	checkEnum(&c, in.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnCapacity)
	c.notNull(in.RequestItems != nil, "requestItems")
	echo := requestItemsEcho(names, func(n string) string {
		return fmt.Sprintf("KeysAndAttributes(keys=[%d keys])", len(in.RequestItems[n].Keys))
	})
	checkRequestItemKeys(&c, names, echo)
	for _, n := range names {
		req := in.RequestItems[n]
		p := "requestItems." + n + ".member."
		switch k := len(req.Keys); {
		case req.Keys == nil:
			c.notNull(false, p+"keys")
		case k < 1:
			c.add(strp("[]"), p+"keys", "Member must have length greater than or equal to 1")
		case k > maxBatchGetKeys:
			// The newer form: no value, the member's own name.
			c.addAt("RequestItems."+n+".member.Keys", "Member must have length less than or equal to 100")
		}
		checkAttributesToGet(&c, req.AttributesToGet, p+"attributesToGet")
	}
	if err := c.err(); err != nil {
		return err
	}
	if in.RequestItems != nil && len(in.RequestItems) == 0 {
		return emptyRequestItems("BatchGetItem")
	}
	return nil
}

// constraints records BatchWriteItem's member constraints.
func (in *batchWriteInput) constraints(names []string) *Error {
	var c constraintErrors
	checkEnum(&c, in.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnCapacity)
	checkEnum(&c, in.ReturnItemCollectionMetrics, "returnItemCollectionMetrics", enumReturnMetrics)
	c.notNull(in.RequestItems != nil, "requestItems")
	echo := requestItemsEcho(names, func(n string) string {
		return fmt.Sprintf("[%d requests]", len(in.RequestItems[n]))
	})
	checkRequestItemKeys(&c, names, echo)
	for _, n := range names {
		if k := len(in.RequestItems[n]); k < 1 || k > maxBatchWriteItems {
			c.add(&echo, "requestItems", "Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]")
		}
	}
	for _, n := range names {
		for i, wr := range in.RequestItems[n] {
			p := fmt.Sprintf("requestItems.%s.member.%d.member.", n, i+1)
			if wr.DeleteRequest != nil {
				c.notNull(wr.DeleteRequest.Key != nil, p+"deleteRequest.key")
			}
			if wr.PutRequest != nil {
				c.notNull(wr.PutRequest.Item != nil, p+"putRequest.item")
			}
		}
	}
	if err := c.err(); err != nil {
		return err
	}
	if in.RequestItems != nil && len(in.RequestItems) == 0 {
		return emptyRequestItems("BatchWriteItem")
	}
	return nil
}

// checkBatchGetMixing refuses a BatchGetItem that projects with
// ProjectionExpression on one table and AttributesToGet on another: the
// request as a whole mixes expression and non-expression parameters
// (nubo-db/dynamodb-conformance, tests/tier3/error-messages/batchGetItem).
func checkBatchGetMixing(in *batchGetInput, names []string) error {
	legacy, modern := false, false
	for _, n := range names {
		legacy = legacy || in.RequestItems[n].AttributesToGet != nil
		modern = modern || in.RequestItems[n].ProjectionExpression != nil
	}
	return checkMixing([]param{{"AttributesToGet", legacy}}, []param{{"ProjectionExpression", modern}})
}
