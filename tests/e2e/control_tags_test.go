package e2e

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func tag(k, v string) types.Tag { return types.Tag{Key: aws.String(k), Value: aws.String(v)} }

func tagsString(tags []types.Tag) string {
	var parts []string
	for _, t := range tags {
		parts = append(parts, aws.ToString(t.Key)+"="+aws.ToString(t.Value))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func listTags(t *testing.T, c *dynamodb.Client, arn string) string {
	t.Helper()
	out, err := c.ListTagsOfResource(harness.Ctx(t), &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
	must(t, err)
	if out.Tags == nil {
		t.Errorf("ListTagsOfResource Tags is nil, want a list")
	}
	if out.NextToken != nil {
		t.Errorf("NextToken = %q", aws.ToString(out.NextToken))
	}
	return tagsString(out.Tags)
}

func tableArnOf(t *testing.T, c *dynamodb.Client, name string) string {
	t.Helper()
	out, err := c.DescribeTable(harness.Ctx(t), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	must(t, err)
	return aws.ToString(out.Table.TableArn)
}

func TestControlTagsLifecycle(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := harness.TableName("ctl_tags")
		_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(name),
			AttributeDefinitions: attrDefs("pk", "S"),
			KeySchema:            keySchema("pk"),
			BillingMode:          types.BillingModePayPerRequest,
			Tags:                 []types.Tag{tag("env", "prod"), tag("team", "")},
		})
		must(t, err)
		arn := tableArnOf(t, c, name)
		if got := listTags(t, c, arn); got != "env=prod,team=" {
			t.Errorf("tags from CreateTable = %s", got)
		}
		// Upsert, unicode and the allowed punctuation.
		_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{
			tag("env", "staging"), tag("ключ", "café 表"), tag("p", "a+b-c=d.e_f:g/h@i"),
		}})
		must(t, err)
		if got := listTags(t, c, arn); got != "env=staging,p=a+b-c=d.e_f:g/h@i,team=,ключ=café 表" {
			t.Errorf("tags after TagResource = %s", got)
		}
		// Removing an absent key is fine.
		_, err = c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"env", "absent", "p"}})
		must(t, err)
		if got := listTags(t, c, arn); got != "team=,ключ=café 表" {
			t.Errorf("tags after UntagResource = %s", got)
		}
		// Tags live beside the table, not in its description, and go with it.
		_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		must(t, err)
		if err := dynamodb.NewTableNotExistsWaiter(c).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, time.Minute); err != nil {
			t.Fatal(err)
		}
		_, err = c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(arn)})
		expectAPIError(t, err, "AccessDeniedException", listTagsDenied(arn))
		_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{tag("a", "b")}})
		expectAPIError(t, err, "ResourceNotFoundException", "Requested resource not found: ResourceArn: "+arn+" not found")
	})
}

// listTagsDenied is ListTagsOfResource's answer for the ARN of a table that
// does not exist (issue 18): AccessDeniedException, where TagResource and
// UntagResource answer ResourceNotFoundException.
func listTagsDenied(arn string) string {
	return "User: arn:aws:iam::" + strings.Split(arn, ":")[4] + ":root is not authorized to perform: dynamodb:ListTagsOfResource on resource: " + arn
}

func TestControlTagsLimit(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := createHashTable(t, c, "ctl_taglim")
		arn := tableArnOf(t, c, name)
		var tags []types.Tag
		for i := 0; i < 30; i++ {
			tags = append(tags, tag(fmt.Sprint(i), fmt.Sprint(i)))
		}
		_, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tags})
		must(t, err)
		tags = nil
		for i := 20; i < 50; i++ { // 20 overwrite, 20 new: 50 in all
			tags = append(tags, tag(fmt.Sprint(i), "x"))
		}
		_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tags})
		must(t, err)
		before := listTags(t, c, arn)
		if n := strings.Count(before, ",") + 1; n != 50 {
			t.Fatalf("%d tags, want 50", n)
		}
		_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{tag("20", "changed"), tag("one-too-many", "x")}})
		expectValidation(t, err, "Number of Tags exceed the current limit for the provided ResourceArn")
		if got := listTags(t, c, arn); got != before {
			t.Errorf("a refused TagResource changed the tags")
		}
		var keys []string
		for i := 0; i < 51; i++ {
			keys = append(keys, fmt.Sprint(i))
		}
		_, err = c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: keys})
		expectValidation(t, err, "Number of Tags exceed the current limit for the provided ResourceArn")
		if got := listTags(t, c, arn); got != before {
			t.Errorf("a refused UntagResource changed the tags")
		}

		// CreateTable with 51 tags creates nothing.
		tags = nil
		for i := 0; i < 51; i++ {
			tags = append(tags, tag(fmt.Sprint(i), "v"))
		}
		bad := harness.TableName("ctl_taglim_bad")
		_, err = c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String(bad), AttributeDefinitions: attrDefs("pk", "S"), KeySchema: keySchema("pk"),
			BillingMode: types.BillingModePayPerRequest, Tags: tags,
		})
		expectValidation(t, err, "Number of Tags exceed the current limit for the provided ResourceArn")
		_, err = c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(bad)})
		expectNotFound(t, err)
	})
}

func TestControlTagsValidation(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := createHashTable(t, c, "ctl_tagval")
		arn := tableArnOf(t, c, name)
		_, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{tag("keep", "1")}})
		must(t, err)

		long := func(ch string, n int) string { return strings.Repeat(ch, n) }
		for _, tc := range []struct {
			tags []types.Tag
			msg  string
		}{
			{[]types.Tag{tag("ok", "1"), tag(long("k", 129), "v")}, "The Tag Key provided is invalid, Key: " + long("k", 129)},
			{[]types.Tag{tag("ok", long("v", 257))}, "The Tag Value provided is invalid, Value: " + long("v", 257)},
			{[]types.Tag{tag("", "v")}, "The Tag Key provided is invalid, Key: "},
			{[]types.Tag{tag("bad#char", "v")}, "The Tag Key provided is invalid, Key: bad#char"},
			{[]types.Tag{tag("k", "a,b")}, "The Tag Value provided is invalid, Value: a,b"},
			{[]types.Tag{tag("ok", "1"), tag("aws:zzz", "v")}, "Tag Key cannot be prefixed with aws:, Key: aws:zzz"},
			{[]types.Tag{tag("AWS:foo", "v")}, "Tag Key cannot be prefixed with aws:, Key: AWS:foo"},
			{[]types.Tag{tag("dup", "1"), tag("dup", "2")}, "Duplicate Tag Keys provided as input: Duplicate Tag Key found dup"},
			{[]types.Tag{}, "Atleast one Tag needs to be provided as Input."},
		} {
			_, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: tc.tags})
			expectValidation(t, err, tc.msg)
		}
		// 128-char keys and 256-char values are fine; myaws: is not aws:.
		_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{tag(long("k", 128), long("v", 256)), tag("myaws:foo", "x")}})
		must(t, err)
		_, err = c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{long("k", 128), "myaws:foo"}})
		must(t, err)
		if got := listTags(t, c, arn); got != "keep=1" {
			t.Errorf("refused requests changed the tags: %s", got)
		}

		_, err = c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{}})
		expectValidation(t, err, "Atleast one Tag Key needs to be provided as Input.")
		_, err = c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"aws:foo"}})
		expectValidation(t, err, "Tag Key cannot be prefixed with aws:, Key: aws:foo")
		_, err = c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{""}})
		expectValidation(t, err, "The Tag Key provided is invalid, Key: ")

		// ARNs.
		region := strings.Split(arn, ":")[3]
		acct := strings.Split(arn, ":")[4]
		missing := "arn:aws:dynamodb:" + region + ":" + acct + ":table/" + harness.TableName("ctl_nosuch")
		for _, tc := range []struct{ arn, code, msg string }{
			{"abcd", "ValidationException", "One or more parameter values were invalid: ARNs must start with 'arn:': abcd"},
			{"arn:aws:s3:::bucket", "ValidationException", "One or more parameter values were invalid: Provided Arn is not a DynamoDB resource arn: arn:aws:s3:::bucket"},
			{arn + "/index/gsi", "ValidationException", "One or more parameter values were invalid: Invalid resource arn provided, only table or stream is accepted. Provided resource arn: " + arn + "/index/gsi"},
			{"arn:aws:dynamodb:" + region + ":" + acct + ":table/ab", "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input arn:aws:dynamodb:" + region + ":" + acct + ":table/ab"},
			{strings.Replace(arn, region, "eu-north-9", 1), "ValidationException", "Invalid TableArn: Invalid ResourceArn provided as input " + strings.Replace(arn, region, "eu-north-9", 1)},
			{missing, "ResourceNotFoundException", "Requested resource not found: ResourceArn: " + missing + " not found"},
		} {
			_, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: aws.String(tc.arn), Tags: []types.Tag{tag("a", "b")}})
			expectAPIError(t, err, tc.code, tc.msg)
			_, err = c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: aws.String(tc.arn), TagKeys: []string{"a"}})
			expectAPIError(t, err, tc.code, tc.msg)
			_, err = c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(tc.arn)})
			if tc.arn == missing {
				expectAPIError(t, err, "AccessDeniedException", listTagsDenied(missing))
				continue
			}
			expectAPIError(t, err, tc.code, tc.msg)
		}
		// Members the SDK requires, sent raw.
		expectRawValidation(t, s, "TagResource", `{}`, "Invalid TableArn")
		expectRawValidation(t, s, "ListTagsOfResource", `{}`, "Invalid TableArn")
		expectRawValidation(t, s, "TagResource", `{"ResourceArn":"`+arn+`"}`, "1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null")
		expectRawValidation(t, s, "UntagResource", `{"ResourceArn":"`+arn+`"}`, "1 validation error detected: Value null at 'tagKeys' failed to satisfy constraint: Member must not be null")
		expectRawValidation(t, s, "TagResource", `{"ResourceArn":"`+arn+`","Tags":[{"Key":"k"}]}`, "The Tag Value provided is invalid, Value: null")
		expectRawValidation(t, s, "TagResource", `{"ResourceArn":"`+arn+`","Tags":[{}]}`, "The Tag Key provided is invalid, Key: null")
		if got := listTags(t, c, arn); got != "keep=1" {
			t.Errorf("refused requests changed the tags: %s", got)
		}
	})
}

// TagResource and UntagResource answer 200 with an empty body, as the
// service does (issue 18, HTTP; alternator's test_tags_return_empty_body
// passes on DynamoDB), and the SDK takes that answer.
func TestControlTagsEmptyBody(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		name := createHashTable(t, c, "ctl_tagbody")
		arn := tableArnOf(t, c, name)
		for _, tc := range []struct{ op, body string }{
			{"TagResource", `{"ResourceArn":"` + arn + `","Tags":[{"Key":"k","Value":"v"}]}`},
			{"UntagResource", `{"ResourceArn":"` + arn + `","TagKeys":["k"]}`},
		} {
			resp, data := rawCall(t, s, tc.op, tc.body)
			if resp.StatusCode != 200 || len(data) != 0 {
				t.Errorf("%s: %d %q, want 200 and an empty body", tc.op, resp.StatusCode, data)
			}
			if got := resp.Header.Get("Content-Length"); got != "0" {
				t.Errorf("%s: Content-Length %q, want 0", tc.op, got)
			}
			checkCRCAndType(t, tc.op, resp, data)
		}
		_, err := c.TagResource(harness.Ctx(t), &dynamodb.TagResourceInput{ResourceArn: aws.String(arn), Tags: []types.Tag{tag("a", "b")}})
		must(t, err)
		_, err = c.UntagResource(harness.Ctx(t), &dynamodb.UntagResourceInput{ResourceArn: aws.String(arn), TagKeys: []string{"a"}})
		must(t, err)
		if got := listTags(t, c, arn); got != "" {
			t.Errorf("tags after tag and untag through the SDK: %q", got)
		}
	})
}
