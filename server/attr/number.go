package attr

import (
	"math/big"
	"strconv"
	"strings"
)

// Limits of the service's Number type.
const (
	maxDigits   = 38
	maxExponent = 125  // largest magnitude is 9.99…E+125
	minExponent = -130 // smallest non-zero magnitude is 1E-130
)

// decimal is a parsed number: value = (-1)^neg × 0.digits × 10^exp, digits
// without leading or trailing zeros; zero has no digits.
type decimal struct {
	neg    bool
	digits string
	exp    int
}

// ParseNumber validates number text as the service does and returns its
// canonical form (plain notation, no redundant zeros, "-" only when negative).
func ParseNumber(s string) (string, *Error) {
	d, err := parseDecimal(s)
	if err != nil {
		return "", err
	}
	return d.String(), nil
}

func parseDecimal(s string) (decimal, *Error) {
	var d decimal
	if s == "" {
		return d, validationErr(MsgNotNumeric)
	}
	bad := func() (decimal, *Error) { return decimal{}, validationErr(MsgNotNumeric + ": " + s) }
	i := 0
	if s[0] == '+' || s[0] == '-' {
		d.neg = s[0] == '-'
		i++
	}
	var intPart, fracPart string
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart = s[start:i]
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		fracPart = s[fs:i]
	}
	if intPart == "" && fracPart == "" {
		return bad()
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		es := i
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		ds := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if ds == i {
			return bad()
		}
		e, err := strconv.Atoi(s[es:i])
		if err != nil {
			return bad()
		}
		exp = e
	}
	if i != len(s) {
		return bad()
	}
	all := intPart + fracPart
	lead := 0
	for lead < len(all) && all[lead] == '0' {
		lead++
	}
	all = all[lead:]
	all = strings.TrimRight(all, "0")
	if all == "" {
		return decimal{}, nil // zero, whatever its sign
	}
	// 0.digits × 10^e: the position of the first significant digit.
	d.exp = len(intPart) - lead + exp
	d.digits = all
	// Scientific exponent is d.exp-1.
	if d.exp-1 > maxExponent {
		return decimal{}, validationErr(MsgNumberOverflow)
	}
	if d.exp-1 < minExponent {
		return decimal{}, validationErr(MsgNumberUnderflow)
	}
	if len(d.digits) > maxDigits {
		return decimal{}, validationErr(MsgNumberPrecision)
	}
	return d, nil
}

// String renders the decimal in plain notation.
func (d decimal) String() string {
	if d.digits == "" {
		return "0"
	}
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	switch {
	case d.exp <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -d.exp))
		b.WriteString(d.digits)
	case d.exp >= len(d.digits):
		b.WriteString(d.digits)
		b.WriteString(strings.Repeat("0", d.exp-len(d.digits)))
	default:
		b.WriteString(d.digits[:d.exp])
		b.WriteByte('.')
		b.WriteString(d.digits[d.exp:])
	}
	return b.String()
}

func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	default:
		return 1
	}
}

// CompareNumbers orders two canonical (or any valid) number texts numerically.
func CompareNumbers(a, b string) int {
	da, _ := parseDecimal(a)
	db, _ := parseDecimal(b)
	return compareDecimal(da, db)
}

func compareDecimal(a, b decimal) int {
	sa, sb := a.sign(), b.sign()
	if sa != sb {
		if sa < sb {
			return -1
		}
		return 1
	}
	if sa == 0 {
		return 0
	}
	c := compareMagnitude(a, b)
	if sa < 0 {
		return -c
	}
	return c
}

func compareMagnitude(a, b decimal) int {
	if a.exp != b.exp {
		if a.exp < b.exp {
			return -1
		}
		return 1
	}
	return strings.Compare(a.digits, b.digits) // no trailing zeros: prefix is smaller
}

// toRat converts to an exact big.Rat-free representation: coefficient × 10^scale.
func (d decimal) toBig() (*big.Int, int) {
	if d.digits == "" {
		return new(big.Int), 0
	}
	c, _ := new(big.Int).SetString(d.digits, 10)
	if d.neg {
		c.Neg(c)
	}
	return c, d.exp - len(d.digits)
}

func fromBig(c *big.Int, scale int) (decimal, *Error) {
	if c.Sign() == 0 {
		return decimal{}, nil
	}
	s := c.String()
	neg := false
	if s[0] == '-' {
		neg = true
		s = s[1:]
	}
	trimmed := strings.TrimRight(s, "0")
	scale += len(s) - len(trimmed)
	txt := trimmed + "E" + strconv.Itoa(scale)
	if neg {
		txt = "-" + txt
	}
	return parseDecimal(txt)
}

// AddNumbers returns a+b (negate b with sub) as canonical text, refusing
// results outside the Number type's range or precision with the service's text.
func AddNumbers(a, b string, sub bool) (string, *Error) {
	da, err := parseDecimal(a)
	if err != nil {
		return "", err
	}
	db, err := parseDecimal(b)
	if err != nil {
		return "", err
	}
	ca, sa := da.toBig()
	cb, sb := db.toBig()
	if sub {
		cb.Neg(cb)
	}
	// Align to the smaller scale.
	for sa > sb {
		ca.Mul(ca, big.NewInt(10))
		sa--
	}
	for sb > sa {
		cb.Mul(cb, big.NewInt(10))
		sb--
	}
	r, err := fromBig(ca.Add(ca, cb), sa)
	if err != nil {
		return "", err
	}
	return r.String(), nil
}

// numberSize is the stored size of a number as the service counts it
// (measured by a conformance suite; the developer guide's "1 byte per two
// significant digits plus 1" is short by a byte when the digits straddle
// the decimal point): 1, plus half the integer part's digits and half the
// fraction's, each rounded up, over the value without leading and trailing
// zeros (an integer part's zeros count once a fraction follows), plus 1 when
// negative.
func numberSize(canonical string) int {
	d, _ := parseDecimal(canonical)
	if d.digits == "" {
		return 1 // zero, never negative
	}
	var intDigits, fracDigits int
	switch {
	case d.exp <= 0:
		fracDigits = len(d.digits)
	case d.exp >= len(d.digits):
		intDigits = len(d.digits)
	default: // straddles the point: the integer part's zeros count
		intDigits, fracDigits = d.exp, len(d.digits)-d.exp
	}
	n := 1 + (intDigits+1)/2 + (fracDigits+1)/2
	if d.neg {
		n++
	}
	return n
}
