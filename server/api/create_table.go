package api

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

const maxThroughput = 1000000000000

func (a *API) createTable(ctx context.Context, r *Request) (any, error) {
	var in createTableInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	if err := checkCreateTableMembers(&in); err != nil {
		return nil, err
	}
	t, err := buildTable(&in)
	if err != nil {
		return nil, err
	}
	if err := applyCreateOptions(t, &in, r.Region); err != nil {
		return nil, err
	}
	if err := applyCreateStream(t, in.StreamSpecification); err != nil {
		return nil, err
	}
	for i := range t.Indexes {
		t.Indexes[i].Propagation = a.opts.IndexPropagation
	}
	if err := a.store.TableCreate(ctx, t); err != nil {
		if errors.Is(err, store.ErrTableExists) {
			return nil, ResourceInUseError("Table already exists: " + t.Name)
		}
		return nil, storeErr(err, "create table")
	}
	desc := describe(t, r.Region, 0, 0)
	// The service answers CreateTable with CREATING; our storage is ready at
	// once, so DescribeTable reports ACTIVE from the next call on. Its
	// answer has no WarmThroughput, but the table's when one was given
	// (UPDATING).
	desc.TableStatus = store.StatusCreating
	for i := range desc.GlobalSecondaryIndexes {
		desc.GlobalSecondaryIndexes[i].IndexStatus = store.StatusCreating
		desc.GlobalSecondaryIndexes[i].WarmThroughput = nil
	}
	if in.WarmThroughput.empty() {
		desc.WarmThroughput = nil
	} else {
		desc.WarmThroughput.Status = store.StatusUpdating
	}
	return map[string]any{"TableDescription": desc}, nil
}

// checkCreateTableMembers applies the member constraints in the service's order.
func checkCreateTableMembers(in *createTableInput) error {
	// A missing TableName is the required-parameter error, not a member
	// constraint (measured by a conformance suite against the service).
	if in.TableName == nil {
		return ValidationError("The parameter 'TableName' is required but was not present in the request")
	}
	var c constraintErrors
	c.notNull(in.AttributeDefinitions != nil, "attributeDefinitions")
	checkAttributeDefinitionMembers(&c, in.AttributeDefinitions)
	checkName(&c, in.TableName, "tableName", true)
	if in.BillingMode != nil && !oneOf(*in.BillingMode, "PROVISIONED", "PAY_PER_REQUEST") {
		c.add(in.BillingMode, "billingMode", "Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]")
	}
	checkThroughput(&c, in.ProvisionedThroughput, "provisionedThroughput")
	checkKeySchema(&c, in.KeySchema, "keySchema", 2)
	for i, ix := range in.LocalSecondaryIndexes {
		checkIndexMembers(&c, ix, fmt.Sprintf("localSecondaryIndexes.%d.member", i+1), 2)
	}
	for i, ix := range in.GlobalSecondaryIndexes {
		p := fmt.Sprintf("globalSecondaryIndexes.%d.member", i+1)
		checkIndexMembers(&c, ix, p, maxGSIKeyElements)
		checkThroughput(&c, ix.ProvisionedThroughput, p+".provisionedThroughput")
	}
	checkOptionMembers(&c, &in.tableOptionsInput)
	checkStreamMembers(&c, in.StreamSpecification)
	if err := c.err(); err != nil {
		return err
	}
	return nil
}

// checkAttributeDefinitionMembers applies AttributeDefinitions' member
// constraints: a name of 1 to 255 bytes, a type of B, N or S.
func checkAttributeDefinitionMembers(c *constraintErrors, defs []attributeDefinition) {
	for i, d := range defs {
		p := fmt.Sprintf("attributeDefinitions.%d.member", i+1)
		c.notNull(d.AttributeName != nil, p+".attributeName")
		checkKeyNameLength(c, d.AttributeName, p+".attributeName")
		c.notNull(d.AttributeType != nil, p+".attributeType")
		if d.AttributeType != nil && !oneOf(*d.AttributeType, "B", "N", "S") {
			c.add(d.AttributeType, p+".attributeType", "Member must satisfy enum value set: [B, N, S]")
		}
	}
}

// checkKeyNameLength applies the 1 to 255 byte length of a key attribute's
// name (AttributeDefinition and KeySchemaElement): a member constraint,
// reported before any check of how the schema fits together.
func checkKeyNameLength(c *constraintErrors, name *string, p string) {
	switch {
	case name == nil:
	case len(*name) < 1:
		c.add(name, p, "Member must have length greater than or equal to 1")
	case len(*name) > 255:
		c.add(name, p, "Member must have length less than or equal to 255")
	}
}

// checkDuplicateDefinitions refuses an attribute defined twice, whatever
// the types.
func checkDuplicateDefinitions(defs []attributeDefinition) error {
	seen := make(map[string]bool, len(defs))
	for _, d := range defs {
		if seen[*d.AttributeName] {
			return ValidationError("Attribute Name is duplicated: %s", *d.AttributeName)
		}
		seen[*d.AttributeName] = true
	}
	return nil
}

func checkThroughput(c *constraintErrors, pt *provisionedThroughput, p string) {
	if pt == nil {
		return
	}
	c.notNull(pt.WriteCapacityUnits != nil, p+".writeCapacityUnits")
	if pt.WriteCapacityUnits != nil && *pt.WriteCapacityUnits < 1 {
		c.add(strp(itoa(*pt.WriteCapacityUnits)), p+".writeCapacityUnits", "Member must have value greater than or equal to 1")
	}
	c.notNull(pt.ReadCapacityUnits != nil, p+".readCapacityUnits")
	if pt.ReadCapacityUnits != nil && *pt.ReadCapacityUnits < 1 {
		c.add(strp(itoa(*pt.ReadCapacityUnits)), p+".readCapacityUnits", "Member must have value greater than or equal to 1")
	}
}

// checkKeySchema applies a KeySchema's member constraints; max is its
// length limit: 2 for a table's and a local index's, maxGSIKeyElements for
// a global index's (multi-attribute keys).
func checkKeySchema(c *constraintErrors, ks []keySchemaElement, p string, max int) {
	c.notNull(ks != nil, p)
	if ks == nil {
		return
	}
	if len(ks) < 1 {
		c.add(strp("[]"), p, "Member must have length greater than or equal to 1")
	}
	if len(ks) > max {
		c.add(strp(renderKeySchema(ks)), p, fmt.Sprintf("Member must have length less than or equal to %d", max))
	}
	for i, k := range ks {
		kp := fmt.Sprintf("%s.%d.member", p, i+1)
		c.notNull(k.AttributeName != nil, kp+".attributeName")
		checkKeyNameLength(c, k.AttributeName, kp+".attributeName")
		c.notNull(k.KeyType != nil, kp+".keyType")
		if k.KeyType != nil && !oneOf(*k.KeyType, "HASH", "RANGE") {
			c.add(k.KeyType, kp+".keyType", "Member must satisfy enum value set: [HASH, RANGE]")
		}
	}
}

func renderKeySchema(ks []keySchemaElement) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("KeySchemaElement(attributeName=%s, keyType=%s)", deref(k.AttributeName), deref(k.KeyType))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func checkIndexMembers(c *constraintErrors, ix secondaryIndex, p string, maxKeys int) {
	checkName(c, ix.IndexName, p+".indexName", true)
	checkKeySchema(c, ix.KeySchema, p+".keySchema", maxKeys)
	c.notNull(ix.Projection != nil, p+".projection")
	if ix.Projection != nil {
		if pt := ix.Projection.ProjectionType; pt != nil && !oneOf(*pt, "ALL", "INCLUDE", "KEYS_ONLY") {
			c.add(pt, p+".projection.projectionType", "Member must satisfy enum value set: [ALL, INCLUDE, KEYS_ONLY]")
		}
		if nk := ix.Projection.NonKeyAttributes; nk != nil && len(nk) < 1 {
			c.add(strp("[]"), p+".projection.nonKeyAttributes", "Member must have length greater than or equal to 1")
		}
	}
}

func invalid(format string, args ...any) *Error {
	return ValidationError("One or more parameter values were invalid: %s", fmt.Sprintf(format, args...))
}

// buildTable applies the service's cross-member rules and returns the table.
func buildTable(in *createTableInput) (*store.Table, error) {
	payPerRequest := in.BillingMode != nil && *in.BillingMode == "PAY_PER_REQUEST"
	pt := in.ProvisionedThroughput
	if payPerRequest {
		if pt != nil {
			return nil, invalid("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
	} else {
		if pt == nil {
			return nil, ValidationError("No provisioned throughput specified for the table")
		}
		if err := throughputBounds(pt); err != nil {
			return nil, err
		}
	}
	if err := checkDuplicateDefinitions(in.AttributeDefinitions); err != nil {
		return nil, err
	}
	defs := map[string]attr.Type{}
	var defNames []string
	for _, d := range in.AttributeDefinitions {
		defs[*d.AttributeName] = attr.TypeFromName(*d.AttributeType)
		defNames = append(defNames, *d.AttributeName)
	}
	keys := keyNames(in.KeySchema)
	if len(keys) > len(defNames) {
		return nil, ValidationError("Invalid KeySchema: Some index key attribute have no definition")
	}
	if err := keysDefined(keys, defs, defNames); err != nil {
		return nil, err
	}
	if err := checkKeyOrder(in.KeySchema); err != nil {
		return nil, err
	}
	if in.LocalSecondaryIndexes == nil && in.GlobalSecondaryIndexes == nil && len(keys) != len(defNames) {
		return nil, invalid("Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	t := &store.Table{
		Name:        *in.TableName,
		TableID:     newUUID(),
		Status:      store.StatusActive,
		CreatedAt:   now,
		Hash:        store.KeyAttr{Name: keys[0], Type: defs[keys[0]]},
		BillingMode: "PROVISIONED",
	}
	if len(keys) == 2 {
		t.Range = &store.KeyAttr{Name: keys[1], Type: defs[keys[1]]}
	}
	for _, d := range in.AttributeDefinitions {
		t.AttributeDefinitions = append(t.AttributeDefinitions, store.KeyAttr{Name: *d.AttributeName, Type: defs[*d.AttributeName]})
	}
	if payPerRequest {
		t.BillingMode = "PAY_PER_REQUEST"
		t.BillingModeSetAt = now
	} else {
		t.Throughput = store.Throughput{Read: *pt.ReadCapacityUnits, Write: *pt.WriteCapacityUnits}
	}
	used := map[string]bool{keys[0]: true}
	if len(keys) == 2 {
		used[keys[1]] = true
	}
	names := map[string]bool{}
	if in.LocalSecondaryIndexes != nil {
		if len(in.LocalSecondaryIndexes) == 0 {
			return nil, invalid("List of LocalSecondaryIndexes is empty")
		}
		if t.Range == nil {
			return nil, invalid("Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex")
		}
		for _, ix := range in.LocalSecondaryIndexes {
			idx, err := buildIndex(ix, false, defs, defNames, payPerRequest)
			if err != nil {
				return nil, err
			}
			if idx.Range == nil {
				return nil, invalid("Index KeySchema does not have a range key for index: %s", idx.Name)
			}
			if idx.Hash.Name != t.Hash.Name {
				return nil, invalid("Index KeySchema does not have the same leading hash key as table KeySchema for index: %s. index hash key: %s, table hash key: %s", idx.Name, idx.Hash.Name, t.Hash.Name)
			}
			if names[idx.Name] {
				return nil, invalid("Duplicate index name: %s", idx.Name)
			}
			names[idx.Name] = true
			markUsed(used, idx)
			t.Indexes = append(t.Indexes, *idx)
		}
		if len(in.LocalSecondaryIndexes) > 5 {
			return nil, invalid("Number of LocalSecondaryIndexes exceeds per-table limit of 5")
		}
	}
	if in.GlobalSecondaryIndexes != nil {
		if len(in.GlobalSecondaryIndexes) == 0 {
			return nil, invalid("List of GlobalSecondaryIndexes is empty")
		}
		for _, ix := range in.GlobalSecondaryIndexes {
			idx, err := buildIndex(ix, true, defs, defNames, payPerRequest)
			if err != nil {
				return nil, err
			}
			if names[idx.Name] {
				return nil, invalid("Duplicate index name: %s", idx.Name)
			}
			names[idx.Name] = true
			markUsed(used, idx)
			t.Indexes = append(t.Indexes, *idx)
		}
		if len(in.GlobalSecondaryIndexes) > 20 {
			return nil, invalid("GlobalSecondaryIndex count exceeds the per-table limit of 20")
		}
	}
	if len(used) != len(defNames) {
		var usedList []string
		for _, n := range defNames {
			if used[n] {
				usedList = append(usedList, n)
			}
		}
		return nil, invalid("Some AttributeDefinitions are not used. AttributeDefinitions: [%s], keys used: [%s]", strings.Join(defNames, ", "), strings.Join(usedList, ", "))
	}
	return t, nil
}

func markUsed(used map[string]bool, ix *store.Index) {
	for _, k := range ix.KeyAttrs() {
		used[k.Name] = true
	}
}

func throughputBounds(pt *provisionedThroughput) error {
	if *pt.ReadCapacityUnits > maxThroughput {
		return ValidationError("Given value %d for ReadCapacityUnits is out of bounds", *pt.ReadCapacityUnits)
	}
	if *pt.WriteCapacityUnits > maxThroughput {
		return ValidationError("Given value %d for WriteCapacityUnits is out of bounds", *pt.WriteCapacityUnits)
	}
	return nil
}

func keyNames(ks []keySchemaElement) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = *k.AttributeName
	}
	return out
}

func keysDefined(keys []string, defs map[string]attr.Type, defNames []string) error {
	for _, k := range keys {
		if _, ok := defs[k]; !ok {
			return invalid("Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]", strings.Join(keys, ", "), strings.Join(defNames, ", "))
		}
	}
	return nil
}

func checkKeyOrder(ks []keySchemaElement) error {
	if len(ks) == 2 && *ks[0].AttributeName == *ks[1].AttributeName {
		return ValidationError("Both the Hash Key and the Range Key element in the KeySchema have the same name")
	}
	if *ks[0].KeyType != "HASH" {
		return ValidationError("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	if len(ks) == 2 && *ks[1].KeyType != "RANGE" {
		return ValidationError("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
	}
	return nil
}

// buildIndex validates one index declaration against the definitions.
func buildIndex(ix secondaryIndex, global bool, defs map[string]attr.Type, defNames []string, payPerRequest bool) (*store.Index, error) {
	keys := keyNames(ix.KeySchema)
	if err := keysDefined(keys, defs, defNames); err != nil {
		return nil, err
	}
	nHash := 1
	if global && isMultiKeySchema(ix.KeySchema) {
		var err error
		if nHash, err = checkMultiKeyOrder(ix.KeySchema); err != nil {
			return nil, err
		}
	} else if err := checkKeyOrder(ix.KeySchema); err != nil {
		return nil, err
	}
	p := ix.Projection
	if p.ProjectionType == nil {
		return nil, invalid("Unknown ProjectionType: null")
	}
	pt := *p.ProjectionType
	if p.NonKeyAttributes != nil && pt != "INCLUDE" {
		return nil, invalid("ProjectionType is %s, but NonKeyAttributes is specified", pt)
	}
	if pt == "INCLUDE" && p.NonKeyAttributes == nil {
		return nil, invalid("ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
	}
	idx := &store.Index{
		Name:       *ix.IndexName,
		Global:     global,
		Hash:       store.KeyAttr{Name: keys[0], Type: defs[keys[0]]},
		Projection: store.Projection{Type: pt, NonKeyAttributes: p.NonKeyAttributes},
		Status:     store.StatusActive,
	}
	for _, k := range keys[1:nHash] {
		idx.MoreHash = append(idx.MoreHash, store.KeyAttr{Name: k, Type: defs[k]})
	}
	for i, k := range keys[nHash:] {
		if i == 0 {
			idx.Range = &store.KeyAttr{Name: k, Type: defs[k]}
		} else {
			idx.MoreRange = append(idx.MoreRange, store.KeyAttr{Name: k, Type: defs[k]})
		}
	}
	if global {
		switch {
		case payPerRequest && ix.ProvisionedThroughput != nil:
			return nil, invalid("ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST", idx.Name)
		case !payPerRequest && ix.ProvisionedThroughput == nil:
			return nil, invalid("ProvisionedThroughput must be specified for index: %s", idx.Name)
		case ix.ProvisionedThroughput != nil:
			if err := throughputBounds(ix.ProvisionedThroughput); err != nil {
				return nil, err
			}
			idx.Throughput = store.Throughput{Read: *ix.ProvisionedThroughput.ReadCapacityUnits, Write: *ix.ProvisionedThroughput.WriteCapacityUnits}
		}
		if err := applyIndexCreateThroughput(idx, &ix, payPerRequest); err != nil {
			return nil, err
		}
	} else if ix.ProvisionedThroughput != nil {
		return nil, invalid("ProvisionedThroughput should not be specified for local secondary index: %s", idx.Name)
	}
	return idx, nil
}

func oneOf(s string, options ...string) bool {
	for _, o := range options {
		if s == o {
			return true
		}
	}
	return false
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
