package vmath

import "math"

// Exp64: e^x over float64, the algorithm of the float32 Exp at double
// precision (doc.go), every step a rounded or fused operation that the
// Go and assembly kernels both perform (math.FMA where the assembly
// fuses), so the two give the same bits.
const (
	log2e64 = 0x1.71547652b82fep+0 // 1/ln 2
	magic64 = 0x1.8p+52            // 1.5·2^52: t = x·log2e + magic rounds to an integer
	ln2hi64 = 0x1.62e42feep-1      // ln 2 to 32 bits: n·ln2hi is exact for |n| < 2^21
	ln2lo64 = 0x1.a39ef35793c76p-33

	expHi64  = 0x1.62e42fefa39efp+9 // 709.78: the largest x with e^x < MaxFloat64
	expMin64 = -750                 // x is raised to this first: e^-750 rounds to +0
	// bias64Bits (64 in the exponent field) keeps 2^n normal down to
	// expMin64 for x < 0; the result is then scaled by 2^-64, so results
	// below the smallest normal are rounded once, to the subnormal.
	bias64Bits = 64 << 52
	one64Bits  = 0x3ff0000000000000
)

// expPoly64 are the Taylor coefficients 1/k! of e^r, k = 13 down to 2: on
// |r| ≤ ln 2/2 the first term left out, r^14/14!, is 4e-18 of e^r (a
// twentieth of an ulp).
var expPoly64 = [12]float64{
	1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
	1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720,
	1.0 / 120, 1.0 / 24, 1.0 / 6, 1.0 / 2,
}

// exp64Go sets dst[i] = e^src[i]: Cody–Waite reduction x = n·ln 2 + r,
// the polynomial for e^r, n added to the exponent bits (64 more for
// x < 0, then ·2^-64), and x + Inf where !(x ≤ expHi64) (+Inf, or NaN
// for NaN). x < −745.13 gives +0.
func exp64Go(dst, src []float64) {
	dst = dst[:len(src)]
	for i, x := range src {
		xc := float64(expMin64) // VMAXPD: x when x > expMin64, else (NaN too) expMin64
		if x > expMin64 {
			xc = x
		}
		t := math.FMA(xc, log2e64, magic64)
		nf := t - magic64
		r := math.FMA(nf, -ln2hi64, xc)
		r = math.FMA(nf, -ln2lo64, r)
		p := expPoly64[0]
		for _, c := range expPoly64[1:] {
			p = math.FMA(p, r, c)
		}
		p = math.FMA(p, r, 1)
		p = math.FMA(p, r, 1)
		b := math.Float64bits(x) >> 63 << 58 // bias64Bits where x < 0
		y := math.Float64frombits(math.Float64bits(p) + math.Float64bits(t)<<52 + b)
		y *= math.Float64frombits(one64Bits - b)
		if !(x <= expHi64) {
			y = x + math.Inf(1)
		}
		dst[i] = y
	}
}
