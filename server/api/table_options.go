package api

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// Table options the control plane stores in store.Table.Options (raw JSON
// by name) and echoes in DescribeTable, so that tools which read them back
// (Terraform, CloudFormation, CDK) see no drift.
const (
	optDeletionProtection = "deletionProtection" // bool
	optTableClass         = "tableClass"         // tableClassOpt
	optSSE                = "sse"                // sseOpt
	optOnDemand           = "onDemandThroughput" // onDemandOpt
	optTags               = "tags"               // []tagOut
	optTTL                = "ttl"                // ttlOpt
	optPITR               = "pitr"               // pitrOpt (backups.go)
)

// The service's texts for these options.
const (
	msgDeletionProtected = "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first."
	msgBadTableClass     = "Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS]."
)

// tableOptionsInput is the option members CreateTable and UpdateTable share.
type tableOptionsInput struct {
	DeletionProtectionEnabled *bool               `json:"DeletionProtectionEnabled"`
	TableClass                *string             `json:"TableClass"`
	SSESpecification          *sseSpecification   `json:"SSESpecification"`
	OnDemandThroughput        *onDemandThroughput `json:"OnDemandThroughput"`
	WarmThroughput            *warmThroughput     `json:"WarmThroughput"`
}

type sseSpecification struct {
	Enabled        *bool   `json:"Enabled"`
	SSEType        *string `json:"SSEType"`
	KMSMasterKeyId *string `json:"KMSMasterKeyId"`
}

type onDemandThroughput struct {
	MaxReadRequestUnits  *int64 `json:"MaxReadRequestUnits"`
	MaxWriteRequestUnits *int64 `json:"MaxWriteRequestUnits"`
}

// Stored shapes.
type tableClassOpt struct {
	Class     string    `json:"class"`
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

type sseOpt struct {
	Type      string `json:"type"`
	KMSKeyArn string `json:"kmsKeyArn"`
}

type onDemandOpt struct {
	Read  int64 `json:"read"`
	Write int64 `json:"write"`
}

// Described shapes.
type tableClassSummary struct {
	TableClass         string     `json:"TableClass"`
	LastUpdateDateTime *epochTime `json:"LastUpdateDateTime,omitempty"`
}

type sseDescription struct {
	Status          string `json:"Status"`
	SSEType         string `json:"SSEType"`
	KMSMasterKeyArn string `json:"KMSMasterKeyArn"`
}

type onDemandThroughputOut struct {
	MaxReadRequestUnits  int64 `json:"MaxReadRequestUnits"`
	MaxWriteRequestUnits int64 `json:"MaxWriteRequestUnits"`
}

// getOpt decodes the named option into v; false when it is not set.
func getOpt(t *store.Table, name string, v any) bool {
	raw, ok := t.Options[name]
	if !ok || len(raw) == 0 {
		return false
	}
	return json.Unmarshal(raw, v) == nil
}

// setOpt stores v as the named option; a nil v removes it.
func setOpt(t *store.Table, name string, v any) {
	if v == nil {
		delete(t.Options, name)
		return
	}
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err) // our own option types always encode
	}
	if t.Options == nil {
		t.Options = map[string][]byte{}
	}
	t.Options[name] = raw
}

// checkOptionMembers records the member constraints of the option members.
func checkOptionMembers(c *constraintErrors, in *tableOptionsInput) {
	if s := in.SSESpecification; s != nil {
		checkEnum(c, s.SSEType, "sSESpecification.sSEType", []string{"AES256", "KMS"})
	}
}

// checkSSE applies the service's cross-member rules of an SSESpecification.
func checkSSE(s *sseSpecification) error {
	enabled := s.Enabled != nil && *s.Enabled
	if !enabled {
		if s.SSEType != nil {
			return invalid("SSEType can not be specified if Enabled is false")
		}
		if s.KMSMasterKeyId != nil {
			return invalid("KMSMasterKeyId can not be specified if Enabled is false")
		}
		return nil
	}
	if s.SSEType != nil && *s.SSEType == "AES256" {
		return invalid("SSEType AES256 is not supported")
	}
	if s.KMSMasterKeyId != nil && s.SSEType == nil {
		return invalid("SSEType KMS is required if KMSMasterKeyId is specified")
	}
	return nil
}

// kmsKeyArn renders the key an enabled SSESpecification names as the ARN
// SSEDescription shows; without a key it is the account's AWS managed key.
func kmsKeyArn(region string, keyID *string) string {
	prefix := "arn:aws:kms:" + region + ":" + accountID + ":"
	switch {
	case keyID == nil || *keyID == "":
		return prefix + "key/" + newUUID()
	case strings.HasPrefix(*keyID, "arn:"):
		return *keyID
	case strings.HasPrefix(*keyID, "alias/"):
		return prefix + *keyID
	default:
		return prefix + "key/" + *keyID
	}
}

// checkOnDemand validates OnDemandThroughput against the billing mode the
// table will have; clear (-1) is allowed on UpdateTable only.
func checkOnDemand(od *onDemandThroughput, billing string, update bool) error {
	if billing != "PAY_PER_REQUEST" {
		if od.MaxReadRequestUnits != nil {
			return invalid("MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED")
		}
		if od.MaxWriteRequestUnits != nil {
			return invalid("MaxWriteRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED")
		}
		return nil
	}
	bad := func(v *int64) bool { return v != nil && *v < 1 && !(update && *v == -1) }
	if bad(od.MaxReadRequestUnits) {
		return invalid("Requested MaxReadRequestUnits for OnDemandThroughput for table is outside of valid range")
	}
	if bad(od.MaxWriteRequestUnits) {
		return invalid("Requested MaxWriteRequestUnits for OnDemandThroughput for table is outside of valid range")
	}
	return nil
}

// mergeOnDemand applies an OnDemandThroughput to the stored one; a member
// left out keeps its value, -1 means no maximum.
func mergeOnDemand(t *store.Table, od *onDemandThroughput) {
	cur := onDemandOpt{Read: -1, Write: -1}
	getOpt(t, optOnDemand, &cur)
	if od.MaxReadRequestUnits != nil {
		cur.Read = *od.MaxReadRequestUnits
	}
	if od.MaxWriteRequestUnits != nil {
		cur.Write = *od.MaxWriteRequestUnits
	}
	if cur.Read == -1 && cur.Write == -1 {
		setOpt(t, optOnDemand, nil)
		return
	}
	setOpt(t, optOnDemand, cur)
}

// applyCreateOptions validates the option members of a CreateTable and
// stores them on the new table.
func applyCreateOptions(t *store.Table, in *createTableInput, region string) error {
	o := &in.tableOptionsInput
	if o.TableClass != nil && !oneOf(*o.TableClass, "STANDARD", "STANDARD_INFREQUENT_ACCESS") {
		return ValidationError(msgBadTableClass)
	}
	if o.SSESpecification != nil {
		if err := checkSSE(o.SSESpecification); err != nil {
			return err
		}
	}
	if o.OnDemandThroughput != nil {
		if err := checkOnDemand(o.OnDemandThroughput, t.BillingMode, false); err != nil {
			return err
		}
	}
	if in.Tags != nil {
		tags, err := checkTags(in.Tags)
		if err != nil {
			return err
		}
		if len(tags) > maxTags {
			return ValidationError(msgTooManyTags)
		}
		if len(tags) > 0 {
			setOpt(t, optTags, tags)
		}
	}
	if o.DeletionProtectionEnabled != nil && *o.DeletionProtectionEnabled {
		setOpt(t, optDeletionProtection, true)
	}
	if o.TableClass != nil {
		setOpt(t, optTableClass, tableClassOpt{Class: *o.TableClass})
	}
	if s := o.SSESpecification; s != nil && s.Enabled != nil && *s.Enabled {
		setOpt(t, optSSE, sseOpt{Type: "KMS", KMSKeyArn: kmsKeyArn(region, s.KMSMasterKeyId)})
	}
	if o.OnDemandThroughput != nil {
		mergeOnDemand(t, o.OnDemandThroughput)
	}
	return applyCreateWarm(t, o.WarmThroughput)
}

// hasOptionUpdate reports whether an UpdateTable carries an option member.
func (o *tableOptionsInput) hasOptionUpdate() bool {
	return o.DeletionProtectionEnabled != nil || o.TableClass != nil || o.SSESpecification != nil || o.OnDemandThroughput != nil ||
		!o.WarmThroughput.empty()
}

// checkUpdateComposition refuses the combinations the service does not
// allow in one UpdateTable.
func checkUpdateComposition(in *updateTableInput) error {
	o := &in.tableOptionsInput
	others := func(except ...string) bool {
		set := map[string]bool{
			"billing":    in.BillingMode != nil,
			"throughput": in.ProvisionedThroughput != nil,
			"gsi":        len(in.GlobalSecondaryIndexUpdates) > 0,
			"sse":        o.SSESpecification != nil,
			"class":      o.TableClass != nil,
			"protection": o.DeletionProtectionEnabled != nil,
			"ondemand":   o.OnDemandThroughput != nil,
			"warm":       !o.WarmThroughput.empty(),
		}
		for _, e := range except {
			delete(set, e)
		}
		for _, v := range set {
			if v {
				return true
			}
		}
		return false
	}
	switch {
	case o.SSESpecification != nil && others("sse"):
		return invalid("Server-Side Encryption modification must be the only operation in the request")
	case o.TableClass != nil && others("class"):
		return invalid("TableClass modification must be the only operation in the request")
	case o.DeletionProtectionEnabled != nil && others("protection"):
		return invalid("DeletionProtection modification must be the only operation in the request")
	case o.OnDemandThroughput != nil && others("ondemand", "billing"):
		return invalid("OnDemandThroughput can only be combined with BillingMode in an UpdateTable request")
	case !o.WarmThroughput.empty() && createsIndex(in):
		return invalid("Create global secondary index cannot be specified when updating WarmThroughput")
	case !o.WarmThroughput.empty() && others("warm"):
		return invalid("WarmThroughput must be the only operation in the request")
	}
	if o.TableClass != nil && !oneOf(*o.TableClass, "STANDARD", "STANDARD_INFREQUENT_ACCESS") {
		return ValidationError(msgBadTableClass)
	}
	if o.SSESpecification != nil {
		return checkSSE(o.SSESpecification)
	}
	return nil
}

// createsIndex reports whether an UpdateTable creates a global index.
func createsIndex(in *updateTableInput) bool {
	for _, u := range in.GlobalSecondaryIndexUpdates {
		if u.Create != nil {
			return true
		}
	}
	return false
}

// applyUpdateOptions changes the table's options under TableUpdate's lock,
// after applyBilling has set the billing mode.
func applyUpdateOptions(t *store.Table, in *updateTableInput, region string) error {
	o := &in.tableOptionsInput
	if t.BillingMode != "PAY_PER_REQUEST" {
		setOpt(t, optOnDemand, nil)
	}
	if o.OnDemandThroughput != nil {
		if err := checkOnDemand(o.OnDemandThroughput, t.BillingMode, true); err != nil {
			return err
		}
		mergeOnDemand(t, o.OnDemandThroughput)
	}
	if s := o.SSESpecification; s != nil {
		var cur sseOpt
		encrypted := getOpt(t, optSSE, &cur)
		if s.Enabled != nil && *s.Enabled {
			arn := kmsKeyArn(region, s.KMSMasterKeyId)
			if encrypted && (s.KMSMasterKeyId == nil || arn == cur.KMSKeyArn) {
				return invalid("Table is already encrypted with given KMSMasterKeyId. Use KMSMasterKeyId parameter if you want to change Master Key")
			}
			setOpt(t, optSSE, sseOpt{Type: "KMS", KMSKeyArn: arn})
		} else {
			if !encrypted {
				return invalid("Table is already encrypted by default")
			}
			setOpt(t, optSSE, nil)
		}
	}
	if o.TableClass != nil {
		setOpt(t, optTableClass, tableClassOpt{Class: *o.TableClass, UpdatedAt: time.Now().UTC().Truncate(time.Millisecond)})
	}
	if o.DeletionProtectionEnabled != nil {
		if *o.DeletionProtectionEnabled {
			setOpt(t, optDeletionProtection, true)
		} else {
			setOpt(t, optDeletionProtection, nil)
		}
	}
	return applyUpdateWarm(t, o.WarmThroughput)
}

// deletionProtected reports whether DeleteTable must refuse the table.
func deletionProtected(t *store.Table) bool {
	var on bool
	return getOpt(t, optDeletionProtection, &on) && on
}

// describeOptions adds the stored options to a table description.
func describeOptions(d *tableDescription, t *store.Table) {
	d.DeletionProtectionEnabled = deletionProtected(t)
	var tc tableClassOpt
	if getOpt(t, optTableClass, &tc) {
		d.TableClassSummary = &tableClassSummary{TableClass: tc.Class, LastUpdateDateTime: epochPtr(tc.UpdatedAt)}
	}
	var sse sseOpt
	if getOpt(t, optSSE, &sse) {
		d.SSEDescription = &sseDescription{Status: "ENABLED", SSEType: sse.Type, KMSMasterKeyArn: sse.KMSKeyArn}
	}
	var od onDemandOpt
	if t.BillingMode == "PAY_PER_REQUEST" && getOpt(t, optOnDemand, &od) {
		d.OnDemandThroughput = &onDemandThroughputOut{MaxReadRequestUnits: od.Read, MaxWriteRequestUnits: od.Write}
	}
	d.WarmThroughput = warmOut(tableWarm(t))
}
