package attr

import "strings"

// NumberKey encodes a number so that byte order equals numeric order, for
// stores whose key columns compare bytes (SQLite). The encoding is exact: it
// keeps all 38 digits.
//
// Layout: one class byte (0x01 negative, 0x02 zero, 0x03 positive); for
// non-zero numbers one byte of biased exponent then the digits as ASCII and a
// 0x00 terminator; for negatives every byte after the class byte is inverted so
// that larger magnitudes sort first.
func NumberKey(canonical string) []byte {
	d, _ := parseDecimal(canonical)
	if d.digits == "" {
		return []byte{0x02}
	}
	out := make([]byte, 0, len(d.digits)+3)
	class := byte(0x03)
	if d.neg {
		class = 0x01
	}
	out = append(out, class, byte(d.exp+129)) // exp ∈ [-129, 126] maps onto [0, 255]
	out = append(out, d.digits...)
	out = append(out, 0x00)
	if d.neg {
		for i := 1; i < len(out); i++ {
			out[i] = ^out[i]
		}
	}
	return out
}

// NumberFromKey decodes NumberKey's output back to canonical text.
func NumberFromKey(k []byte) string {
	if len(k) == 0 || k[0] == 0x02 {
		return "0"
	}
	body := append([]byte(nil), k[1:]...)
	neg := k[0] == 0x01
	if neg {
		for i := range body {
			body[i] = ^body[i]
		}
	}
	exp := int(body[0]) - 129
	digits := strings.TrimRight(string(body[1:]), "\x00")
	return decimal{neg: neg, digits: digits, exp: exp}.String()
}
