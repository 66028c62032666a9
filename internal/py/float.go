package py

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// ParseFloat is Python's float(str): surrounding Python whitespace is
// ignored; a decimal literal with optional sign, exponent and single
// underscores between digits; any Unicode decimal digit counts as its ASCII
// value; "inf", "infinity" and "nan" in any case. Hex floats (which Go's
// ParseFloat takes) are rejected. Overflow gives ±Inf, as in Python.
func ParseFloat(s string) (float64, bool) {
	s = Strip(s)
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

// ToFloat converts a Go or JSON-decoded numeric value (float, int,
// json.Number, bool as 0/1) to float64; anything else, such as lm-eval's
// "N/A" stderr strings, gives ok=false.
func ToFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// Repr returns Python's repr(f) (also str(f)): the shortest digits that
// round-trip, fixed notation for 1e-4 <= |f| < 1e16 with at least one
// decimal ("1.0"), otherwise exponent notation ("1e-05", "1.5e+16").
func Repr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // "d.ddde±XX"
	mant, expStr, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expStr)
	decpt := exp + 1
	if decpt <= -4 || decpt > 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if exp < 0 {
			es, exp = "-", -exp
		}
		return fmt.Sprintf("%s%se%s%02d", sign, m, es, exp)
	}
	switch {
	case decpt <= 0:
		return sign + "0." + strings.Repeat("0", -decpt) + digits
	case decpt >= len(digits):
		return sign + digits + strings.Repeat("0", decpt-len(digits)) + ".0"
	}
	return sign + digits[:decpt] + "." + digits[decpt:]
}
