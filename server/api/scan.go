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
	checkName(&c, in.TableName, "tableName", true)
	checkName(&c, in.IndexName, "indexName", false)
	checkEnum(&c, in.Select, "select", enumSelect)
	checkLimit(&c, in.Limit)
	checkEnum(&c, in.ReturnConsumedCapacity, "returnConsumedCapacity", enumReturnCapacity)
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
	if err := c.err(); err != nil {
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
	if err := checkSelect(in.Select, in.ProjectionExpression != nil, in.IndexName, false); err != nil {
		return nil, err
	}
	ectx, err := exprContext(in.exprParams, in.FilterExpression != nil || in.ProjectionExpression != nil)
	if err != nil {
		return nil, err
	}
	filter, proj, err := parseReadExprs(in.FilterExpression, in.ProjectionExpression, ectx)
	if err != nil {
		return nil, err
	}
	if err := ectx.CheckUnused(); err != nil {
		return nil, exprErr(err)
	}
	t, err := a.tableFor(ctx, *in.TableName)
	if err != nil {
		return nil, err
	}
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	ix, err := resolveIndex(t, in.IndexName, in.Select, consistent)
	if err != nil {
		return nil, err
	}
	if err := checkStartKey(t, ix, in.ExclusiveStartKey); err != nil {
		return nil, err
	}
	plan := &readPlan{
		table: t, index: ix, filter: filter, projection: proj,
		count: is(in.Select, "COUNT"), consistent: consistent,
		capacity: in.ReturnConsumedCapacity, startKey: in.ExclusiveStartKey,
		fetchBase: needsBase(t, ix, in.Select, proj),
	}
	if in.Limit != nil {
		plan.limit = int(*in.Limit)
	}
	plan.fetch = func(ctx context.Context, after attr.Item, n int) ([]attr.Item, error) {
		return a.store.ItemScan(ctx, t, store.ScanInput{Index: ix, Segment: segment, TotalSegments: total, After: after, Limit: n})
	}
	return a.run(ctx, plan)
}
