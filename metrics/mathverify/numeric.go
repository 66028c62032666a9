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
	if a.isMatrix() && b.isMatrix() {
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
			return constEqual(a, b, false)
		}
	}
	if a.isMatrix() || b.isMatrix() {
		return false
	}
	return constEqual(a, b, true)
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
	v, ok := constValue(e)
	if !ok || v.inf != 0 {
		return rounded{}, false
	}
	if v.exact == nil {
		if math.Abs(imag(v.c)) > 1e-12*math.Max(1, cmplx.Abs(v.c)) || math.IsNaN(real(v.c)) || math.IsInf(real(v.c), 0) {
			return rounded{}, false
		}
		r := new(big.Rat).SetFloat64(real(v.c))
		if r == nil {
			return rounded{}, false
		}
		return rounded{v: roundDecimal(r, p)}, true
	}
	isInt := v.exact.IsInt() && evaluatesToInteger(e)
	return rounded{v: roundDecimal(v.exact, p), integer: isInt}, true
}

// evaluatesToInteger: doit() gives a sympy Integer (not a Float).
func evaluatesToInteger(e *Expr) bool { return !e.hasKind(KFloat) }

// constEqual compares two constant expressions by value: exactly when
// both are rational, else within floating-point error (sympy's evalf with
// chop, or doit()'s canonical forms). With symbols it is false (the
// symbolic comparison decides).
func constEqual(a, b *Expr, chop bool) bool {
	x, ok1 := constValue(a)
	y, ok2 := constValue(b)
	if !ok1 || !ok2 {
		return false
	}
	return valuesEqual(x, y, a.hasKind(KFloat) || b.hasKind(KFloat))
}

func valuesEqual(x, y num, floats bool) bool {
	if x.inf != 0 || y.inf != 0 {
		return x.inf == y.inf
	}
	if !x.finite() || !y.finite() {
		return false
	}
	if x.exact != nil && y.exact != nil && !floats {
		return x.exact.Cmp(y.exact) == 0
	}
	tol := 1e-12
	if floats && x.exact != nil && y.exact != nil {
		tol = 4e-16
	}
	scale := math.Max(1, math.Max(cmplx.Abs(x.c), cmplx.Abs(y.c)))
	if x.exact != nil && y.exact != nil {
		d := new(big.Rat).Sub(x.exact, y.exact)
		f, _ := d.Float64()
		return math.Abs(f) <= tol*scale
	}
	return cmplx.Abs(x.c-y.c) <= tol*scale
}

// symbolicEq is sympy_symbolic_eq (simplify(a - b).is_zero): constants by
// value; expressions with symbols by evaluating both at sample points.
func symbolicEq(a, b *Expr) bool {
	if a.isMatrix() || b.isMatrix() {
		if !a.isMatrix() || !b.isMatrix() || a.Rows != b.Rows || a.Cols != b.Cols {
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
		return constEqual(a, b, false)
	}
	return sampledEqual(a, b, syms, func(x, y num) bool { return valuesEqual(x, y, false) || closeEnough(x, y) })
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
	case KInt, KRat, KFloat, KSym, KConst, KAdd, KMul, KPow, KFunc, KUndef, KUneval:
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
	{0.6180339887, -1.3247179572, 2.2360679775, 0.4142135624, -0.7320508076, 1.7724538509, 3.1415926536, -2.7182818285},
	{-0.8660254038, 1.4142135624, -2.3025850930, 0.5772156649, 2.6457513111, -1.6487212707, 0.3010299957, 1.2020569032},
	{1.9318516526, -0.2679491924, 0.9189385332, -1.1283791671, 0.6931471806, 2.4142135624, -0.5176380902, 1.0986122887},
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
