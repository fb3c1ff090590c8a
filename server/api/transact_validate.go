package api

import (
	"fmt"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// How the service splits a transaction member's key and item refusals
// (measured: nubo-db/dynamodb-conformance tests/tier3/error-messages/
// transactWriteItems and transactGetItems, four regions): an empty or
// oversized value refuses the whole request with the single-item text; a key
// or item that does not fit the schema (wrong type, wrong or missing
// attributes) cancels the transaction with a ValidationError reason.

// txAction names one member of a TransactWriteItem: its shared members,
// kind, and the name the service's member paths use; n is how many
// actions the member sets.
func (ti transactWriteItem) action() (common *txCommon, kind, member string, n int) {
	if ti.ConditionCheck != nil {
		common, kind, member, n = ti.ConditionCheck, "ConditionCheck", "conditionCheck", n+1
	}
	if ti.Put != nil {
		common, kind, member, n = &ti.Put.txCommon, "Put", "put", n+1
	}
	if ti.Delete != nil {
		common, kind, member, n = ti.Delete, "Delete", "delete", n+1
	}
	if ti.Update != nil {
		common, kind, member, n = &ti.Update.txCommon, "Update", "update", n+1
	}
	return common, kind, member, n
}

// txWriteConstraints records the member constraints of every action, its
// position and kind in the path ("transactItems.2.member.update.tableName").
func txWriteConstraints(c *constraintErrors, items []transactWriteItem) {
	for i, ti := range items {
		common, kind, member, n := ti.action()
		if n != 1 {
			continue
		}
		p := fmt.Sprintf("transactItems.%d.member.%s.", i+1, member)
		checkTableRef(c, common.TableName, p+"tableName")
		switch kind {
		case "Put":
			c.notNull(ti.Put.Item != nil, p+"item")
		default:
			c.notNull(common.Key != nil, p+"key")
		}
		switch kind {
		case "ConditionCheck":
			c.notNull(common.ConditionExpression != nil, p+"conditionExpression")
		case "Update":
			c.notNull(ti.Update.UpdateExpression != nil, p+"updateExpression")
		}
		checkEnum(c, common.ReturnValuesOnConditionCheckFailure, p+"returnValuesOnConditionCheckFailure", enumReturnOnConditon)
	}
}

// txActionCount refuses a member that sets no action or several.
func txActionCount(n int) error {
	switch {
	case n == 0:
		return ValidationError("Invalid Request: TransactWriteRequest should contain Delete or Put or Update request")
	case n > 1:
		return ValidationError("TransactItems can only contain one of Check, Put, Update or Delete")
	}
	return nil
}

// txKeyFault checks a member's Key: the reason that cancels the
// transaction ("" when none), or the error that refuses the request.
func txKeyFault(t *store.Table, key attr.Item) (string, error) {
	if !keyMatches(t, key) {
		return msgKeyMismatch, nil
	}
	return "", checkKeyValues(t, key)
}

// txItemFault checks a Put's Item as txKeyFault does a Key; the reasons
// carry PutItem's texts.
func txItemFault(t *store.Table, it attr.Item) (string, error) {
	if err := checkAttributeNames(it); err != nil {
		return "", err
	}
	reason := ""
	for _, ka := range []*store.KeyAttr{&t.Hash, t.Range} {
		if ka == nil {
			continue
		}
		v, ok := it[ka.Name]
		switch {
		case !ok:
			if reason == "" {
				reason = fmt.Sprintf("One or more parameter values were invalid: Missing the key %s in the item", ka.Name)
			}
		case v.T != ka.Type:
			if reason == "" {
				reason = fmt.Sprintf("One or more parameter values were invalid: Type mismatch for key %s expected: %s actual: %s", ka.Name, ka.Type, v.T)
			}
		case isEmptyScalar(v):
			return "", emptyKeyErr(ka.Name, v)
		}
	}
	if reason == "" {
		if err := checkKeySizes(t, it); err != nil {
			return "", err
		}
	}
	faults := indexKeyFaults(t, it, false)
	for _, f := range faults {
		if f.empty {
			return "", f.err
		}
	}
	if reason == "" && len(faults) > 0 {
		reason = faults[0].err.Message
	}
	if it.Size() > attr.MaxItemSize {
		return "", ValidationError("Item size has exceeded the maximum allowed size")
	}
	return reason, nil
}

// txValidationCancel cancels a transaction whose members failed validation:
// a ValidationError reason for each of those, None for the others.
func txValidationCancel(reasons []string) error {
	failed := false
	out := make([]map[string]any, len(reasons))
	for i, r := range reasons {
		out[i] = map[string]any{"Code": "None"}
		if r != "" {
			out[i] = map[string]any{"Code": "ValidationError", "Message": r}
			failed = true
		}
	}
	if !failed {
		return nil
	}
	return cancellation(out)
}
