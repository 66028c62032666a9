package py

import (
	"strconv"
	"strings"
)

// Decimal is a Python decimal.Decimal as its constructor reads a str:
// finite (±Coef·10^Exp, Coef without leading zeros), infinite or NaN. The
// sign of an infinity or NaN is not kept.
type Decimal struct {
	Neg      bool
	Coef     string // ASCII digits, "0" for zero
	Exp      int
	Inf, NaN bool
}

// ParseDecimal is decimal.Decimal(s): surrounding whitespace stripped and
// every underscore removed (as CPython's decimal does), then an optional
// sign and Python's float grammar (any Unicode decimal digit), or inf,
// infinity, nan in any case.
func ParseDecimal(s string) (Decimal, bool) {
	ascii, ok := pyFloatASCII(strings.ReplaceAll(Strip(s), "_", ""))
	if !ok {
		return Decimal{}, false
	}
	var d Decimal
	body := ascii
	if body != "" && (body[0] == '+' || body[0] == '-') {
		d.Neg, body = body[0] == '-', body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		return Decimal{Inf: true}, true
	case "nan":
		return Decimal{NaN: true}, true
	}
	if !validDecimal(body) {
		return Decimal{}, false
	}
	mant, exp := body, 0
	if i := strings.IndexAny(body, "eE"); i >= 0 {
		e, err := strconv.Atoi(body[i+1:])
		if err != nil {
			return Decimal{}, false // an exponent beyond int: not a table value
		}
		mant, exp = body[:i], e
	}
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		exp -= len(mant) - i - 1
		mant = mant[:i] + mant[i+1:]
	}
	d.Coef, d.Exp = trimZeros(mant), exp
	return d, true
}

func trimZeros(digits string) string {
	if t := strings.TrimLeft(digits, "0"); t != "" {
		return t
	}
	return "0"
}

// Finite reports whether d is neither infinite nor NaN.
func (d Decimal) Finite() bool { return !d.Inf && !d.NaN }

// IsInteger reports whether finite d has an integral value.
func (d Decimal) IsInteger() bool {
	if d.Exp >= 0 || d.Coef == "0" {
		return true
	}
	frac := -d.Exp // Coef has no leading zeros: below 1 unless longer
	return frac < len(d.Coef) && strings.Trim(d.Coef[len(d.Coef)-frac:], "0") == ""
}

// Trunc is str(int(d)) for finite d: truncated towards zero, "-" for a
// negative non-zero result.
func (d Decimal) Trunc() string {
	var digits string
	switch {
	case d.Exp >= 0:
		digits = d.Coef + strings.Repeat("0", d.Exp)
	case -d.Exp >= len(d.Coef):
		digits = "0"
	default:
		digits = d.Coef[:len(d.Coef)+d.Exp]
	}
	digits = trimZeros(digits)
	if d.Neg && digits != "0" {
		return "-" + digits
	}
	return digits
}

// Fixed is format(d, ".nf"): rounded half to even to n decimals, the sign
// kept (also for a result of zero); "NaN" and "Infinity" otherwise.
func (d Decimal) Fixed(n int) string {
	switch {
	case d.NaN:
		return "NaN"
	case d.Inf:
		return "Infinity"
	}
	digits, exp := d.Coef, d.Exp
	if exp > -n { // pad: exactly n decimals
		digits += strings.Repeat("0", exp+n)
	} else if drop := -n - exp; drop > 0 {
		digits = roundHalfEven(digits, drop)
	}
	if len(digits) <= n {
		digits = strings.Repeat("0", n-len(digits)+1) + digits
	}
	out := digits
	if n > 0 {
		out = digits[:len(digits)-n] + "." + digits[len(digits)-n:]
	}
	if d.Neg {
		return "-" + out
	}
	return out
}

// roundHalfEven drops the last drop digits of an unsigned coefficient,
// rounding half to even.
func roundHalfEven(digits string, drop int) string {
	if drop > len(digits) {
		return "0" // below half a unit of the last kept digit
	}
	keep, rest := digits[:len(digits)-drop], digits[len(digits)-drop:]
	if keep == "" {
		keep = "0"
	}
	half := "5" + strings.Repeat("0", len(rest)-1)
	up := rest > half || rest == half && (keep[len(keep)-1]-'0')%2 == 1
	if !up {
		return keep
	}
	b := []byte(keep)
	i := len(b) - 1
	for ; i >= 0 && b[i] == '9'; i-- {
		b[i] = '0'
	}
	if i < 0 {
		return "1" + string(b)
	}
	b[i]++
	return string(b)
}

// Float is float(d), correctly rounded.
func (d Decimal) Float() float64 {
	switch {
	case d.NaN:
		f, _ := strconv.ParseFloat("nan", 64)
		return f
	case d.Inf:
		f, _ := strconv.ParseFloat("inf", 64)
		return f
	}
	s := d.Coef + "e" + strconv.Itoa(d.Exp)
	if d.Neg {
		s = "-" + s
	}
	f, _ := strconv.ParseFloat(s, 64) // ErrRange gives ±Inf or 0, as Python
	return f
}
