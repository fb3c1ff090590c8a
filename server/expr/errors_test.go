package expr

import (
	"strings"
	"testing"

	"github.com/dynamopg/dynamopg/server/attr"
)

// Names and values every case may use; unused ones are not checked here.
var (
	testNames  = map[string]string{"#a": "a", "#b": "b", "#c": "c", "#d": "[3]", "#1": "1", "#p": "path"}
	testValues = `{":a":{"S":"a"},":b":{"N":"1"},":c":{"B":"YQ=="},":d":{"BOOL":true},":e":{"NULL":true},
		":f":{"SS":["a"]},":g":{"NS":["1"]},":h":{"BS":["YQ=="]},":i":{"M":{}},":j":{"L":[]},
		":n10":{"N":"10"},":s":{"S":"S"},":x":{"S":"X"},":lo":{"S":"b"},":hi":{"S":"a"}}`
)

func TestConditionErrors(t *testing.T) {
	cases := []struct{ expr, want string }{
		// Syntax: the service prints the token and its neighbours.
		{"", "Invalid ConditionExpression: The expression can not be empty;"},
		{"foo", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "foo"`},
		{"a > 4", `Invalid ConditionExpression: Syntax error; token: "4", near: "> 4"`},
		{"a = ", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "= "`},
		{"things are not gonna be ok", `Invalid ConditionExpression: Syntax error; token: "are", near: "things are not"`},
		{"a == :a", `Invalid ConditionExpression: Syntax error; token: "=", near: "== :a"`},
		{"a > between", `Invalid ConditionExpression: Syntax error; token: "between", near: "> between"`},
		{"a in b", `Invalid ConditionExpression: Syntax error; token: "b", near: "in b"`},
		{"a in (b,c,)", `Invalid ConditionExpression: Syntax error; token: ")", near: ",)"`},
		{"attribute_exists(Pictures-RearView)", `Invalid ConditionExpression: Syntax error; token: "-", near: "Pictures-RearView"`},
		{"ü > a", `Invalid ConditionExpression: Syntax error; token: "ü", near: "ü >"`},
		{"b[:a] > a", `Invalid ConditionExpression: Syntax error; token: ":a", near: "[:a]"`},
		{"size(a).b > a", `Invalid ConditionExpression: Syntax error; token: ".", near: ").b"`},
		{"a = :a AND", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "AND"`},
		// Checks after parsing, in the service's order.
		{"a=a and a > ((views))", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{"a=a AND ((a=a AND a=a)) AND a=a", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{"a=a and whatever((:a)) > a", "Invalid ConditionExpression: Invalid function name; function: whatever"},
		{"attRIbute_exIsts((views), #a)", "Invalid ConditionExpression: Invalid function name; function: attRIbute_exIsts"},
		{"attribute_not_exists(things) > b", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_not_exists"},
		{"size(contains(a, b)) > a", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: contains"},
		{"size(things)", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"},
		{"a in (b, attribute_exists(things))", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists"},
		{"attribute_exists(views, #a)", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: views"},
		{":a < abOrT", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: abOrT"},
		{"begins_with(Pictures.#RearView)", "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #RearView"},
		{"#4g > a", "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #4g"},
		{":zz < :a", "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :zz"},
		{"attribute_exists(things, a) and a=a", "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2"},
		{"begins_with(things, size(a), b)", "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 3"},
		{"attribute_type(a, size(a)) and a=a", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"},
		{"attribute_type(a, :d)", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: BOOL"},
		{"attribute_type(a, b)", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}"},
		{"attribute_type(a, :x)", "Invalid ConditionExpression: Invalid attribute type name found; type: X, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"},
		{"begins_with(a, :b)", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"begins_with(:f, a)", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: SS"},
		{"size(size(a)) > :b", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: N"},
		{"size(:d) > a", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: BOOL"},
		{"attribute_exists(:a) and a=a", "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists"},
		{"attribute_not_exists(size(:a))", "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_not_exists"},
		{"a = a AND #a = b", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a]"},
		{"#a <> a", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: <>, first operand: [a]"},
		{"contains(ab.bc[1].a, ab.bc[1].#a)", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [ab, bc, [1], a]"},
		{"a between :b and :a", "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:a}"},
		{"a between :lo and :hi", "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}"},
		{"a between :n10 and :b", "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:10}, upper bound operand: AttributeValue: {N:1}"},
		{"a in (" + strings.TrimSuffix(strings.Repeat(":a,", 101), ",") + ")", "Invalid ConditionExpression: The IN operator is provided with too many operands; number of operands: 101"},
		{"a = :a" + strings.Repeat(" ", 4096), "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4102"},
		// Operands that cannot be ordered, given as values (issue 18).
		{"a < :j", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: L"},
		{":i >= a", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: >=, operand type: M"},
		{"a <= :f", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <=, operand type: SS"},
		{"a > :d", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: >, operand type: BOOL"},
		{"a between :g and :g", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: NS"},
		{":e between a and b", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: NULL"},
		// Update functions are known, but not in a condition.
		{"if_not_exists(a, :a) = :a", "Invalid ConditionExpression: The function is not allowed in a condition expression; function: if_not_exists"},
		{"a = :a and list_append(a, :j) = :j", "Invalid ConditionExpression: The function is not allowed in a condition expression; function: list_append"},
		// Limits.
		{"a" + strings.Repeat(".b", 32) + " = :a", "Invalid ConditionExpression: The document path has too many nesting levels; nesting levels: 33"},
		{"a" + strings.Repeat("[0]", 32) + " = :a", "Invalid ConditionExpression: The document path has too many nesting levels; nesting levels: 33"},
		{"a[2147483648] = :a", "Invalid ConditionExpression: List index is not within the allowable range; index: [2147483648]"},
		{"a[99999999999999999999999] = :a", "Invalid ConditionExpression: List index is not within the allowable range; index: [99999999999999999999999]"},
		{"a[00000000001] = :a", "Invalid ConditionExpression: List index is not within the allowable range; index: [00000000001]"},
		{strings.Repeat("not ", 1000) + "a<b", "Invalid ConditionExpression: The expression contains too many operators; operator count: 301"},
		{"a<b " + strings.Repeat("or (a<b ", 150) + strings.Repeat(")", 150), "Invalid ConditionExpression: The expression contains too many operators; operator count: 301"},
	}
	for _, c := range cases {
		_, err := ParseCondition(KindCondition, c.expr, ctx(t, testNames, testValues))
		if got := errText(err); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.expr, got, c.want)
		}
	}
	// The kind prefixes the messages.
	_, err := ParseCondition(KindFilter, "a > 4", nil)
	if got, want := errText(err), `Invalid FilterExpression: Syntax error; token: "4", near: "> 4"`; got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

func TestConditionValid(t *testing.T) {
	for _, e := range []string{
		"a = :a",
		"(a) = (:a)",
		"(a)between(:b)and(:n10)",
		"a.b[1].#a <> :a AND NOT (b < :b OR c >= :b)",
		"NOT attribute_exists(a) and attribute_not_exists(#b)",
		"a IN (:a, :b, :c)",
		"size(a.b) > :b",
		"begins_with(a, :a) or contains(b, :b)",
		"attribute_type(a, :s)",
		"((a = :a) OR (b = :a))",
		"a = :a AND b = :a OR c = :a",
		"a\t=\n:a",
		"a in (" + strings.TrimSuffix(strings.Repeat(":a,", 100), ",") + ")",
		":a = :a",
		"a" + strings.Repeat(".b", 31) + " = :a",
		"a[2147483647] = :a",
		"a < :a AND b > :b AND c <= :c AND size(c) >= :b",
		"a<b " + strings.Repeat("or (a<b ", 149) + strings.Repeat(")", 149),
		strings.Repeat("not ", 299) + "a = :a",
	} {
		if _, err := ParseCondition(KindCondition, e, ctx(t, testNames, testValues)); err != nil {
			t.Errorf("%q: %v", e, err)
		}
	}
}

func TestUpdateErrors(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"", "Invalid UpdateExpression: The expression can not be empty;"},
		// Syntax errors; the tokens and neighbours are the service's (moto's measurements).
		{"SET MyStr = myNum + 1", `Invalid UpdateExpression: Syntax error; token: "1", near: "+ 1"`},
		{"SET MyStr = myNum Mystr2 myNum2", `Invalid UpdateExpression: Syntax error; token: "Mystr2", near: "myNum Mystr2 myNum2"`},
		{"SET MyStr = my Num", `Invalid UpdateExpression: Syntax error; token: "Num", near: "my Num"`},
		{"SET attrName = 3", `Invalid UpdateExpression: Syntax error; token: "3", near: "= 3"`},
		{"SET MyStr[ 3", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "3"`},
		{"SET MyStr[ 3 ", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "3 "`},
		{"SET MyStr[3 )", `Invalid UpdateExpression: Syntax error; token: ")", near: "3 )"`},
		{"SET MyStr[3)", `Invalid UpdateExpression: Syntax error; token: ")", near: "3)"`},
		{"SET 2", `Invalid UpdateExpression: Syntax error; token: "2", near: "SET 2"`},
		{"2", `Invalid UpdateExpression: Syntax error; token: "2", near: "2"`},
		{"SET ) 3", `Invalid UpdateExpression: Syntax error; token: ")", near: "SET ) 3"`},
		{"SET MyStr = (:_val", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ":_val"`},
		{"SET MyStr = [:_val  ", `Invalid UpdateExpression: Syntax error; token: "[", near: "= [:_val"`},
		{"SET MyStr = ):_val + :val2", `Invalid UpdateExpression: Syntax error; token: ")", near: "= ):_val"`},
		{"  RESET NonExistent value", `Invalid UpdateExpression: Syntax error; token: "RESET", near: "  RESET NonExistent"`},
		{"RESET", `Invalid UpdateExpression: Syntax error; token: "RESET", near: "RESET"`},
		{"SET a [  [2] ]. b = :a", `Invalid UpdateExpression: Syntax error; token: "[", near: "[  [2"`},
		{"SET a [2 1]. b = :a", `Invalid UpdateExpression: Syntax error; token: "1", near: "2 1]"`},
		{"SET #a a = :a", `Invalid UpdateExpression: Syntax error; token: "a", near: "#a a ="`},
		{"SET MyStr = NoExist + + :_val ", `Invalid UpdateExpression: Syntax error; token: "+", near: "+ + :_val"`},
		{"REMOVE NoExist + ", `Invalid UpdateExpression: Syntax error; token: "+", near: "NoExist + "`},
		{"ADD attr val foobar", `Invalid UpdateExpression: Syntax error; token: "val", near: "attr val foobar"`},
		{"DELETE attr :val foobar", `Invalid UpdateExpression: Syntax error; token: "foobar", near: ":val foobar"`},
		{"SET path = VALUE 1", `Invalid UpdateExpression: Syntax error; token: "1", near: "VALUE 1"`},
		{"REMOVE if_not_exists(a,b)", `Invalid UpdateExpression: Syntax error; token: "(", near: "if_not_exists(a"`},
		{"SET attrName = _idid", `Invalid UpdateExpression: Syntax error; token: "_", near: "= _idid"`},
		{"SET|", `Invalid UpdateExpression: Syntax error; token: "|", near: "SET|"`},
		{"   |", `Invalid UpdateExpression: Syntax error; token: "|", near: "   |"`},
		{"set a = b + c + d", `Invalid UpdateExpression: Syntax error; token: "+", near: "c + d"`},
		{"set a=set", `Invalid UpdateExpression: Syntax error; token: "set", near: "=set"`},
		{"set (a = (b + c))", `Invalid UpdateExpression: Syntax error; token: "(", near: "set (a"`},
		// Checks after parsing, in the service's order.
		{" set #c = :a set abOrt = :a ", "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: abOrt"},
		{" remove Absolute ", "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: Absolute"},
		{"set #c = if_not_exist(:c) set c = d", "Invalid UpdateExpression: Invalid function name; function: if_not_exist"},
		{"set a = #zz set c = :a", `Invalid UpdateExpression: The "SET" section can only be used once in an update expression;`},
		{"remove #d set a = b remove e", `Invalid UpdateExpression: The "REMOVE" section can only be used once in an update expression;`},
		{"SET #zz = if_not_exists(:zz)", "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #zz"},
		{"SET #a = if_not_exists(:zz)", "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :zz"},
		{"set d[1] = a, d.b = a, c[1].a = a, #c = if_not_exists(a)", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [c, [1], a], path two: [c]"},
		{"set a = b remove a, #c, #d", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"set #c[3].#d = a, #c[3] = a", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [c, [3], [3]], path two: [c, [3]]"},
		{"remove c, #c.a, #d", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [c], path two: [c, a]"},
		{"set #c[3].#d = a, #c.#d[3] = if_not_exists(a, b)", "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [c, [3], [3]], path two: [c, [3], [3]]"},
		{"remove a.#c set a[1] = #d", "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, c], path two: [a, [1]]"},
		{"set b = list_append(:a, a), c = if_not_exists(a) add a.b :a", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING"},
		{"delete a.b :b", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER"},
		{"add a.b :e", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: NULL"},
		{"add a.b :d", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: BOOLEAN"},
		{"delete a.b :c", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: BINARY"},
		{"add a.b :i", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: MAP"},
		{"add a.b :j", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: LIST"},
		{"set a = if_not_exists(c)", "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1"},
		{"set a = list_append(c)", "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1"},
		{"set a = if_not_exists(:a, c)", "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"},
		{"set a = if_not_exists(if_not_exists(a, b), c)", "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"},
		{"set a = list_append(:a, a)", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S"},
		{"set a = list_append(a, :b)", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: N"},
		{"set a = list_append(:i, a)", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: M"},
		{"set a = a + :a", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{"set a = :c - a", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: -, operand type: B"},
		{"set a = a - :j", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: -, operand type: L"},
	}
	for _, c := range cases {
		_, err := ParseUpdate(c.expr, ctx(t, testNames, testValues))
		if got := errText(err); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.expr, got, c.want)
		}
	}
}

func TestProjectionErrors(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"", "Invalid ProjectionExpression: The expression can not be empty;"},
		{"a b", `Invalid ProjectionExpression: Syntax error; token: "b", near: "a b"`},
		{"a,", `Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","`},
		{"a[x]", `Invalid ProjectionExpression: Syntax error; token: "x", near: "[x]"`},
		{"a, name", "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name"},
		{"a, #zz", "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #zz"},
		{"a, b.c, #a.d", "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, d]"},
		{"a.b, a[1]", "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [1]]"},
	}
	for _, c := range cases {
		_, err := ParseProjection(c.expr, ctx(t, testNames, testValues))
		if got := errText(err); got != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.expr, got, c.want)
		}
	}
}

func TestContext(t *testing.T) {
	long := "#" + strings.Repeat("a", 255)
	cases := []struct {
		names  map[string]string
		values string
		want   string
	}{
		{map[string]string{}, "", "ExpressionAttributeNames must not be empty"},
		{map[string]string{"a": "a"}, "", `ExpressionAttributeNames contains invalid key: Syntax error; key: "a"`},
		{map[string]string{"#": "a"}, "", `ExpressionAttributeNames contains invalid key: Syntax error; key: "#"`},
		{map[string]string{long: "a"}, "", "ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: 256"},
		{map[string]string{"#a": ""}, "", "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"},
		{nil, `{}`, "ExpressionAttributeValues must not be empty"},
		{nil, `{"b":{"S":"a"}}`, `ExpressionAttributeValues contains invalid key: Syntax error; key: "b"`},
		{nil, `{":` + strings.Repeat("a", 255) + `":{"S":"a"}}`, "ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long"},
	}
	for _, c := range cases {
		var vals map[string]attr.Value
		switch c.values {
		case "":
		case "{}":
			vals = map[string]attr.Value{}
		default:
			vals = item(t, c.values)
		}
		_, err := NewContext(c.names, vals)
		if got := errText(err); got != c.want {
			t.Errorf("got %s\nwant %s", got, c.want)
		}
	}
}

func TestCheckUnused(t *testing.T) {
	c := ctx(t, map[string]string{"#a": "a", "#b": "b", "#c": "c"}, `{":a":{"S":"a"},":b":{"S":"b"},":c":{"S":"c"}}`)
	if _, err := ParseUpdate("remove #c set b = list_append(b, if_not_exists(a, :a))", c); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseCondition(KindCondition, "a = :b", c); err != nil {
		t.Fatal(err)
	}
	if got, want := errText(c.CheckUnused()), "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #b}"; got != want {
		t.Errorf("got %s want %s", got, want)
	}
	c = ctx(t, nil, `{":a":{"S":"a"},":b":{"S":"b"},":c":{"S":"c"}}`)
	if _, err := ParseCondition(KindCondition, "a = :b", c); err != nil {
		t.Fatal(err)
	}
	if got, want := errText(c.CheckUnused()), "Value provided in ExpressionAttributeValues unused in expressions: keys: {:a, :c}"; got != want {
		t.Errorf("got %s want %s", got, want)
	}
	if _, err := ParseProjection("a", nil); err != nil {
		t.Errorf("nil context: %v", err)
	}
	if err := (*Context)(nil).CheckUnused(); err != nil {
		t.Errorf("nil context: %v", err)
	}
}
