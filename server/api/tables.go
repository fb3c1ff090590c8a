package api

import (
	"context"
	"errors"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

func (a *API) describeTable(ctx context.Context, r *Request) (any, error) {
	name, err := tableNameOnly(r.Body)
	if err != nil {
		return nil, err
	}
	t, err := a.store.TableGet(ctx, name)
	if err != nil {
		return nil, storeErr(err, "table get")
	}
	items, size, err := a.stats.get(ctx, t, a.store.TableStats)
	if err != nil {
		return nil, storeErr(err, "table stats")
	}
	return map[string]any{"Table": describe(t, r.Region, items, size)}, nil
}

func (a *API) listTables(ctx context.Context, r *Request) (any, error) {
	var in listTablesInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraintErrors
	checkName(&c, in.ExclusiveStartTableName, "exclusiveStartTableName", false)
	if in.Limit != nil {
		if *in.Limit < 1 {
			c.add(strp(itoa(*in.Limit)), "limit", "Member must have value greater than or equal to 1")
		}
		if *in.Limit > 100 {
			c.add(strp(itoa(*in.Limit)), "limit", "Member must have value less than or equal to 100")
		}
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	limit := 100
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	after := ""
	if in.ExclusiveStartTableName != nil {
		after = *in.ExclusiveStartTableName
	}
	names, err := a.store.TableList(ctx, after, limit+1)
	if err != nil {
		return nil, storeErr(err, "table list")
	}
	out := map[string]any{}
	if len(names) > limit {
		names = names[:limit]
		out["LastEvaluatedTableName"] = names[limit-1]
	}
	if names == nil {
		names = []string{}
	}
	out["TableNames"] = names
	return out, nil
}

func (a *API) deleteTable(ctx context.Context, r *Request) (any, error) {
	name, err := tableNameOnly(r.Body)
	if err != nil {
		return nil, err
	}
	t, err := a.store.TableGet(ctx, name)
	if err != nil {
		return nil, storeErr(err, "table get")
	}
	if t.Status == store.StatusCreating || t.Status == store.StatusUpdating {
		return nil, ResourceInUseError("Table is being created, updated, or deleted: " + name)
	}
	if deletionProtected(t) {
		return nil, ValidationError(msgDeletionProtected)
	}
	items, size, err := a.stats.get(ctx, t, a.store.TableStats)
	if err != nil {
		return nil, storeErr(err, "table stats")
	}
	t, err = a.store.TableDelete(ctx, name)
	if err != nil {
		return nil, storeErr(err, "table delete")
	}
	d := describe(t, r.Region, items, size)
	d.TableStatus = store.StatusDeleting
	return map[string]any{"TableDescription": deleting(d)}, nil
}

func (a *API) updateTable(ctx context.Context, r *Request) (any, error) {
	var in updateTableInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraintErrors
	checkName(&c, in.TableName, "tableName", true)
	if in.BillingMode != nil && !oneOf(*in.BillingMode, "PROVISIONED", "PAY_PER_REQUEST") {
		c.add(in.BillingMode, "billingMode", "Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]")
	}
	checkThroughput(&c, in.ProvisionedThroughput, "provisionedThroughput")
	checkOptionMembers(&c, &in.tableOptionsInput)
	checkStreamMembers(&c, in.StreamSpecification)
	checkAttributeDefinitionMembers(&c, in.AttributeDefinitions)
	if err := checkIndexUpdates(&c, in.GlobalSecondaryIndexUpdates); err != nil {
		return nil, err
	}
	if in.BillingMode == nil && in.ProvisionedThroughput == nil && len(in.GlobalSecondaryIndexUpdates) == 0 && !in.hasOptionUpdate() && in.StreamSpecification == nil {
		return nil, ValidationError("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, DeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is required")
	}
	if err := checkStreamUpdate(&in); err != nil {
		return nil, err
	}
	if err := checkUpdateComposition(&in); err != nil {
		return nil, err
	}
	if in.ProvisionedThroughput != nil {
		if err := throughputBounds(in.ProvisionedThroughput); err != nil {
			return nil, err
		}
	}
	if len(in.GlobalSecondaryIndexUpdates) > 0 {
		if cur, err := a.store.TableGet(ctx, *in.TableName); err == nil {
			if err := refuseWhileBuilding(cur, in.GlobalSecondaryIndexUpdates); err != nil {
				return nil, err
			}
		}
	}
	var created []string
	t, err := a.store.TableUpdate(ctx, *in.TableName, func(t *store.Table) error {
		if t.Status != store.StatusActive {
			return ResourceInUseError("Table is being created, updated, or deleted: " + t.Name)
		}
		recordWarm(t) // the high-water marks before the change lowers a base
		billing := t.BillingMode
		if err := applyBilling(t, &in); err != nil {
			return err
		}
		dropIndexOnDemand(t)
		if err := applyUpdateOptions(t, &in, r.Region); err != nil {
			return err
		}
		if err := applyStreamUpdate(t, in.StreamSpecification); err != nil {
			return err
		}
		var err error
		if created, err = applyIndexUpdates(t, &in, a.opts.IndexPropagation, billing != t.BillingMode); err != nil {
			return err
		}
		recordWarm(t)
		return nil
	})
	if err != nil {
		var apiErr *Error
		if errors.As(err, &apiErr) {
			return nil, apiErr
		}
		return nil, storeErr(err, "table update")
	}
	if err := a.startBuilds(ctx, t, created); err != nil {
		return nil, err
	}
	items, size, err := a.stats.get(ctx, t, a.store.TableStats)
	if err != nil {
		return nil, storeErr(err, "table stats")
	}
	d := describe(t, r.Region, items, size)
	describeUpdating(d, len(in.GlobalSecondaryIndexUpdates) > 0)
	return map[string]any{"TableDescription": d}, nil
}

// applyBilling changes billing mode and provisioned throughput as the
// service allows, with its refusals.
func applyBilling(t *store.Table, in *updateTableInput) error {
	now := time.Now().UTC().Truncate(time.Millisecond)
	mode := t.BillingMode
	if in.BillingMode != nil {
		mode = *in.BillingMode
	}
	if mode == "PAY_PER_REQUEST" {
		if in.ProvisionedThroughput != nil {
			return invalid("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
		}
		if t.BillingMode != mode {
			t.BillingMode = mode
			t.BillingModeSetAt = now
			t.Throughput = store.Throughput{}
			for i := range t.Indexes {
				t.Indexes[i].Throughput = store.Throughput{}
			}
		}
		return nil
	}
	pt := in.ProvisionedThroughput
	if t.BillingMode == "PAY_PER_REQUEST" {
		if pt == nil {
			return ValidationError("One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
		}
		t.BillingMode = "PROVISIONED"
		t.BillingModeSetAt = now
		t.Throughput = store.Throughput{Read: *pt.ReadCapacityUnits, Write: *pt.WriteCapacityUnits}
		for i := range t.Indexes {
			if t.Indexes[i].Global {
				t.Indexes[i].Throughput = store.Throughput{Read: *pt.ReadCapacityUnits, Write: *pt.WriteCapacityUnits}
			}
		}
		return nil
	}
	if pt == nil {
		return nil
	}
	old := t.Throughput
	if old.Read == *pt.ReadCapacityUnits && old.Write == *pt.WriteCapacityUnits {
		return ValidationError("The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: %d. Requested ReadCapacityUnits: %d. Current WriteCapacityUnits provisioned for the table: %d. Requested WriteCapacityUnits: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.", old.Read, *pt.ReadCapacityUnits, old.Write, *pt.WriteCapacityUnits)
	}
	if *pt.ReadCapacityUnits > old.Read || *pt.WriteCapacityUnits > old.Write {
		t.Throughput.LastIncrease = now
	}
	if *pt.ReadCapacityUnits < old.Read || *pt.WriteCapacityUnits < old.Write {
		t.Throughput.LastDecrease = now
		t.Throughput.DecreasesToday++
	}
	t.Throughput.Read, t.Throughput.Write = *pt.ReadCapacityUnits, *pt.WriteCapacityUnits
	return nil
}
