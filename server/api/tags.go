package api

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/dynamopg/dynamopg/server/store"
)

// The service's tag limits and texts.
const (
	maxTags        = 50
	maxTagKeyLen   = 128
	maxTagValueLen = 256
	msgTooManyTags = "Number of Tags exceed the current limit for the provided ResourceArn"
)

// tagPattern is the characters a tag key or value may hold: letters,
// separators and digits of any script, and _ . : / = + - @.
var tagPattern = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)

type tagInput struct {
	Key   *string `json:"Key"`
	Value *string `json:"Value"`
}

type tagOut struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
}

type tagResourceInput struct {
	ResourceArn *string    `json:"ResourceArn"`
	Tags        []tagInput `json:"Tags"`
}

type untagResourceInput struct {
	ResourceArn *string  `json:"ResourceArn"`
	TagKeys     []string `json:"TagKeys"`
}

type listTagsInput struct {
	ResourceArn *string `json:"ResourceArn"`
	NextToken   *string `json:"NextToken"`
}

func invalidTagKey(k *string) *Error {
	return ValidationError("The Tag Key provided is invalid, Key: %s", deref(k))
}

// checkTagKey applies the service's rules to one tag key.
func checkTagKey(k *string) error {
	if k == nil {
		return invalidTagKey(k)
	}
	n := utf8.RuneCountInString(*k)
	if n < 1 || n > maxTagKeyLen || !tagPattern.MatchString(*k) {
		return invalidTagKey(k)
	}
	if strings.HasPrefix(strings.ToLower(*k), "aws:") {
		return ValidationError("Tag Key cannot be prefixed with aws:, Key: %s", *k)
	}
	return nil
}

// checkTags validates a list of tags all-or-nothing and returns them.
func checkTags(in []tagInput) ([]tagOut, error) {
	seen := map[string]bool{}
	out := make([]tagOut, 0, len(in))
	for _, tg := range in {
		if err := checkTagKey(tg.Key); err != nil {
			return nil, err
		}
		v := tg.Value
		if v == nil || utf8.RuneCountInString(*v) > maxTagValueLen || !tagPattern.MatchString(*v) {
			return nil, ValidationError("The Tag Value provided is invalid, Value: %s", deref(v))
		}
		if seen[*tg.Key] {
			return nil, ValidationError("Duplicate Tag Keys provided as input: Duplicate Tag Key found %s", *tg.Key)
		}
		seen[*tg.Key] = true
		out = append(out, tagOut{Key: *tg.Key, Value: *v})
	}
	return out, nil
}

// tableFromArn checks a tag operation's ResourceArn and returns the table
// name it designates, with the service's refusals in its order.
func tableFromArn(arn *string, region string) (string, error) {
	if arn == nil {
		return "", ValidationError("Invalid TableArn")
	}
	a := *arn
	if !strings.HasPrefix(a, "arn:") {
		return "", invalid("ARNs must start with 'arn:': %s", a)
	}
	parts := strings.SplitN(a, ":", 6)
	if len(parts) < 6 || parts[2] != "dynamodb" {
		return "", invalid("Provided Arn is not a DynamoDB resource arn: %s", a)
	}
	badArn := ValidationError("Invalid TableArn: Invalid ResourceArn provided as input %s", a)
	partition, arnRegion, account, resource := parts[1], parts[3], parts[4], parts[5]
	if partition != "aws" || arnRegion != region || !isDigits(account) || len(account) != 12 {
		return "", badArn
	}
	segs := strings.Split(resource, "/")
	if segs[0] != "table" || len(segs) < 2 {
		return "", invalid("Provided Arn is not a DynamoDB resource arn: %s", a)
	}
	if len(segs) > 2 {
		switch segs[2] {
		case "index":
			return "", invalid("Invalid resource arn provided, only table or stream is accepted. Provided resource arn: %s", a)
		case "stream":
			// Streams are not tagged here: no stream by that ARN exists.
			return "", tagNotFound(a)
		default:
			return "", invalid("Provided Arn is not a DynamoDB resource arn: %s", a)
		}
	}
	name := segs[1]
	var c constraintErrors
	checkName(&c, &name, "tableName", true)
	if len(c.list) > 0 {
		return "", badArn
	}
	return name, nil
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func tagNotFound(arn string) *Error {
	return newErr(nsDynamo, "ResourceNotFoundException", 400, "Requested resource not found: ResourceArn: "+arn+" not found")
}

// listTagsDenied is ListTagsOfResource's answer for the ARN of a table that
// does not exist: the service authorizes the call against the resource
// before it looks the table up, and a resource that does not exist grants
// nothing, so it answers AccessDeniedException where TagResource and
// UntagResource answer ResourceNotFoundException. The identity is the
// ARN's account root: dynamopg has no IAM users.
func listTagsDenied(arn string) *Error {
	account := strings.SplitN(arn, ":", 6)[4]
	return newErr(nsCoral, "AccessDeniedException", 400, "User: arn:aws:iam::"+account+":root is not authorized to perform: dynamodb:ListTagsOfResource on resource: "+arn)
}

// updateTags changes the table's tags under the catalog lock.
func (a *API) updateTags(ctx context.Context, name, arn string, fn func(tags []tagOut) ([]tagOut, error)) error {
	_, err := a.store.TableUpdate(ctx, name, func(t *store.Table) error {
		if t.Status == store.StatusCreating || t.Status == store.StatusDeleting {
			return tagNotFound(arn)
		}
		var tags []tagOut
		getOpt(t, optTags, &tags)
		tags, err := fn(tags)
		if err != nil {
			return err
		}
		if len(tags) == 0 {
			setOpt(t, optTags, nil)
		} else {
			setOpt(t, optTags, tags)
		}
		return nil
	})
	if errors.Is(err, store.ErrTableNotFound) {
		return tagNotFound(arn)
	}
	var apiErr *Error
	if errors.As(err, &apiErr) {
		return apiErr
	}
	return storeErr(err, "table update")
}

func (a *API) tagResource(ctx context.Context, r *Request) (any, error) {
	var in tagResourceInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	if in.ResourceArn == nil {
		return nil, ValidationError("Invalid TableArn")
	}
	if in.Tags == nil {
		var c constraintErrors
		c.notNull(false, "tags")
		return nil, c.err()
	}
	name, err := tableFromArn(in.ResourceArn, r.Region)
	if err != nil {
		return nil, err
	}
	arn := *in.ResourceArn
	if len(in.Tags) == 0 {
		return nil, ValidationError("Atleast one Tag needs to be provided as Input.")
	}
	add, err := checkTags(in.Tags)
	if err != nil {
		return nil, err
	}
	if len(add) > maxTags {
		return nil, ValidationError(msgTooManyTags)
	}
	err = a.updateTags(ctx, name, arn, func(tags []tagOut) ([]tagOut, error) {
		for _, n := range add {
			found := false
			for i := range tags {
				if tags[i].Key == n.Key {
					tags[i].Value = n.Value
					found = true
				}
			}
			if !found {
				tags = append(tags, n)
			}
		}
		if len(tags) > maxTags {
			return nil, ValidationError(msgTooManyTags)
		}
		return tags, nil
	})
	if err != nil {
		return nil, err
	}
	return NoBody{}, nil
}

func (a *API) untagResource(ctx context.Context, r *Request) (any, error) {
	var in untagResourceInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	if in.ResourceArn == nil {
		return nil, ValidationError("Invalid TableArn")
	}
	if in.TagKeys == nil {
		var c constraintErrors
		c.notNull(false, "tagKeys")
		return nil, c.err()
	}
	name, err := tableFromArn(in.ResourceArn, r.Region)
	if err != nil {
		return nil, err
	}
	arn := *in.ResourceArn
	if len(in.TagKeys) == 0 {
		return nil, ValidationError("Atleast one Tag Key needs to be provided as Input.")
	}
	drop := map[string]bool{}
	for i := range in.TagKeys {
		if err := checkTagKey(&in.TagKeys[i]); err != nil {
			return nil, err
		}
		drop[in.TagKeys[i]] = true
	}
	if len(in.TagKeys) > maxTags {
		return nil, ValidationError(msgTooManyTags)
	}
	err = a.updateTags(ctx, name, arn, func(tags []tagOut) ([]tagOut, error) {
		kept := tags[:0:0]
		for _, tg := range tags {
			if !drop[tg.Key] {
				kept = append(kept, tg)
			}
		}
		return kept, nil
	})
	if err != nil {
		return nil, err
	}
	return NoBody{}, nil
}

func (a *API) listTagsOfResource(ctx context.Context, r *Request) (any, error) {
	var in listTagsInput
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	name, err := tableFromArn(in.ResourceArn, r.Region)
	if err != nil {
		return nil, err
	}
	t, err := a.store.TableGet(ctx, name)
	if errors.Is(err, store.ErrTableNotFound) {
		return nil, listTagsDenied(*in.ResourceArn)
	}
	if err != nil {
		return nil, storeErr(err, "table get")
	}
	if t.Status == store.StatusCreating || t.Status == store.StatusDeleting {
		return nil, tagNotFound(*in.ResourceArn)
	}
	tags := []tagOut{}
	getOpt(t, optTags, &tags)
	if tags == nil {
		tags = []tagOut{}
	}
	// At most 50 tags: one page, never a NextToken.
	return map[string]any{"Tags": tags}, nil
}
