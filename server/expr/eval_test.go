package expr

import "testing"

const evalItem = `{
	"s":{"S":"abc"}, "s2":{"S":"abd"}, "n":{"N":"10"}, "n2":{"N":"9.5"}, "b":{"B":"AQID"},
	"t":{"BOOL":true}, "z":{"NULL":true},
	"ss":{"SS":["x","y"]}, "ns":{"NS":["1","2.5"]}, "bs":{"BS":["AQ==","Ag=="]},
	"l":{"L":[{"S":"x"},{"N":"1"},{"M":{"k":{"S":"v"}}}]},
	"m":{"M":{"a":{"S":"abc"},"li":{"L":[{"N":"7"}]}}},
	"blank":{"S":""}, "wide":{"S":"é𝄞"}}`

const evalValues = `{
	":abc":{"S":"abc"}, ":ab":{"S":"ab"}, ":bc":{"S":"bc"}, ":abd":{"S":"abd"}, ":x":{"S":"x"}, ":zz":{"S":"zz"},
	":10":{"N":"10.0"}, ":9":{"N":"9"}, ":1":{"N":"1"}, ":n25":{"N":"2.50"}, ":3":{"N":"3"}, ":0":{"N":"0"},
	":bin":{"B":"AQID"}, ":b12":{"B":"AQI="}, ":b1":{"B":"AQ=="}, ":b2":{"B":"Ag=="},
	":true":{"BOOL":true}, ":null":{"NULL":true},
	":ss":{"SS":["y","x"]}, ":ns":{"NS":["2.5","1"]},
	":l":{"L":[{"S":"x"},{"N":"1.0"},{"M":{"k":{"S":"v"}}}]}, ":mk":{"M":{"k":{"S":"v"}}},
	":tS":{"S":"S"}, ":tN":{"S":"N"}, ":tB":{"S":"B"}, ":tBOOL":{"S":"BOOL"}, ":tNULL":{"S":"NULL"},
	":tSS":{"S":"SS"}, ":tNS":{"S":"NS"}, ":tBS":{"S":"BS"}, ":tL":{"S":"L"}, ":tM":{"S":"M"},
	":empty":{"S":""}}`

func TestEval(t *testing.T) {
	cases := []struct {
		expr string
		want bool
	}{
		// = and <>: by value, sets unordered, numbers numerically, different types unequal.
		{"s = :abc", true}, {"s = :abd", false}, {"n = :10", true}, {"b = :bin", true},
		{"t = :true", true}, {"z = :null", true}, {"ss = :ss", true}, {"ns = :ns", true},
		{"l = :l", true}, {"l[2] = :mk", true}, {"m.a = :abc", true}, {"m.li[0] = :abc", false},
		{"s = :10", false}, {"s <> :10", true}, {"s <> :abc", false},
		{"nope = :abc", false}, {"nope <> :abc", true}, {"s <> nope", true},
		{"blank = :empty", true},
		// Ordering only within S, N and B.
		{"s < :abd", true}, {"s <= :abc", true}, {"s > :ab", true}, {"s >= :abd", false},
		{"n > :9", true}, {"n2 < :10", true}, {"n >= :10", true}, {"n <= :9", false},
		{"b > :b12", true}, {"b < :b2", true},
		{"s < :10", false}, {"s > :10", false}, {"t < b", false}, {"ss >= ns", false},
		{"nope < :10", false}, {"nope >= :10", false},
		{"s < s2", true}, {"s2 > s", true},
		// BETWEEN, IN.
		{"n between :9 and :10", true}, {"n2 between :9 and :10", true}, {"n between :1 and :9", false},
		{"s between :ab and :abd", true}, {"s between :9 and :10", false}, {"nope between :1 and :9", false},
		{"n in (:1, :10)", true}, {"s in (:abd, :abc)", true}, {"s in (:abd, :1)", false}, {"nope in (:1)", false},
		{"ss in (:ss)", true},
		// Functions.
		{"attribute_exists(s)", true}, {"attribute_exists(m.a)", true}, {"attribute_exists(m.b)", false},
		{"attribute_exists(l[5])", false}, {"attribute_not_exists(nope)", true}, {"attribute_not_exists(l[0])", false},
		{"attribute_type(s, :tS)", true}, {"attribute_type(n, :tN)", true}, {"attribute_type(b, :tB)", true},
		{"attribute_type(t, :tBOOL)", true}, {"attribute_type(z, :tNULL)", true}, {"attribute_type(ss, :tSS)", true},
		{"attribute_type(ns, :tNS)", true}, {"attribute_type(bs, :tBS)", true}, {"attribute_type(l, :tL)", true},
		{"attribute_type(m, :tM)", true}, {"attribute_type(s, :tN)", false}, {"attribute_type(nope, :tS)", false},
		{"begins_with(s, :ab)", true}, {"begins_with(s, :bc)", false}, {"begins_with(b, :b12)", true},
		{"begins_with(s, :empty)", true}, {"begins_with(n, :ab)", false}, {"begins_with(nope, :ab)", false},
		{"contains(s, :bc)", true}, {"contains(s, :zz)", false}, {"contains(b, :b12)", true},
		{"contains(ss, :x)", true}, {"contains(ss, :zz)", false}, {"contains(ns, :n25)", true}, {"contains(ns, :3)", false},
		{"contains(bs, :b2)", true}, {"contains(l, :x)", true}, {"contains(l, :1)", true}, {"contains(l, :mk)", true},
		{"contains(l, :zz)", false}, {"contains(ss, :1)", false}, {"contains(n, :1)", false}, {"contains(nope, :x)", false},
		{"size(s) = :3", true}, {"size(b) = :3", true}, {"size(ss) < :3", true}, {"size(ns) = :n25", false},
		{"size(bs) = :1", false}, {"size(l) = :3", true}, {"size(m) > :1", true}, {"size(m) >= :1", true},
		{"size(blank) = :0", true}, {"size(n) = :1", false}, {"size(n) <> :1", true}, {"size(nope) = :0", false},
		{"size(m.li) = :1", true},
		// Strings count UTF-16 code units, as the service does: é is 1, 𝄞 is 2.
		{"size(wide) = :3", true},
		// Logic.
		{"s = :abc AND n = :10", true}, {"s = :abc AND n = :9", false}, {"s = :abd OR n = :10", true},
		{"NOT s = :abd", true}, {"NOT (s = :abc AND n = :10)", false}, {"NOT NOT s = :abc", true},
		{"s = :abd AND n = :9 OR t = :true", true}, {"s = :abd AND (n = :9 OR t = :true)", false},
		{"t = :true OR s = :abd AND n = :9", true},
	}
	it := item(t, evalItem)
	for _, c := range cases {
		cond, err := ParseCondition(KindCondition, c.expr, ctx(t, nil, evalValues))
		if err != nil {
			t.Errorf("%q: %v", c.expr, err)
			continue
		}
		got, err := cond.Eval(it)
		if err != nil || got != c.want {
			t.Errorf("%q: got %v, %v; want %v", c.expr, got, err, c.want)
		}
	}
	// A nope item has no attributes.
	cond, _ := ParseCondition(KindCondition, "attribute_not_exists(s)", nil)
	if ok, _ := cond.Eval(nil); !ok {
		t.Errorf("attribute_not_exists on a nope item")
	}
}
