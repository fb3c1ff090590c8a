package api

import (
	"net/http"
	"time"

	"github.com/dynamopg/dynamopg/server/store"
)

// The throughput settings of a global secondary index beyond its
// provisioned throughput: OnDemandThroughput (maxima of an on-demand
// table's index, -1 for none, dropped when the table turns provisioned) and
// WarmThroughput (warm_throughput.go), on CreateTable, on an UpdateTable
// Create and Update, and in DescribeTable.

// indexOnDemandOut shows the maxima that are set (the service leaves out a
// member cleared with -1, and the whole block when none is set).
type indexOnDemandOut struct {
	MaxReadRequestUnits  *int64 `json:"MaxReadRequestUnits,omitempty"`
	MaxWriteRequestUnits *int64 `json:"MaxWriteRequestUnits,omitempty"`
}

// empty reports an OnDemandThroughput that is absent or names no member.
func (od *onDemandThroughput) empty() bool {
	return od == nil || (od.MaxReadRequestUnits == nil && od.MaxWriteRequestUnits == nil)
}

// checkIndexOnDemand validates an index's OnDemandThroughput against the
// table's billing mode; clear (-1) is allowed on UpdateTable only.
func checkIndexOnDemand(od *onDemandThroughput, name string, payPerRequest, update bool) error {
	if !payPerRequest {
		if od.MaxReadRequestUnits != nil {
			return invalid("MaxReadRequestUnits for OnDemandThroughput for index : %s cannot be specified when the table BillingMode is PROVISIONED", name)
		}
		return invalid("MaxWriteRequestUnits for OnDemandThroughput for index : %s cannot be specified when the table BillingMode is PROVISIONED", name)
	}
	bad := func(v *int64) bool { return v != nil && *v < 1 && !(update && *v == -1) }
	if bad(od.MaxReadRequestUnits) {
		return invalid("Requested MaxReadRequestUnits for OnDemandThroughput for index : %s is outside of valid range", name)
	}
	if bad(od.MaxWriteRequestUnits) {
		return invalid("Requested MaxWriteRequestUnits for OnDemandThroughput for index : %s is outside of valid range", name)
	}
	return nil
}

// mergeIndexOnDemand applies an OnDemandThroughput to the index's maxima: a
// member left out keeps its value, -1 clears it.
func mergeIndexOnDemand(ix *store.Index, od *onDemandThroughput) {
	cur := store.Capacity{Read: -1, Write: -1}
	if ix.OnDemand != nil {
		cur = *ix.OnDemand
	}
	if od.MaxReadRequestUnits != nil {
		cur.Read = *od.MaxReadRequestUnits
	}
	if od.MaxWriteRequestUnits != nil {
		cur.Write = *od.MaxWriteRequestUnits
	}
	ix.OnDemand = &cur
	if cur.Read == -1 && cur.Write == -1 {
		ix.OnDemand = nil
	}
}

// applyIndexCreateThroughput validates the OnDemandThroughput and
// WarmThroughput of a new global index (CreateTable or an UpdateTable
// Create) and sets them on idx, whose provisioned throughput is set. Empty
// ones are ignored, as the service does.
func applyIndexCreateThroughput(idx *store.Index, in *secondaryIndex, payPerRequest bool) error {
	if od := in.OnDemandThroughput; !od.empty() {
		if err := checkIndexOnDemand(od, idx.Name, payPerRequest, false); err != nil {
			return err
		}
		mergeIndexOnDemand(idx, od)
	}
	if w := in.WarmThroughput; !w.empty() {
		billing := "PROVISIONED"
		if payPerRequest {
			billing = "PAY_PER_REQUEST"
		}
		if err := checkCreateWarm(w, billing, idx.Throughput, "index "+idx.Name); err != nil {
			return err
		}
		idx.Warm, _ = raiseWarm(warmBase(billing, idx.Throughput), w, "index "+idx.Name)
	}
	return nil
}

func indexNotFound(index, table string) *Error {
	return newErr(nsDynamo, "ResourceNotFoundException", http.StatusBadRequest,
		"Requested resource not found: Index "+index+" for table "+table)
}

// applyIndexUpdate applies one Update of GlobalSecondaryIndexUpdates under
// the catalog lock, after the billing mode of the request is applied;
// switched reports that the request changed it.
func applyIndexUpdate(t *store.Table, u *gsiUpdateAction, switched bool, now time.Time) error {
	ix := t.Index(*u.IndexName)
	if ix == nil {
		return indexNotFound(*u.IndexName, t.Name)
	}
	if !ix.Global {
		return ValidationError("Cannot update an index that is not a GlobalSecondaryIndex: %s", ix.Name)
	}
	if t.BillingMode == "PAY_PER_REQUEST" {
		switch {
		case u.ProvisionedThroughput != nil && switched:
			return invalid("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified for index: %s when BillingMode is PAY_PER_REQUEST", ix.Name)
		case u.ProvisionedThroughput != nil || (u.OnDemandThroughput.empty() && u.WarmThroughput == nil):
			return invalid("The only Updates for index: %s when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput", ix.Name)
		}
		if od := u.OnDemandThroughput; !od.empty() {
			if err := checkIndexOnDemand(od, ix.Name, true, true); err != nil {
				return err
			}
			mergeIndexOnDemand(ix, od)
		}
	} else {
		if od := u.OnDemandThroughput; !od.empty() {
			return checkIndexOnDemand(od, ix.Name, false, true)
		}
		if u.ProvisionedThroughput == nil && u.WarmThroughput == nil {
			return invalid("ProvisionedThroughput must be specified for index: %s", ix.Name)
		}
		if pt := u.ProvisionedThroughput; pt != nil {
			if err := updateIndexThroughput(ix, pt, switched, now); err != nil {
				return err
			}
		}
	}
	if w := u.WarmThroughput; w != nil { // not empty: checkIndexUpdates refused that
		next, err := raiseWarm(indexWarm(t, ix), w, "index "+ix.Name)
		if err != nil {
			return err
		}
		ix.Warm = next
	}
	return nil
}

// updateIndexThroughput sets an index's provisioned throughput with the
// table's rules: a change is required (unless the request also switched
// the billing mode, which set it) and increases and decreases are dated.
func updateIndexThroughput(ix *store.Index, pt *provisionedThroughput, switched bool, now time.Time) error {
	if err := throughputBounds(pt); err != nil {
		return err
	}
	r, w := *pt.ReadCapacityUnits, *pt.WriteCapacityUnits
	old := ix.Throughput
	if switched {
		ix.Throughput.Read, ix.Throughput.Write = r, w
		return nil
	}
	if old.Read == r && old.Write == w {
		return ValidationError("The provisioned throughput for the index %s will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for index %s: %d. Requested ReadCapacityUnits: %d. Current WriteCapacityUnits provisioned for index %s: %d. Requested WriteCapacityUnits: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
			ix.Name, ix.Name, old.Read, r, ix.Name, old.Write, w)
	}
	if r > old.Read || w > old.Write {
		ix.Throughput.LastIncrease = now
	}
	if r < old.Read || w < old.Write {
		ix.Throughput.LastDecrease = now
		ix.Throughput.DecreasesToday++
	}
	ix.Throughput.Read, ix.Throughput.Write = r, w
	return nil
}

// describeIndexThroughput adds a global index's OnDemandThroughput and
// WarmThroughput to its description. The warm throughput of an index being
// created is UPDATING, as the service reports it.
func describeIndexThroughput(d *indexDescription, t *store.Table, ix *store.Index) {
	if od := ix.OnDemand; od != nil && t.BillingMode == "PAY_PER_REQUEST" {
		r, w := od.Read, od.Write
		out := &indexOnDemandOut{}
		if r > 0 {
			out.MaxReadRequestUnits = &r
		}
		if w > 0 {
			out.MaxWriteRequestUnits = &w
		}
		if out.MaxReadRequestUnits != nil || out.MaxWriteRequestUnits != nil {
			d.OnDemandThroughput = out
		}
	}
	d.WarmThroughput = warmOut(indexWarm(t, ix))
	if ix.Status == store.StatusCreating {
		d.WarmThroughput.Status = store.StatusUpdating
	}
}

// dropIndexOnDemand forgets the indexes' OnDemandThroughput once the table
// is provisioned, as the service does on a switch.
func dropIndexOnDemand(t *store.Table) {
	if t.BillingMode == "PAY_PER_REQUEST" {
		return
	}
	for i := range t.Indexes {
		t.Indexes[i].OnDemand = nil
	}
}
