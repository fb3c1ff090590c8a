package api

import (
	"github.com/dynamopg/dynamopg/server/store"
)

// WarmThroughput: the read and write units per second a table or a global
// secondary index can serve at once. The service always reports it, never
// below what the capacity mode gives (on demand 12000 reads and 4000 writes,
// provisioned the provisioned units) and never below what it once was: it
// follows increases of the provisioned throughput and a switch to on
// demand, not decreases. A request may raise it, never lower it. dynamopg
// keeps that high-water mark (the table's in Options[optWarm], an index's
// in store.Index.Warm) and applies a raise at once, so it reports Status
// ACTIVE.

const (
	warmOnDemandRead  = 12000
	warmOnDemandWrite = 4000
	// urlOnDemandInitial ends the service's refusal of a WarmThroughput
	// below the on-demand initial throughput.
	urlOnDemandInitial = "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html#on-demand-capacity-mode-initial"
)

// optWarm is the table's WarmThroughput high-water mark (store.Capacity).
const optWarm = "warmThroughput"

type warmThroughput struct {
	ReadUnitsPerSecond  *int64 `json:"ReadUnitsPerSecond"`
	WriteUnitsPerSecond *int64 `json:"WriteUnitsPerSecond"`
}

// empty reports a WarmThroughput that is absent or names no member; the
// service ignores an empty one on CreateTable and on UpdateTable.
func (w *warmThroughput) empty() bool {
	return w == nil || (w.ReadUnitsPerSecond == nil && w.WriteUnitsPerSecond == nil)
}

type warmThroughputOut struct {
	ReadUnitsPerSecond  int64  `json:"ReadUnitsPerSecond"`
	WriteUnitsPerSecond int64  `json:"WriteUnitsPerSecond"`
	Status              string `json:"Status"`
}

// warmBase is the warm throughput the capacity mode gives.
func warmBase(billing string, tp store.Throughput) store.Capacity {
	if billing == "PAY_PER_REQUEST" {
		return store.Capacity{Read: warmOnDemandRead, Write: warmOnDemandWrite}
	}
	return store.Capacity{Read: tp.Read, Write: tp.Write}
}

func maxCapacity(a, b store.Capacity) store.Capacity {
	return store.Capacity{Read: max(a.Read, b.Read), Write: max(a.Write, b.Write)}
}

// tableWarm is the table's warm throughput now.
func tableWarm(t *store.Table) store.Capacity {
	var w store.Capacity
	getOpt(t, optWarm, &w)
	return maxCapacity(w, warmBase(t.BillingMode, t.Throughput))
}

// indexWarm is a global index's warm throughput now.
func indexWarm(t *store.Table, ix *store.Index) store.Capacity {
	return maxCapacity(ix.Warm, warmBase(t.BillingMode, ix.Throughput))
}

// recordWarm stores the warm throughput of the table and of its global
// indexes as their high-water marks. UpdateTable runs it on the table as
// it read it and again after the change, so a decrease of the provisioned
// throughput or a switch of capacity mode never lowers them.
func recordWarm(t *store.Table) {
	setOpt(t, optWarm, tableWarm(t))
	for i := range t.Indexes {
		if ix := &t.Indexes[i]; ix.Global {
			ix.Warm = indexWarm(t, ix)
		}
	}
}

// checkCreateWarm applies the floor of a WarmThroughput given at creation
// (of the table, or subject "index NAME"): the on-demand initial throughput,
// or the provisioned throughput.
func checkCreateWarm(w *warmThroughput, billing string, tp store.Throughput, subject string) error {
	if w.empty() {
		return nil
	}
	base := warmBase(billing, tp)
	low := func(v *int64, floor int64) bool { return v != nil && *v < floor }
	for _, m := range []struct {
		name, capacity string
		v              *int64
		floor          int64
	}{
		{"ReadUnitsPerSecond", "ReadCapacityUnits", w.ReadUnitsPerSecond, base.Read},
		{"WriteUnitsPerSecond", "WriteCapacityUnits", w.WriteUnitsPerSecond, base.Write},
	} {
		if !low(m.v, m.floor) {
			continue
		}
		if billing == "PAY_PER_REQUEST" {
			return invalid("Requested %s for WarmThroughput for %s is lower than initial throughput for OnDemand. See: %s", m.name, subject, urlOnDemandInitial)
		}
		return invalid("Requested %s for WarmThroughput for %s is lower than %s of ProvisionedThroughput", m.name, subject, m.capacity)
	}
	return nil
}

// raiseWarm validates a WarmThroughput of UpdateTable against the current
// one (of the table, or subject "index NAME") and returns the new one:
// members left out keep their value, none may decrease.
func raiseWarm(cur store.Capacity, w *warmThroughput, subject string) (store.Capacity, error) {
	next := cur
	if v := w.ReadUnitsPerSecond; v != nil {
		if *v < cur.Read {
			return cur, invalid("Requested ReadUnitsPerSecond for WarmThroughput for %s is lower than current WarmThroughput, decreasing WarmThroughput is not supported", subject)
		}
		next.Read = *v
	}
	if v := w.WriteUnitsPerSecond; v != nil {
		if *v < cur.Write {
			return cur, invalid("Requested WriteUnitsPerSecond for WarmThroughput for %s is lower than current WarmThroughput, decreasing WarmThroughput is not supported", subject)
		}
		next.Write = *v
	}
	return next, nil
}

// applyCreateWarm validates a CreateTable's WarmThroughput and records the
// table's (after its billing mode and throughput are set).
func applyCreateWarm(t *store.Table, w *warmThroughput) error {
	if err := checkCreateWarm(w, t.BillingMode, t.Throughput, "table"); err != nil {
		return err
	}
	if !w.empty() {
		next, _ := raiseWarm(tableWarm(t), w, "table") // above the floor checked above
		setOpt(t, optWarm, next)
	}
	return nil
}

// applyUpdateWarm raises the table's WarmThroughput under TableUpdate's lock.
func applyUpdateWarm(t *store.Table, w *warmThroughput) error {
	if w.empty() {
		return nil
	}
	next, err := raiseWarm(tableWarm(t), w, "table")
	if err != nil {
		return err
	}
	setOpt(t, optWarm, next)
	return nil
}

func warmOut(c store.Capacity) *warmThroughputOut {
	return &warmThroughputOut{ReadUnitsPerSecond: c.Read, WriteUnitsPerSecond: c.Write, Status: store.StatusActive}
}
