package expr

import (
	"strings"
	"testing"
)

func TestProjectionApply(t *testing.T) {
	const it = `{"a":{"S":"x"},"b":{"M":{"c":{"N":"1"},"d":{"L":[{"S":"p"},{"M":{"e":{"S":"q"},"f":{"S":"r"}}},{"S":"s"}]}}},
		"l":{"L":[{"N":"0"},{"N":"1"},{"N":"2"},{"N":"3"}]},"n":{"NULL":true}}`
	cases := []struct{ expr, want string }{
		{"a", `{"a":{"S":"x"}}`},
		{"a, n, nope", `{"a":{"S":"x"},"n":{"NULL":true}}`},
		{"b.c", `{"b":{"M":{"c":{"N":"1"}}}}`},
		{"b.d[1].e", `{"b":{"M":{"d":{"L":[{"M":{"e":{"S":"q"}}}]}}}}`},
		{"b.d[1].e, b.c", `{"b":{"M":{"c":{"N":"1"},"d":{"L":[{"M":{"e":{"S":"q"}}}]}}}}`},
		{"l[3], l[1]", `{"l":{"L":[{"N":"1"},{"N":"3"}]}}`},
		{"l[9]", `{}`},
		{"l[2], l[9]", `{"l":{"L":[{"N":"2"}]}}`},
		{"b.zz", `{}`},
		{"a.b, l.c, b[0]", `{}`},
		{"#x", `{"a":{"S":"x"}}`},
	}
	in := item(t, it)
	for _, c := range cases {
		p, err := ParseProjection(c.expr, ctx(t, map[string]string{"#x": "a"}, ""))
		if err != nil {
			t.Errorf("%q: %v", c.expr, err)
			continue
		}
		if got := itemJSON(p.Apply(in)); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.expr, got, c.want)
		}
	}
	// ProjectPaths is what UPDATED_OLD / UPDATED_NEW use.
	u, err := ParseUpdate("SET b.c = a, l[2] = a REMOVE l[0]", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := itemJSON(ProjectPaths(in, u.Paths())), `{"b":{"M":{"c":{"N":"1"}}},"l":{"L":[{"N":"0"},{"N":"2"}]}}`; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestProjectionTopLevel(t *testing.T) {
	p, err := ParseProjection("a.b, c, a[0].d", nil)
	if err == nil {
		t.Fatalf("a.b and a[0] should conflict")
	}
	p, err = ParseProjection("a.b, c, a.d, e[1]", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.TopLevel(); len(got) != 3 || got[0] != "a" || got[1] != "c" || got[2] != "e" {
		t.Errorf("got %v", got)
	}
}

func TestConditionAttributes(t *testing.T) {
	c, err := ParseCondition(KindFilter, "a.b = :v AND (size(#c) > :v OR attribute_exists(d[1])) AND a = :v AND begins_with(e, :v)",
		ctx(t, map[string]string{"#c": "c"}, `{":v":{"S":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Attributes(); strings.Join(got, ",") != "a,c,d,e" {
		t.Errorf("got %v, want [a c d e]", got)
	}
}
