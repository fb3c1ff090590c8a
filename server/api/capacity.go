package api

import (
	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

// Capacity units as the service charges them.
func readUnits(size int, consistent bool) float64 {
	blocks := (size + 4095) / 4096
	if blocks < 1 {
		blocks = 1
	}
	if consistent {
		return float64(blocks)
	}
	return float64(blocks) / 2
}

func writeUnits(oldSize, newSize int) float64 {
	size := max(oldSize, newSize)
	blocks := (size + 1023) / 1024
	return float64(max(blocks, 1))
}

// consumed renders ConsumedCapacity for the TOTAL and INDEXES modes; nil for
// NONE or absent. indexUnits maps each written index to its units.
func consumed(mode *string, t *store.Table, units float64, indexUnits map[string]float64) map[string]any {
	if mode == nil || (*mode != "TOTAL" && *mode != "INDEXES") {
		return nil
	}
	total := units
	for _, u := range indexUnits {
		total += u
	}
	out := map[string]any{"TableName": t.Name, "CapacityUnits": total}
	if *mode == "INDEXES" {
		out["Table"] = map[string]any{"CapacityUnits": units}
		gsi, lsi := map[string]any{}, map[string]any{}
		for name, u := range indexUnits {
			if ix := t.Index(name); ix != nil && ix.Global {
				gsi[name] = map[string]any{"CapacityUnits": u}
			} else {
				lsi[name] = map[string]any{"CapacityUnits": u}
			}
		}
		if len(gsi) > 0 {
			out["GlobalSecondaryIndexes"] = gsi
		}
		if len(lsi) > 0 {
			out["LocalSecondaryIndexes"] = lsi
		}
	}
	return out
}

// indexWriteUnits charges each index the item was or is in for the
// projected sizes written there.
func indexWriteUnits(t *store.Table, old, cur attr.Item) map[string]float64 {
	var m map[string]float64
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		oldSize, newSize := -1, -1
		if old != nil && ix.Indexable(old) {
			oldSize = ix.Project(t, old).Size()
		}
		if cur != nil && ix.Indexable(cur) {
			newSize = ix.Project(t, cur).Size()
		}
		if oldSize < 0 && newSize < 0 {
			continue
		}
		if m == nil {
			m = map[string]float64{}
		}
		m[ix.Name] = writeUnits(max(oldSize, 0), max(newSize, 0))
	}
	return m
}
