package expr

import (
	"strings"
	"testing"
)

func TestUpdateApply(t *testing.T) {
	const base = `{"k":{"S":"key"},"n":{"N":"1"},"s":{"S":"str"},"l":{"L":[{"N":"1"},{"N":"3"}]},
		"m":{"M":{"a":{"N":"1"},"b":{"N":"2"},"c":{"N":"3"}}},"ss":{"SS":["a","b"]},"ns":{"NS":["1","2"]},"bs":{"BS":["AQ=="]}}`
	const values = `{":s":{"S":"v"},":n":{"N":"5"},":l":{"L":[{"S":"x"}]},":ss":{"SS":["b","c"]},":ns":{"NS":["2","3"]},
		":bs":{"BS":["Ag==","AQ=="]},":p1":{"N":"0.1"},":p2":{"N":"0.2"},":ssa":{"SS":["a","b"]},":big":{"N":"9.9E125"},
		":m":{"M":{"x":{"N":"1"}}},":two":{"N":"2"}}`
	cases := []struct{ name, item, expr, want string }{
		{"set new", base, "SET x = :s", `"x":{"S":"v"}`},
		{"set from attribute", base, "SET x = s", `"x":{"S":"str"}`},
		{"set on missing item", "", "SET x = :s", `{"x":{"S":"v"}}`},
		{"arithmetic", base, "SET n = n + :n", `"n":{"N":"6"}`},
		{"subtract", base, "SET n = :n - n", `"n":{"N":"4"}`},
		{"precision", `{"a":{"N":"0.1"}}`, "SET a = a + :p2", `{"a":{"N":"0.3"}}`},
		{"precision values", "", "SET a = :p1 + :p2", `{"a":{"N":"0.3"}}`},
		{"list_append", base, "SET l = list_append(l, :l)", `"l":{"L":[{"N":"1"},{"N":"3"},{"S":"x"}]}`},
		{"list_append prepend", base, "SET l = list_append(:l, l)", `"l":{"L":[{"S":"x"},{"N":"1"},{"N":"3"}]}`},
		{"if_not_exists absent", base, "SET x = if_not_exists(x, :n)", `"x":{"N":"5"}`},
		{"if_not_exists present", base, "SET n = if_not_exists(n, :n)", `"n":{"N":"1"}`},
		{"if_not_exists in list_append", base, "SET x = list_append(if_not_exists(x, :l), :l)", `"x":{"L":[{"S":"x"},{"S":"x"}]}`},
		{"if_not_exists plus", base, "SET x = if_not_exists(x, :n) + :two", `"x":{"N":"7"}`},
		{"nested set", base, "SET m.d = :s, m.a = :n", `"m":{"M":{"a":{"N":"5"},"b":{"N":"2"},"c":{"N":"3"},"d":{"S":"v"}}}`},
		{"set list index", base, "SET l[0] = :s", `"l":{"L":[{"S":"v"},{"N":"3"}]}`},
		{"set past the end appends", base, "SET l[10] = :s", `"l":{"L":[{"N":"1"},{"N":"3"},{"S":"v"}]}`},
		{"set map in map", base, "SET m.e = :m, m.a = m.b", `"m":{"M":{"a":{"N":"2"},"b":{"N":"2"},"c":{"N":"3"},"e":{"M":{"x":{"N":"1"}}}}}`},
		{"values read before writes", base, "SET n = s, s = n", `"n":{"S":"str"}`},
		{"remove", `{"k":{"S":"key"},"n":{"N":"1"},"s":{"S":"str"}}`, "REMOVE s, n, nope", `{"k":{"S":"key"}}`},
		{"remove list element shifts", `{"l":{"L":[{"N":"0"},{"N":"1"},{"N":"2"},{"N":"3"}]}}`, "REMOVE l[1], l[2]", `{"l":{"L":[{"N":"0"},{"N":"3"}]}}`},
		{"remove list past end", base, "REMOVE l[5]", `"l":{"L":[{"N":"1"},{"N":"3"}]}`},
		{"remove map key", base, "REMOVE m.b, m.zz", `"m":{"M":{"a":{"N":"1"},"c":{"N":"3"}}}`},
		{"add number", base, "ADD n :n", `"n":{"N":"6"}`},
		{"add number to missing", base, "ADD x :n", `"x":{"N":"5"}`},
		{"add string set", base, "ADD ss :ss", `"ss":{"SS":["a","b","c"]}`},
		{"add number set", base, "ADD ns :ns", `"ns":{"NS":["1","2","3"]}`},
		{"add binary set", base, "ADD bs :bs", `"bs":{"BS":["AQ==","Ag=="]}`},
		{"add set to missing", base, "ADD x :ss", `"x":{"SS":["b","c"]}`},
		{"delete from set", base, "DELETE ss :ss", `"ss":{"SS":["a"]}`},
		{"delete number set", base, "DELETE ns :ns", `"ns":{"NS":["1"]}`},
		{"delete empties set", `{"k":{"S":"key"},"ss":{"SS":["b","a"]}}`, "DELETE ss :ssa", `{"k":{"S":"key"}}`},
		{"delete from missing", base, "DELETE x :ss", `"s":{"S":"str"}`},
		// The service's nested example: values from the old item, list
		// indexes past the end appended in index order.
		{"dynalite nested", `{"a":{"S":"key"},"b":{"M":{"a":{"N":"1"},"b":{"N":"2"},"c":{"N":"3"}}},"c":{"L":[{"N":"1"},{"N":"3"}]}}`,
			"set b.c=((c[1])+(b.a)),b.a = a,c[1] = a, c[4] = b.a - b.b, c[2] = b.c add c[8] :ss, c[6] :two",
			`{"a":{"S":"key"},"b":{"M":{"a":{"S":"key"},"b":{"N":"2"},"c":{"N":"4"}}},"c":{"L":[{"N":"1"},{"S":"key"},{"N":"3"},{"N":"-1"},{"N":"2"},{"SS":["b","c"]}]}}`},
		{"all clauses", base, "REMOVE s DELETE ss :ssa ADD n :n, x :ss SET y = :l",
			`{"bs":{"BS":["AQ=="]},"k":{"S":"key"},"l":{"L":[{"N":"1"},{"N":"3"}]},"m":{"M":{"a":{"N":"1"},"b":{"N":"2"},"c":{"N":"3"}}},"n":{"N":"6"},"ns":{"NS":["1","2"]},"x":{"SS":["b","c"]},"y":{"L":[{"S":"x"}]}}`},
		// Errors found while applying.
		{"missing operand", base, "SET x = nope", "ERR " + MsgAttributeMissing},
		{"missing operand in +", base, "SET x = nope + :n", "ERR " + MsgAttributeMissing},
		{"missing in list_append", base, "SET x = list_append(nope, :l)", "ERR " + MsgAttributeMissing},
		{"string plus", base, "SET x = s + :n", "ERR " + MsgIncorrectDataType},
		{"list_append non list", base, "SET x = list_append(s, :l)", "ERR " + MsgIncorrectDataType},
		{"add to string", base, "ADD s :n", "ERR " + MsgIncorrectDataType},
		{"add number to set", base, "ADD ss :n", "ERR " + MsgIncorrectDataType},
		{"add other set type", base, "ADD ss :ns", "ERR " + MsgIncorrectDataType},
		{"delete other set type", base, "DELETE ss :ns", "ERR " + MsgIncorrectDataType},
		{"delete from number", base, "DELETE n :ns", "ERR " + MsgIncorrectDataType},
		{"overflow", `{"a":{"N":"9.9E125"}}`, "SET a = a + :big", "ERR Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"set under missing map", base, "SET nope.a = :s", "ERR " + MsgInvalidUpdatePath},
		{"set index of missing list", base, "SET nope[1] = :s", "ERR " + MsgInvalidUpdatePath},
		{"set key of string", base, "SET s.a = :s", "ERR " + MsgInvalidUpdatePath},
		{"set index of map", base, "SET m[1] = :s", "ERR " + MsgInvalidUpdatePath},
		{"set key of list", base, "SET l.a = :s", "ERR " + MsgInvalidUpdatePath},
		{"remove under missing", base, "REMOVE nope.a", "ERR " + MsgInvalidUpdatePath},
		{"remove index of map", base, "REMOVE m[1]", "ERR " + MsgInvalidUpdatePath},
		{"add under missing", base, "ADD nope.a :n", "ERR " + MsgInvalidUpdatePath},
		{"delete under list element past end", base, "DELETE l[7].a :ss", "ERR " + MsgInvalidUpdatePath},
	}
	for _, c := range cases {
		u, err := ParseUpdate(c.expr, ctx(t, nil, values))
		if err != nil {
			t.Errorf("%s: parse: %v", c.name, err)
			continue
		}
		in := item(t, c.item)
		before := itemJSON(in)
		out, err := u.Apply(in)
		if after := itemJSON(in); after != before {
			t.Errorf("%s: input changed:\n%s\n%s", c.name, before, after)
		}
		got := "ERR " + errText(err)
		if err == nil {
			got = itemJSON(out)
		}
		if strings.HasPrefix(c.want, "ERR ") || strings.HasPrefix(c.want, "{") {
			if got != c.want {
				t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
			}
			continue
		}
		if !strings.Contains(got, c.want) && got != c.want {
			t.Errorf("%s:\n got %s\nwant it to contain %s", c.name, got, c.want)
		}
	}
}

func TestUpdateResultSharesNothing(t *testing.T) {
	in := item(t, `{"a":{"M":{"x":{"L":[{"N":"1"}]}}}}`)
	u, err := ParseUpdate("SET b = a", nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := u.Apply(in)
	if err != nil {
		t.Fatal(err)
	}
	out["b"].M["x"].L[0] = item(t, `{"v":{"S":"changed"}}`)["v"]
	out["a"].M["y"] = out["b"]
	if got := itemJSON(in); got != `{"a":{"M":{"x":{"L":[{"N":"1"}]}}}}` {
		t.Errorf("input changed through the result: %s", got)
	}
}

func TestUpdatePaths(t *testing.T) {
	u, err := ParseUpdate("SET #a.b[2] = :v REMOVE c ADD d :v", ctx(t, map[string]string{"#a": "A"}, `{":v":{"N":"1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range u.Paths() {
		got = append(got, p.String())
	}
	if s := strings.Join(got, " "); s != "[A, b, [2]] [c] [d]" {
		t.Errorf("got %s", s)
	}
}
