package e2e

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamopg/dynamopg/tests/harness"
)

// TestContinuousBackups: the point-in-time recovery setting is kept and
// described as the service describes it (continuous backups ENABLED on
// every table), by name or by table ARN, with the service's errors.
func TestContinuousBackups(t *testing.T) {
	t.Parallel()
	harness.EachShared(t, func(t *testing.T, s *harness.Server) {
		t.Parallel()
		c := s.Client()
		ctx := harness.Ctx(t)
		name := createHashTable(t, c, "pitr")

		pitrOf := func(d *types.ContinuousBackupsDescription) *types.PointInTimeRecoveryDescription {
			t.Helper()
			if d == nil || d.ContinuousBackupsStatus != types.ContinuousBackupsStatusEnabled || d.PointInTimeRecoveryDescription == nil {
				t.Fatalf("ContinuousBackupsDescription %+v: want ContinuousBackupsStatus ENABLED and a PointInTimeRecoveryDescription", d)
			}
			return d.PointInTimeRecoveryDescription
		}
		out, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(name)})
		must(t, err)
		if p := pitrOf(out.ContinuousBackupsDescription); p.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled ||
			p.EarliestRestorableDateTime != nil || p.RecoveryPeriodInDays != nil {
			t.Errorf("new table: %+v, want DISABLED and nothing else", p)
		}

		before := time.Now().Add(-time.Second)
		up, err := c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
		must(t, err)
		p := pitrOf(up.ContinuousBackupsDescription)
		if p.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled || aws.ToInt32(p.RecoveryPeriodInDays) != 35 ||
			p.EarliestRestorableDateTime == nil || p.EarliestRestorableDateTime.Before(before) ||
			p.LatestRestorableDateTime == nil || p.LatestRestorableDateTime.Before(*p.EarliestRestorableDateTime) {
			t.Errorf("after enabling: %+v", p)
		}
		desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
		must(t, err)
		_, err = c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: desc.Table.TableArn,
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(7)}})
		must(t, err)
		out, err = c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: desc.Table.TableArn})
		must(t, err)
		if p := pitrOf(out.ContinuousBackupsDescription); p.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled || aws.ToInt32(p.RecoveryPeriodInDays) != 7 {
			t.Errorf("after a 7-day period, by ARN: %+v", p)
		}

		up, err = c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(false)}})
		must(t, err)
		if p := pitrOf(up.ContinuousBackupsDescription); p.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
			t.Errorf("after disabling: %+v", p)
		}

		missing := harness.TableName("pitr_missing")
		_, err = c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(missing)})
		expectAPIError(t, err, "TableNotFoundException", "Table not found: "+missing)
		_, err = c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(missing),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)}})
		expectAPIError(t, err, "TableNotFoundException", "Table not found: "+missing)
		_, err = c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String(name),
			PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(36)}})
		expectAPIError(t, err, "ValidationException", "1 validation error detected: Value '36' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value less than or equal to 35")
	})
}
