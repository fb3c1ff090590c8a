package expr

import "testing"

func TestKeyCondition(t *testing.T) {
	const values = `{":a":{"S":"a"},":b":{"S":"b"},":n":{"N":"1"},":s":{"S":"S"}}`
	cases := []struct{ expr, want string }{
		{"a = :a", "a EQ [a]"},
		{"a = :a AND b > :n", "a EQ [a] AND b GT [1]"},
		{":n < b AND a = :a", "b GT [1] AND a EQ [a]"},
		{":n >= b and a = :a", "b LE [1] AND a EQ [a]"},
		{"a = :a and b between :a and :b", "a EQ [a] AND b BETWEEN [a, b]"},
		{"a = :a and begins_with(#b, :b)", "a EQ [a] AND b BEGINS_WITH [b]"},
		{"(a = :a) and (b <= :n)", "a EQ [a] AND b LE [1]"},
		// Parsed as a condition first: those errors carry the kind.
		{"", "Invalid KeyConditionExpression: The expression can not be empty;"},
		{"a > 4", `Invalid KeyConditionExpression: Syntax error; token: "4", near: "> 4"`},
		{"a = :zz", "Invalid KeyConditionExpression: An expression attribute value used in expression is not defined; attribute value: :zz"},
		{"a between :b and :a", "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}"},
		{"attribute_type(a, :n)", "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"},
		// Then its shape, without the prefix.
		{"attribute_type(a, :s)", "Invalid operator used in KeyConditionExpression: attribute_type"},
		{"a > b and size(b) > c or a > c", "Invalid operator used in KeyConditionExpression: OR"},
		{"a in (b, size(c), d)", "Invalid operator used in KeyConditionExpression: IN"},
		{"attribute_exists(a)", "Invalid operator used in KeyConditionExpression: attribute_exists"},
		{"attribute_not_exists(a)", "Invalid operator used in KeyConditionExpression: attribute_not_exists"},
		{"contains(a.d, b)", "Invalid operator used in KeyConditionExpression: contains"},
		{"not a > b", "Invalid operator used in KeyConditionExpression: NOT"},
		{"a <> b", "Invalid operator used in KeyConditionExpression: <>"},
		{":a between size(b) and size(a) and b > :b", "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand"},
		{"begins_with(:a, b) and a > :b", "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand"},
		{"size(b) > a AND a.b > b AND b > c", "KeyConditionExpressions cannot contain nested operations"},
		{"a > size(b.d)", "KeyConditionExpressions cannot contain nested operations"},
		{"b > a.b", "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"},
		{"b between c[1] and d", "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"},
		{"begins_with(a, b)", "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"},
		{"b.d > a AND c.d > e.f", "KeyConditionExpressions cannot have conditions on nested attributes"},
		{"b[0] > a", "KeyConditionExpressions cannot have conditions on nested attributes"},
		{":b > :a AND a < :b", "Invalid condition in KeyConditionExpression: No key attribute specified"},
		{"b > :a AND b < :a and c = :a and d = :a", "KeyConditionExpressions must only contain one condition per key"},
		{"(a > :a and b > :a) and (b > :a and c > :a)", "KeyConditionExpressions must only contain one condition per key"},
	}
	for _, c := range cases {
		kc, err := ParseKeyCondition(c.expr, ctx(t, map[string]string{"#b": "b"}, values))
		got := errText(err)
		if err == nil {
			got = kc.String()
		}
		if got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.expr, got, c.want)
		}
	}
}

func TestKeyConditionMatch(t *testing.T) {
	const values = `{":a":{"S":"a"},":n":{"N":"1"}}`
	cases := []struct{ expr, hash, rng, want string }{
		{"pk = :a", "pk", "", "pk EQ [a] / -"},
		{"pk = :a", "pk", "sk", "pk EQ [a] / -"},
		{"sk > :n and pk = :a", "pk", "sk", "pk EQ [a] / sk GT [1]"},
		{"sk > :n", "pk", "sk", "Query condition missed key schema element: pk"},
		{"pk > :a", "pk", "sk", "Query key condition not supported"},
		{"pk = :a and x = :n", "pk", "sk", "Query condition missed key schema element: sk"},
		{"pk = :a and x = :n", "pk", "", "Query key condition not supported"},
	}
	for _, c := range cases {
		kc, err := ParseKeyCondition(c.expr, ctx(t, nil, values))
		if err != nil {
			t.Fatalf("%q: %v", c.expr, err)
		}
		h, r, err := kc.Match(c.hash, c.rng)
		got := errText(err)
		if err == nil {
			got = (&KeyCondition{Conds: []KeyCond{h}}).String() + " / -"
			if r != nil {
				got = (&KeyCondition{Conds: []KeyCond{h}}).String() + " / " + (&KeyCondition{Conds: []KeyCond{*r}}).String()
			}
		}
		if got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.expr, got, c.want)
		}
	}
}
