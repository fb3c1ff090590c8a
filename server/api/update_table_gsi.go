package api

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// msgOneOnlineIndex is the service's refusal of a second index change while
// one is in progress, or of two in one request.
const msgOneOnlineIndex = "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"

// checkIndexUpdates applies the member constraints of GlobalSecondaryIndexUpdates
// and refuses more than one Create or Delete in a request.
func checkIndexUpdates(c *constraintErrors, ups []gsiUpdate) error {
	for _, u := range ups {
		actions := 0
		for _, set := range []bool{u.Create != nil, u.Delete != nil, u.Update != nil} {
			if set {
				actions++
			}
		}
		switch {
		case actions == 0:
			return invalid("One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null")
		case actions > 1:
			return invalid("Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object")
		}
	}
	changes := 0
	for i, u := range ups {
		p := fmt.Sprintf("globalSecondaryIndexUpdates.%d.member", i+1)
		switch {
		case u.Create != nil:
			changes++
			checkIndexMembers(c, *u.Create, p+".create", maxGSIKeyElements)
			checkThroughput(c, u.Create.ProvisionedThroughput, p+".create.provisionedThroughput")
		case u.Delete != nil:
			changes++
			checkName(c, u.Delete.IndexName, p+".delete.indexName", true)
		case u.Update != nil:
			checkName(c, u.Update.IndexName, p+".update.indexName", true)
			checkThroughput(c, u.Update.ProvisionedThroughput, p+".update.provisionedThroughput")
		}
	}
	if err := c.err(); err != nil {
		return err
	}
	for _, u := range ups {
		if u.Update != nil && u.Update.WarmThroughput != nil && u.Update.WarmThroughput.empty() {
			return invalid("WarmThroughput must have at least one of ReadUnitsPerSecond or WriteUnitsPerSecond specified for index: %s", *u.Update.IndexName)
		}
	}
	if changes > 1 {
		return LimitExceededError(msgOneOnlineIndex)
	}
	return nil
}

// refuseWhileBuilding applies the one-online-change rule to a table read
// without any lock: UpdateTable calls it before taking the catalog lock, so
// the refusal answers at once even while a build holds a writer (SQLite);
// applyIndexUpdates checks again under the lock.
func refuseWhileBuilding(t *store.Table, ups []gsiUpdate) error {
	building := ""
	for _, ix := range t.Indexes {
		if ix.Global && ix.Status == store.StatusCreating {
			building = ix.Name
		}
	}
	if building == "" {
		return nil
	}
	for _, u := range ups {
		if u.Create != nil || (u.Delete != nil && *u.Delete.IndexName != building) {
			return LimitExceededError(msgOneOnlineIndex)
		}
	}
	return nil
}

// applyIndexUpdates changes the table's global secondary indexes under the
// catalog lock TableUpdate holds: a Create adds the index as CREATING (its
// build starts once this commits), a Delete removes it at once, an Update
// changes its throughput (gsi_throughput.go). switched reports that the
// request changed the billing mode. It returns the names of the indexes
// created.
func applyIndexUpdates(t *store.Table, in *updateTableInput, propagation string, switched bool) ([]string, error) {
	if err := refuseWhileBuilding(t, in.GlobalSecondaryIndexUpdates); err != nil {
		return nil, err
	}
	var created []string
	now := time.Now().UTC().Truncate(time.Millisecond)
	for _, u := range in.GlobalSecondaryIndexUpdates {
		switch {
		case u.Create != nil:
			ix, err := createIndex(t, u.Create, in.AttributeDefinitions, propagation)
			if err != nil {
				return nil, err
			}
			t.Indexes = append(t.Indexes, *ix)
			created = append(created, ix.Name)
		case u.Delete != nil:
			name := *u.Delete.IndexName
			ix := t.Index(name)
			if ix == nil || !ix.Global {
				return nil, ResourceNotFoundError()
			}
			kept := t.Indexes[:0:0]
			for _, other := range t.Indexes {
				if other.Name != name {
					kept = append(kept, other)
				}
			}
			t.Indexes = kept
			pruneAttributeDefinitions(t)
		case u.Update != nil:
			if err := applyIndexUpdate(t, u.Update, switched, now); err != nil {
				return nil, err
			}
		}
	}
	return created, nil
}

// createIndex validates a Create against the table, merging the request's
// AttributeDefinitions into the table's.
func createIndex(t *store.Table, ci *secondaryIndex, defsIn []attributeDefinition, propagation string) (*store.Index, error) {
	name := *ci.IndexName
	if t.Index(name) != nil {
		return nil, ValidationError("Attempting to create an index which already exists")
	}
	// The index's keys are defined by the request's AttributeDefinitions,
	// even those the table defines already (alternator's
	// test_gsi_backfill_with_lsi, which passes against DynamoDB), with the
	// types the table has for them.
	if defsIn == nil {
		return nil, invalid("AttributeDefinitions is not specified for index: %s", name)
	}
	if err := checkDuplicateDefinitions(defsIn); err != nil {
		return nil, err
	}
	defs := map[string]attr.Type{}
	var defNames []string
	for _, d := range defsIn {
		defs[*d.AttributeName] = attr.TypeFromName(*d.AttributeType)
		defNames = append(defNames, *d.AttributeName)
	}
	ix, err := buildIndex(*ci, true, defs, defNames, t.BillingMode == "PAY_PER_REQUEST")
	if err != nil {
		return nil, err
	}
	global := 0
	for _, other := range t.Indexes {
		if other.Global {
			global++
		}
	}
	if global >= 20 {
		return nil, LimitExceededError("Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit of 20")
	}
	if err := checkRedefinition(t, ix); err != nil {
		return nil, err
	}
	ix.Status = store.StatusCreating
	ix.Propagation = propagation
	for _, n := range ix.KeyAttrs() {
		if !hasDefinition(t, n.Name) {
			t.AttributeDefinitions = append(t.AttributeDefinitions, n)
		}
	}
	return ix, nil
}

// checkRedefinition refuses a new index whose key gives an attribute of the
// table's schema another type, in the service's words (alternator's
// test_gsi_key_type_conflict_on_update quotes them): the existing schema is
// the key schema of the table, or of the first index, that uses the
// attribute.
func checkRedefinition(t *store.Table, ix *store.Index) error {
	for _, k := range ix.KeyAttrs() {
		owner := schemaUsing(t, k.Name)
		if owner == nil {
			continue
		}
		for _, e := range owner {
			if e.Name == k.Name && e.Type != k.Type {
				return invalid("Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. Existing schema: %s New schema: %s",
					schemaText(owner), schemaText(indexKeyElems(ix)))
			}
		}
	}
	return nil
}

// schemaUsing is the key schema of the table, or of its first index, that
// has the attribute name as a key; nil when none has.
func schemaUsing(t *store.Table, name string) []keyElem {
	schemas := [][]keyElem{keyElems(t.Hash, t.Range)}
	for _, ix := range t.Indexes {
		schemas = append(schemas, indexKeyElems(&ix))
	}
	for _, s := range schemas {
		for _, e := range s {
			if e.Name == name {
				return s
			}
		}
	}
	return nil
}

// keyElem is one element of a key schema with its type.
type keyElem struct {
	store.KeyAttr
	keyType string
}

func keyElems(hash store.KeyAttr, rng *store.KeyAttr) []keyElem {
	out := []keyElem{{hash, "HASH"}}
	if rng != nil {
		out = append(out, keyElem{*rng, "RANGE"})
	}
	return out
}

// indexKeyElems is an index's key schema with its types, every element of
// a multi-attribute key included.
func indexKeyElems(ix *store.Index) []keyElem {
	var out []keyElem
	for _, k := range ix.HashAttrs() {
		out = append(out, keyElem{k, "HASH"})
	}
	for _, k := range ix.RangeAttrs() {
		out = append(out, keyElem{k, "RANGE"})
	}
	return out
}

// schemaText renders a key schema as the service's message does:
// Schema:[SchemaElement: key{xyz:S:HASH}, ...].
func schemaText(s []keyElem) string {
	parts := make([]string, len(s))
	for i, e := range s {
		parts[i] = fmt.Sprintf("SchemaElement: key{%s:%s:%s}", e.Name, e.Type, e.keyType)
	}
	return "Schema:[" + strings.Join(parts, ", ") + "]"
}

func hasDefinition(t *store.Table, name string) bool {
	for _, d := range t.AttributeDefinitions {
		if d.Name == name {
			return true
		}
	}
	return false
}

// pruneAttributeDefinitions drops definitions no key of the table or of its
// remaining indexes uses, as the service does when an index goes away.
func pruneAttributeDefinitions(t *store.Table) {
	used := map[string]bool{t.Hash.Name: true}
	if t.Range != nil {
		used[t.Range.Name] = true
	}
	for _, ix := range t.Indexes {
		for _, k := range ix.KeyAttrs() {
			used[k.Name] = true
		}
	}
	kept := t.AttributeDefinitions[:0:0]
	for _, d := range t.AttributeDefinitions {
		if used[d.Name] {
			kept = append(kept, d)
		}
	}
	t.AttributeDefinitions = kept
}

// startBuilds hands the created indexes to the store's builder. A store
// that cannot start one now leaves it CREATING for its recovery to finish.
func (a *API) startBuilds(ctx context.Context, t *store.Table, created []string) error {
	if len(created) == 0 {
		return nil
	}
	sort.Strings(created)
	for _, name := range created {
		if err := a.store.IndexBuildStart(ctx, t, name); err != nil {
			a.log.Warn("index build not started; recovery will finish it", "table", t.Name, "index", name, "err", err)
		}
	}
	return nil
}

// describeUpdating renders UpdateTable's answer: the service reports the
// table UPDATING while an index change it started is in progress.
func describeUpdating(d *tableDescription, changed bool) {
	if changed && !strings.EqualFold(d.TableStatus, store.StatusDeleting) {
		d.TableStatus = store.StatusUpdating
	}
}
