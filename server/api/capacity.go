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

// wantsCapacity reports whether ReturnConsumedCapacity mode asks for the
// capacity a call consumed (TOTAL or INDEXES).
func wantsCapacity(mode *string) bool {
	return mode != nil && (*mode == "TOTAL" || *mode == "INDEXES")
}

// consumed renders ConsumedCapacity for the TOTAL and INDEXES modes; nil for
// NONE or absent. indexUnits maps each written index to its units.
func consumed(mode *string, t *store.Table, units float64, indexUnits map[string]float64) map[string]any {
	if !wantsCapacity(mode) {
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

// indexWriteUnits charges each index what the write changed in it, as the
// service does (measured by a conformance suite against it): nothing when
// the index's copy of the item is unchanged (an identical overwrite, or a
// change to attributes the index does not project); one write to add,
// rewrite or remove the item's entry; two (a delete and a put) when the
// index key changes.
func indexWriteUnits(t *store.Table, old, cur attr.Item) map[string]float64 {
	var m map[string]float64
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		var before, after attr.Item
		if old != nil && ix.Indexable(old) {
			before = ix.Project(t, old)
		}
		if cur != nil && ix.Indexable(cur) {
			after = ix.Project(t, cur)
		}
		var u float64
		switch {
		case before == nil && after == nil:
			continue
		case before == nil:
			u = writeUnits(0, after.Size())
		case after == nil:
			u = writeUnits(before.Size(), 0)
		case !sameIndexKey(ix, before, after):
			u = writeUnits(before.Size(), 0) + writeUnits(0, after.Size())
		case sameItem(before, after):
			continue
		default:
			u = writeUnits(before.Size(), after.Size())
		}
		if m == nil {
			m = map[string]float64{}
		}
		m[ix.Name] = u
	}
	return m
}

// sameIndexKey reports whether two entries of an index have the same index
// key (the index's own key attributes, all of a multi-attribute key).
func sameIndexKey(ix *store.Index, a, b attr.Item) bool {
	for _, k := range ix.KeyAttrs() {
		if !attr.Equal(a[k.Name], b[k.Name]) {
			return false
		}
	}
	return true
}

// sameItem reports whether two items hold the same attributes and values,
// compared as maps are (attr.Equal).
func sameItem(a, b attr.Item) bool {
	return attr.Equal(attr.Value{T: attr.TypeM, M: a}, attr.Value{T: attr.TypeM, M: b})
}
