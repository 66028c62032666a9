package metrics

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// ParsePyFloat is Python's float(str): surrounding Python whitespace is
// ignored; a decimal literal with optional sign, exponent and single
// underscores between digits; any Unicode decimal digit counts as its ASCII
// value; "inf", "infinity" and "nan" in any case. Hex floats (which Go's
// ParseFloat takes) are rejected. Overflow gives ±Inf, as in Python.
func ParsePyFloat(s string) (float64, bool) {
	s = PyStrip(s)
	ascii, ok := pyFloatASCII(s)
	if !ok {
		return 0, false
	}
	body := strings.TrimLeft(ascii, "+-")
	switch strings.ToLower(body) {
	case "inf", "infinity", "nan":
		v, _ := strconv.ParseFloat(ascii, 64)
		return v, true
	}
	if !validDecimal(body) {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(ascii, "_", ""), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return v, true
}

// pyFloatASCII maps Unicode decimal digits to ASCII and rejects other
// non-ASCII characters.
func pyFloatASCII(s string) (string, bool) {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 128:
			b.WriteRune(r)
		case unicode.Is(unicode.Nd, r):
			b.WriteByte(byte('0' + digitValue(r)))
		default:
			return "", false
		}
	}
	return b.String(), true
}

// digitValue returns the value of a Unicode Nd digit: Nd digits come in
// complete 0..9 sets laid out contiguously, so the offset from the start of
// the contiguous Nd run, modulo 10, is the value.
func digitValue(r rune) int {
	z := r
	for z > 0 && unicode.Is(unicode.Nd, z-1) {
		z--
	}
	return int(r-z) % 10
}

// validDecimal checks Python's float grammar (without sign): digitpart
// ["." [digitpart]] | "." digitpart, then optional exponent; underscores only
// single and between digits.
func validDecimal(s string) bool {
	i := 0
	digits := func() int { // digitpart: digit (["_"] digit)*
		start := i
		for i < len(s) {
			if s[i] >= '0' && s[i] <= '9' {
				i++
			} else if s[i] == '_' && i > start && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				i++
			} else {
				break
			}
		}
		return i - start
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// PyFloatRepr is Python's repr(float): the shortest round-tripping digits,
// fixed notation with at least one decimal ("5.0") when the decimal exponent
// is in [-4, 16), else scientific with a signed two-digit-minimum exponent
// ("1e+16", "1.5e-05"); "inf", "-inf", "nan".
func PyFloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	if exp >= -4 && exp < 16 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.ContainsAny(s, ".") {
			s += ".0"
		}
		return s
	}
	sign := "+"
	if exp < 0 {
		sign, exp = "-", -exp
	}
	es := strconv.Itoa(exp)
	if len(es) < 2 {
		es = "0" + es
	}
	return mant + "e" + sign + es
}
