package attr

import "testing"

// TestNumberSize pins the byte cost of numbers measured against the service.
func TestNumberSize(t *testing.T) {
	for _, tc := range []struct {
		lit  string
		want int
	}{
		{"0", 1}, {"1", 2}, {"12", 2}, {"123", 3}, {"1234", 3},
		{"12345678901234567890123456789012345678", 20},
		{"0042", 2}, {"100", 2}, {"1010", 3}, {"0.0000001", 2}, {"1E125", 2}, {"1E-100", 2},
		{"1.5", 3}, {"15", 2}, {"1.2", 3}, {"1.200", 3}, {"1.234", 4}, {"3.14159", 5},
		{"123456", 4}, {"100.5", 4}, {"0.15", 2}, {"-42", 3}, {"-0", 1},
	} {
		canon, err := ParseNumber(tc.lit)
		if err != nil {
			t.Fatalf("%s: %v", tc.lit, err)
		}
		if got := numberSize(canon); got != tc.want {
			t.Errorf("size of %s = %d, want %d", tc.lit, got, tc.want)
		}
	}
}
