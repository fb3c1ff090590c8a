package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
)

// require-style assertions: each stops the test at the first failure.

func requireNoError(t testing.TB, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: unexpected error: %v", what, err)
	}
}

func requireErrorIs(t testing.TB, err, target error, what string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: error = %v, want %v", what, err, target)
	}
}

func requireEqual[T comparable](t testing.TB, got, want T, what string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func requireTrue(t testing.TB, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf(format, args...)
	}
}

// itemsEqual compares items attribute by attribute with attr.Equal.
func itemsEqual(a, b attr.Item) bool { return attr.EqualItems(a, b) }

func requireItem(t testing.TB, got, want attr.Item, what string) {
	t.Helper()
	if !itemsEqual(got, want) {
		t.Fatalf("%s:\n got  %s\n want %s", what, show(got), show(want))
	}
}

// requireItems compares two item sequences in order.
func requireItems(t testing.TB, got, want []attr.Item, what string) {
	t.Helper()
	if !slices.EqualFunc(got, want, itemsEqual) {
		t.Fatalf("%s:\n got  (%d) %s\n want (%d) %s", what, len(got), showAll(got), len(want), showAll(want))
	}
}

func show(it attr.Item) string { return string(it.AppendJSON(nil)) }

func showAll(items []attr.Item) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(show(it))
	}
	return b.String()
}

// num returns a canonical number value, failing on invalid text.
func num(t testing.TB, s string) attr.Value {
	t.Helper()
	c, err := attr.ParseNumber(s)
	if err != nil {
		t.Fatalf("number %q: %v", s, err)
	}
	return attr.Num(c)
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// itoa formats an int (for names and number texts).
func itoa(i int) string { return strconv.Itoa(i) }
