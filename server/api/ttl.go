package api

import (
	"context"
	"errors"

	"github.com/dynamopg/dynamopg/server/store"
)

// TimeToLiveStatus values. The specification takes effect at once here, so
// the transitional ENABLING and DISABLING are never reported.
const (
	ttlEnabled  = "ENABLED"
	ttlDisabled = "DISABLED"
)

// ttlOpt is the stored TTL specification (only the sweeper, not built yet,
// acts on it).
type ttlOpt struct {
	AttributeName string `json:"attributeName"`
	Enabled       bool   `json:"enabled"`
}

type ttlSpecification struct {
	AttributeName *string `json:"AttributeName"`
	Enabled       *bool   `json:"Enabled"`
}

type updateTTLInput struct {
	TableName               *string           `json:"TableName"`
	TimeToLiveSpecification *ttlSpecification `json:"TimeToLiveSpecification"`
}

// ttlTableName applies the TTL operations' TableName checks, which word the
// missing and length cases differently from the other operations.
func ttlTableName(name *string) error {
	if name == nil {
		return ValidationError("The parameter 'TableName' is required but was not present in the request")
	}
	if n := len(*name); n < 3 || n > 255 {
		return ValidationError("TableName must be at least 3 characters long and at most 255 characters long")
	}
	var c constraintErrors
	checkName(&c, name, "tableName", true)
	if err := c.err(); err != nil {
		return err
	}
	return nil
}

func tableNotFound(name string) *Error {
	return newErr(nsDynamo, "ResourceNotFoundException", 400, "Requested resource not found: Table: "+name+" not found")
}

func (a *API) updateTimeToLive(ctx context.Context, r *Request) (any, error) {
	var in updateTTLInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	if err := ttlTableName(in.TableName); err != nil {
		return nil, err
	}
	var c constraintErrors
	spec := in.TimeToLiveSpecification
	c.notNull(spec != nil, "timeToLiveSpecification")
	if spec != nil {
		c.notNull(spec.Enabled != nil, "timeToLiveSpecification.enabled")
		c.notNull(spec.AttributeName != nil, "timeToLiveSpecification.attributeName")
		if n := spec.AttributeName; n != nil && len(*n) < 1 {
			c.add(n, "timeToLiveSpecification.attributeName", "Member must have length greater than or equal to 1")
		}
		if n := spec.AttributeName; n != nil && len(*n) > 255 {
			c.add(n, "timeToLiveSpecification.attributeName", "Member must have length less than or equal to 255")
		}
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	name, enable, attrName := *in.TableName, *spec.Enabled, *spec.AttributeName
	_, err := a.store.TableUpdate(ctx, name, func(t *store.Table) error {
		if t.Status == store.StatusCreating || t.Status == store.StatusDeleting {
			return tableNotFound(name)
		}
		var cur ttlOpt
		getOpt(t, optTTL, &cur)
		switch {
		case enable && cur.Enabled:
			return ValidationError("TimeToLive is already enabled")
		case !enable && !cur.Enabled:
			return ValidationError("TimeToLive is already disabled")
		case !enable && cur.AttributeName != attrName:
			return ValidationError("TimeToLive is active on a different AttributeName: current AttributeName is %s", cur.AttributeName)
		}
		if enable {
			setOpt(t, optTTL, ttlOpt{AttributeName: attrName, Enabled: true})
		} else {
			setOpt(t, optTTL, nil)
		}
		return nil
	})
	if errors.Is(err, store.ErrTableNotFound) {
		return nil, tableNotFound(name)
	}
	var apiErr *Error
	if errors.As(err, &apiErr) {
		return nil, apiErr
	}
	if err != nil {
		return nil, storeErr(err, "table update")
	}
	out := map[string]any{"Enabled": enable}
	if enable {
		out["AttributeName"] = attrName
	}
	return map[string]any{"TimeToLiveSpecification": out}, nil
}

func (a *API) describeTimeToLive(ctx context.Context, r *Request) (any, error) {
	var in tableNameInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	if err := ttlTableName(in.TableName); err != nil {
		return nil, err
	}
	name := *in.TableName
	t, err := a.store.TableGet(ctx, name)
	if errors.Is(err, store.ErrTableNotFound) {
		return nil, tableNotFound(name)
	}
	if err != nil {
		return nil, storeErr(err, "table get")
	}
	if t.Status == store.StatusCreating || t.Status == store.StatusDeleting {
		return nil, ValidationError("Cannot describe time to live while table is in %s state: Current table state is %s", t.Status, t.Status)
	}
	desc := map[string]any{"TimeToLiveStatus": ttlDisabled}
	var cur ttlOpt
	if getOpt(t, optTTL, &cur) && cur.Enabled {
		desc = map[string]any{"TimeToLiveStatus": ttlEnabled, "AttributeName": cur.AttributeName}
	}
	return map[string]any{"TimeToLiveDescription": desc}, nil
}
