package api

import (
	"context"

	"github.com/dynamopg/dynamopg/server/attr"
	"github.com/dynamopg/dynamopg/server/store"
)

func (a *API) scan(ctx context.Context, r *Request) (any, error) {
	var in queryInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	var c constraintErrors
	in.checkMembers(&c, false)
	if in.Segment != nil {
		if *in.Segment < 0 {
			c.add(strp(itoa(*in.Segment)), "segment", "Member must have value greater than or equal to 0")
		}
		if *in.Segment > 999999 {
			c.add(strp(itoa(*in.Segment)), "segment", "Member must have value less than or equal to 999999")
		}
	}
	if in.TotalSegments != nil {
		if *in.TotalSegments < 1 {
			c.add(strp(itoa(*in.TotalSegments)), "totalSegments", "Member must have value greater than or equal to 1")
		}
		if *in.TotalSegments > 1000000 {
			c.add(strp(itoa(*in.TotalSegments)), "totalSegments", "Member must have value less than or equal to 1000000")
		}
	}
	checkConditionMembers(&c, in.ScanFilter, "scanFilter", true)
	if err := c.err(); err != nil {
		return nil, err
	}
	if err := in.checkLegacy(false); err != nil {
		return nil, err
	}
	segment, total := 0, 1
	switch {
	case in.Segment != nil && in.TotalSegments == nil:
		return nil, ValidationError("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	case in.Segment == nil && in.TotalSegments != nil:
		return nil, ValidationError("The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
	case in.Segment != nil:
		if *in.Segment >= *in.TotalSegments {
			return nil, ValidationError("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d", *in.Segment, *in.TotalSegments)
		}
		segment, total = int(*in.Segment), int(*in.TotalSegments)
	}
	if err := checkSelect(in.Select, in.ProjectionExpression != nil || in.AttributesToGet != nil, in.IndexName, false, in.projectionParam()); err != nil {
		return nil, err
	}
	values := valueUse{present: in.FilterExpression != nil, null: nullFilter}
	filter, proj, err := in.parseExprs(in.FilterExpression != nil || in.ProjectionExpression != nil, values, nil)
	if err != nil {
		return nil, err
	}
	plan, err := a.plan(ctx, &in, filter, proj, nil)
	if err != nil {
		return nil, err
	}
	t, ix := plan.table, plan.index
	if err := checkStartSegment(t, ix, plan.startKey, segment, total); err != nil {
		return nil, err
	}
	plan.fetch = func(ctx context.Context, after attr.Item, n int) ([][]byte, error) {
		return a.store.ItemScanJSON(ctx, t, store.ScanInput{Index: ix, Segment: segment, TotalSegments: total, After: after, Limit: n})
	}
	return a.run(ctx, plan)
}

// checkStartSegment refuses a parallel Scan's ExclusiveStartKey that lies
// outside the requested segment: a key another segment returned cannot
// continue this one. The text is the service's (quoted in alternator's
// PR #9270). A segment is a range of store.KeyHash of the partition key of
// what is scanned: the table's, or the index's.
func checkStartSegment(t *store.Table, ix *store.Index, start attr.Item, segment, total int) error {
	if total <= 1 || start == nil {
		return nil
	}
	hash := t.Hash.Name
	if ix != nil {
		hash = ix.Hash.Name
	}
	h := uint64(store.KeyHash(start[hash]))
	if lo, hi := store.SegmentBounds(segment, total); h < lo || h >= hi {
		return ValidationError("The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: %d Segment: %d", total, segment)
	}
	return nil
}
