// Package bench holds the benchmarks `make bench` runs against the real
// binary through aws-sdk-go-v2. Figures are reported as benchmark metrics
// (b.ReportMetric), never asserted: speed goals live here, not in tests.
package bench

import (
	"testing"

	"github.com/dynamopg/dynamopg/tests/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }
