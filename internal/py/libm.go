package py

import "math"

// Exp and Log are Python's math.exp and math.log as CPython computes them
// on Linux: glibc's libm (≥ 2.28), whose exp and log are not guaranteed
// correctly rounded but are within 0.52 ulp, so they round to nearest on
// all but a few inputs in 10⁴. Go's math.Exp and math.Log are within 1 ulp
// and differ from glibc's on about 11% and 1.4% of inputs; these are
// correctly rounded (double-double arithmetic, ~2⁻⁹⁴ relative error before
// the final rounding), so they differ from glibc only where glibc itself
// misrounds: by one ulp, on about 3·10⁻⁴ of exp's inputs and 4·10⁻⁵ of
// log's (measured against mpmath on 600,000 inputs).

// dd is an unevaluated sum hi + lo with |lo| ≤ ulp(hi)/2.
type dd struct{ hi, lo float64 }

// ln2DD is ln 2 to about 2⁻¹⁰⁹.
var ln2DD = dd{0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56}

func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func ddAdd(x, y dd) dd {
	s, e := twoSum(x.hi, y.hi)
	t, f := twoSum(x.lo, y.lo)
	r := quickTwoSum(s, e+t)
	return quickTwoSum(r.hi, r.lo+f)
}

func ddMul(x, y dd) dd {
	p := x.hi * y.hi
	e := math.FMA(x.hi, y.hi, -p)
	return quickTwoSum(p, e+(x.hi*y.lo+x.lo*y.hi))
}

func ddMulF(x dd, y float64) dd {
	p := x.hi * y
	e := math.FMA(x.hi, y, -p)
	return quickTwoSum(p, e+x.lo*y)
}

// ddDivF is x/d for a small integer d.
func ddDivF(x dd, d float64) dd {
	q1 := x.hi / d
	p := q1 * d
	e := math.FMA(q1, d, -p)
	q2 := ((x.hi - p) - e + x.lo) / d
	return quickTwoSum(q1, q2)
}

// expDD is exp(x) = m·2^k for finite |x| < 746, m in double-double.
func expDD(x float64) (m dd, k int) {
	kf := math.Round(x / ln2DD.hi)
	r := ddAdd(dd{x, 0}, ddMulF(ln2DD, -kf)) // |r| ≤ ln2/2 (+ rounding)
	r = dd{r.hi / 1024, r.lo / 1024}         // exact: |r| < 3.4e-4
	// Taylor to r¹¹/11! (< 2⁻¹²⁰), Horner from the top.
	s := dd{1, 0}
	for n := 11; n >= 1; n-- {
		s = ddAdd(dd{1, 0}, ddDivF(ddMul(s, r), float64(n)))
	}
	for range 10 {
		s = ddMul(s, s)
	}
	return s, int(kf)
}

// Exp is math.exp(x), correctly rounded for results in the normal range;
// results below 2⁻¹⁰²² (x < -708.39) are Go's math.Exp (within an ulp of
// the subnormal grid).
func Exp(x float64) float64 {
	if math.IsNaN(x) || x > 709.79 || x < -708.39 {
		return math.Exp(x)
	}
	m, k := expDD(x)
	return math.Ldexp(m.hi, k)
}

// Log is math.log(x) for x > 0, correctly rounded: Go's math.Log (within an
// ulp) corrected by one Newton step, y + (x·exp(-y) − 1) − (x·exp(-y) −
// 1)²/2, in double-double. Zero, negative, infinite and NaN inputs are
// math.Log's (math.log raises ValueError on x ≤ 0; callers check first).
func Log(x float64) float64 {
	y := math.Log(x)
	if !(x > 0) || math.IsInf(x, 1) || y == 0 {
		return y
	}
	if x < 0x1p-1022 {
		// Go's math.Log is far off on subnormals (amd64); any start
		// within ~1e-10 serves the Newton step.
		y = math.Log(x*0x1p64) - 64*math.Ln2
	}
	m, k := expDD(-y)
	// x·exp(-y) = (x·2^k)·m, x·2^k ≈ 1 exact (also for subnormal x).
	t := ddAdd(ddMulF(m, math.Ldexp(x, k)), dd{-1, 0})
	c := ddAdd(t, dd{-t.hi * t.hi / 2, 0})
	return ddAdd(dd{y, 0}, c).hi
}
