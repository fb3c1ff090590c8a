package expr

import (
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
)

// The fuzz targets check that no input makes a parser, evaluator or applier
// panic, and that parsing is deterministic. Their seed corpus runs in every
// `go test`; `go test -fuzz=FuzzParseUpdate ./server/expr/` explores further.

const fuzzValues = `{":s":{"S":"S"},":n":{"N":"1"},":b":{"B":"AQ=="},":t":{"BOOL":true},":z":{"NULL":true},
	":ss":{"SS":["a"]},":ns":{"NS":["1"]},":bs":{"BS":["AQ=="]},":l":{"L":[{"S":"a"}]},":m":{"M":{"a":{"N":"1"}}},
	":big":{"N":"9E125"}}`

const fuzzItem = `{"a":{"S":"abc"},"n":{"N":"5"},"l":{"L":[{"N":"1"},{"M":{"a":{"S":"x"}}}]},"m":{"M":{"a":{"N":"1"},"l":{"L":[]}}},
	"ss":{"SS":["a","b"]},"ns":{"NS":["1"]},"bs":{"BS":["AQ=="]},"t":{"BOOL":false},"z":{"NULL":true},"big":{"N":"9E125"}}`

var fuzzNames = map[string]string{"#a": "a", "#b": "b", "#n": "n", "#l": "l"}

var seeds = []string{
	"", " ", "a", "a = :s", "(a) = (:s)", "((a = :s))", "a between :n and :big", "a in (:s, :n)",
	"NOT attribute_exists(#a) AND size(l) > :n OR contains(ss, :s)", "begins_with(a, :s)",
	"attribute_type(a, :s)", "size(size(a))", "a.b[1].#a <> m.a", "a[99999999999999999999] = :n",
	"SET a = :s", "SET n = n + :n, l = list_append(l, :l) REMOVE m.a ADD ss :ss DELETE bs :bs",
	"SET l[5] = if_not_exists(#n, :n) - :n", "REMOVE l[0], l[1]", "ADD big :big", "SET m.l[0].x = :m",
	"set a = b + c + d", "SET MyStr[ 3 ", "a, b.c, l[1], #a", "a.b, a[1]", "#zz", ":zz = a",
	"a = :a AND", "ü > a", "|", "SET ) 3", "pk = :s and sk between :n and :big",
	"pk = :s and begins_with(sk, :s)", "a in (:s,:s,:s,:s)", "((a)) = :s", "size(a) = size(l)",
}

func fuzzContext(t *testing.T) *Context {
	vals := item(t, fuzzValues)
	c, err := NewContext(fuzzNames, vals)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkErrType(t *testing.T, err error) {
	if err == nil {
		return
	}
	if e, ok := err.(*Error); !ok || e.Msg == "" {
		t.Fatalf("error is not a non-empty *Error: %#v", err)
	}
}

func FuzzParseCondition(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		it := item(t, fuzzItem)
		c, err := ParseCondition(KindCondition, s, fuzzContext(t))
		checkErrType(t, err)
		_, err2 := ParseCondition(KindCondition, s, fuzzContext(t))
		if errText(err) != errText(err2) {
			t.Fatalf("not deterministic: %v / %v", err, err2)
		}
		if err == nil {
			_, err = c.Eval(it)
			checkErrType(t, err)
			c.Eval(nil)
		}
	})
}

func FuzzParseKeyCondition(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kc, err := ParseKeyCondition(s, fuzzContext(t))
		checkErrType(t, err)
		if err == nil {
			_, _, err = kc.Match("a", "n")
			checkErrType(t, err)
			_ = kc.String()
		}
	})
}

func FuzzParseUpdate(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		it := item(t, fuzzItem)
		before := itemJSON(it)
		u, err := ParseUpdate(s, fuzzContext(t))
		checkErrType(t, err)
		if err != nil {
			return
		}
		out, err := u.Apply(it)
		checkErrType(t, err)
		if itemJSON(it) != before {
			t.Fatalf("Apply changed its input")
		}
		if err == nil {
			ProjectPaths(out, u.Paths())
			ProjectPaths(it, u.Paths())
		}
		if _, err := u.Apply(nil); err != nil {
			checkErrType(t, err)
		}
		_ = attr.Item(out).Size()
	})
}

func FuzzParseProjection(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseProjection(s, fuzzContext(t))
		checkErrType(t, err)
		if err == nil {
			p.Apply(item(t, fuzzItem))
			p.TopLevel()
		}
	})
}
