package mathverify

// IsEquiv is lm-eval's is_equiv for minerva_math's exact_match (and the
// Open LLM Leaderboard's math_hard): two normalised answers are equal when
// they are the same non-empty string, or when sympy's parse_latex parses
// both and sympy.simplify(a - b) == 0. Anything parse_latex raises on, a
// relation (whose subtraction raises TypeError), an infinite or undefined
// difference is not equal.
//
// simplify(a - b) == 0 is decided by value: answers without symbols
// compare exactly while their arithmetic stays rational, in sympy's Float
// arithmetic (float64) where a decimal is involved (0.1 equals 1/10, 0.1 +
// 0.2 does not equal 0.3, a decimal never equals an irrational such as
// \sqrt{2}), and within 1e-12 otherwise; answers with symbols (\pi and e
// are symbols to parse_latex) by evaluation at sample points, negative and
// positive, and at a complex point, as sympy's symbols are complex.
// Definite integrals and derivatives are evaluated numerically, sums and
// products over short integer ranges expanded (simplify evaluates them);
// limits and indefinite integrals compare by their tokens only. Where
// sympy's simplify cannot
// prove an identity that holds, this says equal; the corpus test
// (TestIsEquivCorpus) measures how often that and the parser's other
// approximations matter.
//
// IsEquiv is safe for concurrent use.
func IsEquiv(a, b string) bool {
	if a != "" && a == b {
		return true
	}
	x, ok1 := sympyParseLatex(a)
	if !ok1 || x == errRelation || hasWrt(x) {
		return false
	}
	y, ok2 := sympyParseLatex(b)
	if !ok2 || y == errRelation || hasWrt(y) {
		return false
	}
	return simplifiesToZero(sympyAuto(x), sympyAuto(y))
}

func hasWrt(e *Expr) bool {
	if isWrt(e) {
		return true
	}
	for _, a := range e.Args {
		if hasWrt(a) {
			return true
		}
	}
	return false
}

// simplifiesToZero stands for sympy.simplify(x - y) == 0.
func simplifiesToZero(x, y *Expr) bool {
	if eq, ok := loneFloatEq(x, y); ok {
		return eq
	}
	syms := append(x.freeSymbols(), y.freeSymbols()...)
	if len(syms) > 0 {
		eq := func(u, v num) bool { return valuesEqual(u, v) || closeEnough(u, v) }
		return sampledEqual(x, y, syms, eq) && complexSampleEqual(x, y, syms, eq)
	}
	u, ok1 := floatValue(x)
	v, ok2 := floatValue(y)
	if !ok1 || !ok2 {
		return false
	}
	if u.exact != nil && v.exact != nil && u.inf == 0 && v.inf == 0 {
		return u.exact.Cmp(v.exact) == 0 // beyond float64's range too
	}
	if !u.finite() || !v.finite() {
		return false
	}
	switch {
	case u.fl && v.fl:
		return u.c == v.c
	case u.fl || v.fl:
		// a Float against an exact value: a rational becomes a Float, an
		// irrational stays apart (sympy leaves Float - sqrt(2) as it is)
		ex := v
		if v.fl {
			ex = u
		}
		if ex.exact == nil {
			return false
		}
		return u.c == v.c
	}
	return valuesEqual(u, v)
}

// loneFloatEq compares a lone Float with a Float or a rational at the
// Float's own precision (sympy converts the rational to a Float of that
// precision: 0.3333333333333333333 is not 1/3); ok is false for any other
// pair.
func loneFloatEq(x, y *Expr) (eq, ok bool) {
	if y.K == KFloat {
		x, y = y, x
	}
	if x.K != KFloat {
		return false, false
	}
	if y.K == KFloat {
		return x.Rat.Cmp(y.Rat) == 0, true
	}
	if y.hasKind(KFloat) || len(y.freeSymbols()) > 0 {
		return false, false
	}
	v, ok := constValue(y)
	if !ok || v.exact == nil {
		return false, false
	}
	return floatFromRat(v.exact, x.Prec).Rat.Cmp(x.Rat) == 0, true
}

// complexSamples are non-real values for the symbols: sympy's symbols are
// complex, so |x| is not \sqrt{x^2}.
var complexSamples = []complex128{complex(0.7071067812, 0.4142135624), complex(-0.5772156649, 1.2599210499),
	complex(1.3247179572, -0.8660254038)}

// complexSampleEqual: x and y agree at a complex point wherever both are
// defined there.
func complexSampleEqual(x, y *Expr, syms []*Expr, eq func(u, v num) bool) bool {
	vars := env{}
	for i, s := range syms {
		vars[symKey(s)] = complexSamples[i%len(complexSamples)] * complex(1+float64(i/len(complexSamples)), 0)
	}
	u, ok1 := evalNum(x, vars)
	v, ok2 := evalNum(y, vars)
	if !ok1 || !ok2 || !u.finite() || !v.finite() {
		return true
	}
	return eq(u, v)
}
