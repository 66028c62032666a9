package mathverify

import (
	"math"
	"math/big"
	"math/cmplx"
)

// numericEq is sympy_numeric_eq: matrices elementwise; a Float (or Float
// percentage) against anything by rounding both to FloatRounding decimals;
// two Integers (percentages of Integers) by value; another Number by
// evaluated equality; everything else by (a - b).evalf(chop=True) == 0.
func numericEq(a, b *Expr, o VerifyOptions) bool {
	if hasMatrix(a) && hasMatrix(b) {
		var ok bool
		if a, ok = matrixValue(a); !ok {
			return false
		}
		if b, ok = matrixValue(b); !ok {
			return false
		}
		if a.Rows != b.Rows || a.Cols != b.Cols {
			return false
		}
		for i := range a.Args {
			if !numericEq(a.Args[i], b.Args[i], o) {
				return false
			}
		}
		return true
	}
	if atomicOrPct(a, isNumberKind) || atomicOrPct(b, isNumberKind) {
		switch {
		case atomicOrPct(a, isFloatKind) || atomicOrPct(b, isFloatKind):
			ra, okA := roundNumber(a, o.FloatRounding)
			rb, okB := roundNumber(b, o.FloatRounding)
			return okA && okB && ra.integer == rb.integer && ra.v.Cmp(rb.v) == 0
		case atomicOrPct(a, isIntKind) && atomicOrPct(b, isIntKind):
			return pctVal(a).Rat.Cmp(pctVal(b).Rat) == 0
		default:
			return doitEqual(a, b)
		}
	}
	if hasMatrix(a) || hasMatrix(b) {
		return false
	}
	return evalfZero(a, b)
}

func isNumberKind(e *Expr) bool { return e.isNumber() }
func isFloatKind(e *Expr) bool  { return e.K == KFloat }
func isIntKind(e *Expr) bool    { return e.K == KInt }

// atomicOrPct is is_atomic_or_pct_atomic: e is of the kind, or is
// Mul(x, UnevaluatedExpr(1/100)) with x of the kind.
func atomicOrPct(e *Expr, kind func(*Expr) bool) bool {
	if kind(e) {
		return true
	}
	return isPct(e) && kind(e.Args[0])
}

func isPct(e *Expr) bool {
	return e.K == KMul && len(e.Args) == 2 && e.Args[1].K == KUneval && e.Args[1].Args[0].K == KRat &&
		e.Args[1].Args[0].Rat.Cmp(big.NewRat(1, 100)) == 0
}

func pctVal(e *Expr) *Expr {
	if isPct(e) {
		return e.Args[0]
	}
	return e
}

type rounded struct {
	v       *big.Rat
	integer bool // sympy returns an Integer (round of an Integer), else a Float
}

// roundNumber is doit() then Number.round(p); ok=false where sympy raises
// (a symbolic or non-real value).
func roundNumber(e *Expr, p int) (rounded, bool) {
	v, ok := floatValue(e)
	if !ok || v.inf != 0 || !v.finite() {
		return rounded{}, false
	}
	if v.exact != nil {
		if v.exact.IsInt() {
			return rounded{v: roundDecimal(v.exact, p), integer: true}, true
		}
		return rounded{v: roundSympy(v.exact, p, 0)}, true
	}
	if math.Abs(imag(v.c)) > 1e-12*math.Max(1, cmplx.Abs(v.c)) {
		return rounded{}, false
	}
	r := new(big.Rat).SetFloat64(real(v.c))
	dps := 0
	if v.fl {
		dps = 15
	}
	return rounded{v: roundSympy(r, p, dps)}, true
}

// roundSympy is Expr.round(p) on a non-integer: the value to dps
// significant digits (15 for a Float; else enough for p decimals) with
// sympy's tie rule, then rounded half to even at p decimals.
func roundSympy(v *big.Rat, p, dps int) *big.Rat {
	if v.Sign() == 0 {
		return new(big.Rat)
	}
	mag := magnitude(v)
	if dps == 0 {
		dps = 15
		if mag+p > dps {
			dps = mag + p
		}
	}
	shift := dps - mag
	xf := new(big.Rat).Mul(v, pow10Rat(shift))
	xi := new(big.Int).Quo(xf.Num(), xf.Denom()) // truncated
	sign := int64(1)
	if v.Sign() < 0 {
		sign = -1
	}
	frac := new(big.Rat).Abs(new(big.Rat).Sub(xf, new(big.Rat).SetInt(xi)))
	d, _ := new(big.Float).SetPrec(7).SetRat(frac).Float64()
	switch {
	case d > 0.5:
		xi.Add(xi, big.NewInt(sign))
	case d == 0.5:
		if xi.Bit(0) == 1 {
			xi.Add(xi, big.NewInt(sign))
		} else {
			xi.Sub(xi, big.NewInt(sign))
		}
	}
	ip := p - shift
	xr := new(big.Rat).SetInt(xi)
	if ip < 0 {
		xr = roundDecimal(xr, ip)
	}
	return xr.Quo(xr, pow10Rat(shift))
}

func pow10Rat(n int) *big.Rat {
	t := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(n))), nil)
	if n >= 0 {
		return new(big.Rat).SetInt(t)
	}
	return new(big.Rat).SetFrac(big.NewInt(1), t)
}

// magnitude is sympy's _mag: the i with 0.1 <= |v|/10^i < 1.
func magnitude(v *big.Rat) int {
	a := new(big.Rat).Abs(v)
	f, _ := a.Float64()
	m := int(math.Ceil(math.Log10(f)))
	for a.Cmp(pow10Rat(m)) >= 0 {
		m++
	}
	for m > -400 && a.Cmp(pow10Rat(m-1)) < 0 {
		m--
	}
	return m
}

// doitEqual is doit(a) == doit(b): evaluated values, where a Float never
// equals a Rational or Integer (sympy 1.14).
func doitEqual(a, b *Expr) bool {
	x, ok1 := floatValue(a)
	y, ok2 := floatValue(b)
	if !ok1 || !ok2 || x.fl != y.fl {
		return false
	}
	if x.fl {
		return x.c == y.c
	}
	return valuesEqual(x, y)
}

// evalfZero is (a - b).evalf(chop=True) == 0: the difference, with Floats
// as their exact binary values, below 2^-50 in absolute value.
func evalfZero(a, b *Expr) bool {
	x, ok1 := constValue(a)
	y, ok2 := constValue(b)
	if !ok1 || !ok2 {
		return false
	}
	if x.exact != nil && y.exact != nil {
		d, _ := new(big.Rat).Sub(x.exact, y.exact).Float64()
		return math.Abs(d) < math.Ldexp(1, -50)
	}
	return valuesEqual(x, y)
}

// valuesEqual: exact values equal exactly, approximations within 1e-12.
func valuesEqual(x, y num) bool {
	if x.inf != 0 || y.inf != 0 {
		return x.inf == y.inf
	}
	if !x.finite() || !y.finite() {
		return false
	}
	if x.exact != nil && y.exact != nil {
		return x.exact.Cmp(y.exact) == 0
	}
	scale := math.Max(1, math.Max(cmplx.Abs(x.c), cmplx.Abs(y.c)))
	return cmplx.Abs(x.c-y.c) <= 1e-12*scale
}

// symbolicEq is sympy_symbolic_eq (simplify(a - b).is_zero): constants by
// value; expressions with symbols by evaluating both at sample points.
func symbolicEq(a, b *Expr) bool {
	if hasMatrix(a) || hasMatrix(b) {
		var ok1, ok2 bool
		a, ok1 = matrixValue(a)
		b, ok2 = matrixValue(b)
		if !ok1 || !ok2 || a.Rows != b.Rows || a.Cols != b.Cols {
			return false
		}
		for i := range a.Args {
			if !symbolicEq(a.Args[i], b.Args[i]) {
				return false
			}
		}
		return true
	}
	if !evaluable(a) || !evaluable(b) {
		return false
	}
	syms := append(a.freeSymbols(), b.freeSymbols()...)
	if len(syms) == 0 {
		x, ok1 := floatValue(a)
		y, ok2 := floatValue(b)
		if !ok1 || !ok2 {
			return false
		}
		if x.fl || y.fl {
			return x.inf == 0 && y.inf == 0 && x.c-y.c == 0
		}
		return valuesEqual(x, y)
	}
	return sampledEqual(a, b, syms, func(x, y num) bool { return valuesEqual(x, y) || closeEnough(x, y) })
}

func closeEnough(x, y num) bool {
	if !x.finite() || !y.finite() {
		return false
	}
	scale := math.Max(1, math.Max(cmplx.Abs(x.c), cmplx.Abs(y.c)))
	return cmplx.Abs(x.c-y.c) <= 1e-9*scale
}

// evaluable: only arithmetic, known functions and symbols.
func evaluable(e *Expr) bool {
	switch e.K {
	case KInt, KRat, KFloat, KSym, KConst, KAdd, KMul, KPow, KFunc, KUndef, KUneval, KOpaque:
	default:
		return false
	}
	for _, a := range e.Args {
		if !evaluable(a) {
			return false
		}
	}
	return true
}

var samplePoints = [][]float64{
	{0.6180339887, 1.3247179572, 2.2360679775, 0.4142135624, 0.7320508076, 1.7724538509, 3.1415926536, 2.7182818285},
	{-0.8660254038, -1.4142135624, -2.3025850930, -0.5772156649, -2.6457513111, -1.6487212707, -0.3010299957, -1.2020569032},
	{1.9318516526, -0.2679491924, 0.9189385332, -1.1283791671, 0.6931471806, -2.4142135624, 0.5176380902, -1.0986122887},
	{-1.2599210499, 0.8414709848, -0.5403023059, 1.5707963268, -0.3183098862, 2.0943951024, -1.4426950409, 0.4342944819},
}

// sampledEqual evaluates a and b at sample values of syms; equal when every
// sample where both are finite agrees and at least one does.
func sampledEqual(a, b *Expr, syms []*Expr, eq func(x, y num) bool) bool {
	valid := 0
	for _, pts := range samplePoints {
		vars := env{}
		for i, s := range syms {
			vars[symKey(s)] = complex(pts[i%len(pts)]*(1+float64(i/len(pts))), 0)
		}
		x, ok1 := evalNum(a, vars)
		y, ok2 := evalNum(b, vars)
		if !ok1 || !ok2 || !x.finite() || !y.finite() {
			continue
		}
		if !eq(x, y) {
			return false
		}
		valid++
	}
	return valid > 0
}

func cmplxAbs(c complex128) float64 { return cmplx.Abs(c) }
func imagAbs(c complex128) float64  { return math.Abs(imag(c)) }
func realAbs(c complex128) float64  { return math.Abs(real(c)) }
func maxf(a, b float64) float64     { return math.Max(a, b) }
