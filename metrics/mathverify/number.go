package mathverify

import (
	"math"
	"math/big"
	"strings"
)

// Numbers as sympy.Number(text) makes them: Integer for digits, Float for
// decimals (precision max(15, significant digits) decimal digits, the value
// rounded to that many bits), Rational from fractions.

// dpsToPrec is mpmath's dps_to_prec.
func dpsToPrec(dps int) uint {
	p := int(math.Round(float64(dps+1) * 3.3219280948873626))
	if p < 1 {
		p = 1
	}
	return uint(p)
}

// floatE parses a decimal (or exponent) literal as sympy.Float(text).
func floatE(text string) (*Expr, bool) {
	digits := 0
	started := false
	mant := text
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		mant = text[:i]
	}
	for _, c := range mant {
		if c >= '1' && c <= '9' {
			started = true
		}
		if started && c >= '0' && c <= '9' {
			digits++
		}
	}
	dps := 15
	if digits > dps {
		dps = digits
	}
	prec := dpsToPrec(dps)
	f, _, err := big.ParseFloat(text, 10, prec, big.ToNearestEven)
	if err != nil {
		return nil, false
	}
	r, _ := f.Rat(nil)
	if r == nil {
		return nil, false
	}
	return &Expr{K: KFloat, Rat: r, Prec: prec}, true
}

// floatFromRat is Float(r) at 15 digits.
func floatFromRat(r *big.Rat, prec uint) *Expr {
	f := new(big.Float).SetPrec(prec).SetMode(big.ToNearestEven).SetRat(r)
	v, _ := f.Rat(nil)
	return &Expr{K: KFloat, Rat: v, Prec: prec}
}

// sympyNumber is sympy.Number(text) for the texts the converters pass:
// digits (Integer) or a decimal / exponent literal (Float).
func sympyNumber(text string) *Expr {
	allDigits := text != ""
	for i := 0; i < len(text); i++ {
		if !isDigit(text[i]) {
			allDigits = false
		}
	}
	if allDigits {
		r, _ := new(big.Rat).SetString(text)
		return &Expr{K: KInt, Rat: r}
	}
	if e, ok := floatE(text); ok {
		return e
	}
	return errE()
}

// parseNumber is _Latex2Sympy.parse_number.
func parseNumber(text string) *Expr {
	text = strings.ReplaceAll(text, ",", "")
	if isDigits(text) {
		for len(text) > 1 && text[0] == '0' {
			text = text[1:]
		}
	}
	return sympyNumber(text)
}

// convertNumber is latex2sympy2's convert_number (a "1,234" answer).
func convertNumber(s string) *Expr {
	s = strings.TrimSpace(s)
	if strings.Contains(s, ",") && strings.HasPrefix(s, "0") {
		s = strings.ReplaceAll(s, ",", ".")
	}
	s = strings.NewReplacer(",", "", " ", "").Replace(s)
	s = strings.TrimLeft(s, "0")
	if s == "" {
		s = "0"
	}
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	e := sympyNumber(s)
	if neg && e.isNumber() {
		e = negNumber(e)
	}
	return e
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func negNumber(e *Expr) *Expr {
	out := *e
	out.Rat = new(big.Rat).Neg(e.Rat)
	return &out
}

// roundDecimal is sympy's Number.round(p) as a rational: the value
// rounded half to even at p decimals (Floats carry their own digits).
func roundDecimal(v *big.Rat, p int) *big.Rat {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(p))), nil)
	x := new(big.Rat).Set(v)
	if p >= 0 {
		x.Mul(x, new(big.Rat).SetInt(scale))
	} else {
		x.Quo(x, new(big.Rat).SetInt(scale))
	}
	n := roundHalfEven(x)
	out := new(big.Rat).SetInt(n)
	if p >= 0 {
		return out.Quo(out, new(big.Rat).SetInt(scale))
	}
	return out.Mul(out, new(big.Rat).SetInt(scale))
}

func roundHalfEven(x *big.Rat) *big.Int {
	num, den := x.Num(), x.Denom()
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	// q truncates toward zero; r has num's sign.
	twice := new(big.Int).Mul(new(big.Int).Abs(r), big.NewInt(2))
	c := twice.Cmp(den)
	if c > 0 || (c == 0 && q.Bit(0) == 1) {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
