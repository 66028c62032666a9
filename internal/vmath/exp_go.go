package vmath

import "math"

// The constants of the algorithm, shared by the Go and assembly kernels
// (the assembly reads them from avx2Tab, built from these).
const (
	log2e = 0x1.715476p+0  // float32(1/ln 2)
	magic = 0x1.8p+23      // 1.5·2^23: t = x·log2e + magic rounds to an integer
	ln2hi = 0x1.62e4p-1    // ln 2 to 15 bits: n·ln2hi is exact for |n| < 512
	ln2lo = 0x1.7f7d1cp-20 // float32(ln 2 − ln2hi)

	// e^r ≈ 1 + r + r²·(c2 + c3·r + c4·r² + c5·r³ + c6·r⁴) on |r| ≤ 0.3467
	// (a Chebyshev fit of (e^r − 1 − r)/r², relative error 1.1e-8).
	c2 = 0x1p-1
	c3 = 0x1.5554dcp-3
	c4 = 0x1.55551ap-5
	c5 = 0x1.120b9p-7
	c6 = 0x1.6d112cp-10

	expHi  = 0x1.62e42ep+6 // 88.72283: the largest x with e^x < MaxFloat32
	expMin = -120          // x is raised to this first: e^-120 rounds to +0
	// biasBits (64 in the exponent field) scales the results for x < 0 by
	// 2^64 when the bits of 2^n are added (so they stay normal down to
	// expMin), and by 2^-64 after: results below the smallest normal are
	// rounded once, to the subnormal.
	biasBits = 64 << 23
	oneBits  = 0x3f800000 // float32(1)
)

// goChunk is the block of the Go kernel: e^x of up to goChunk elements at
// a time goes to a stack buffer (expBiased, one tight loop), then a second
// loop finishes each element.
const goChunk = 64

// expBiased sets ys[i] = y with y·scale(a) = e^a, y normal, for a = xs[i]
// (or −|xs[i]| where neg is set), a ≤ expHi or NaN (then y is garbage):
// Cody–Waite reduction a = n·ln 2 + r with n = round(a/ln 2), |r| ≤ ln 2/2,
// the polynomial for e^r, and n added to the exponent bits, with 64 more
// for a < 0 (see biasBits).
func expBiased(ys, xs []float32, neg bool) {
	ys = ys[:len(xs)]
	for i, a := range xs {
		if neg {
			a = negAbs(a)
		}
		xc := a
		if xc < expMin {
			xc = expMin
		}
		t := xc*log2e + magic
		nf := t - magic
		r := xc - nf*ln2hi
		r -= nf * ln2lo
		q := (((c6*r+c5)*r+c4)*r+c3)*r + c2
		q = q*r + 1
		p := q*r + 1
		b := uint32(int32(math.Float32bits(a))>>31) & biasBits
		ys[i] = math.Float32frombits(math.Float32bits(p) + math.Float32bits(t)<<23 + b)
	}
}

// scale is 2^-64 for x < 0 (by the sign bit), else 1.
func scale(x float32) float32 {
	return math.Float32frombits(oneBits - uint32(int32(math.Float32bits(x))>>31)&biasBits)
}

// pick is neg for x < 0 (by the sign bit), else pos, without a branch
// (the signs of random inputs are unpredictable).
func pick(x, neg, pos float32) float32 {
	m := uint32(int32(math.Float32bits(x)) >> 31)
	return math.Float32frombits(math.Float32bits(neg)&m | math.Float32bits(pos)&^m)
}

// negAbs is −|x| (the sign bit set).
func negAbs(x float32) float32 {
	return math.Float32frombits(math.Float32bits(x) | 1<<31)
}

// expGo sets dst[i] = e^src[i]: y·scale (results below the smallest normal
// are subnormal, rounded once; x < −103.98 gives +0), and x + Inf where
// !(x ≤ expHi) (+Inf, or NaN for NaN).
func expGo(dst, src []float32) {
	var ys [goChunk]float32
	for len(src) > 0 {
		n := min(len(src), goChunk)
		xs, d := src[:n], dst[:n]
		expBiased(ys[:n], xs, false)
		for i, x := range xs {
			y := ys[i] * scale(x)
			if !(x <= expHi) {
				y = x + float32(math.Inf(1))
			}
			d[i] = y
		}
		src, dst = src[n:], dst[n:]
	}
}

// logisticGo sets dst[i] = 1/(1+e^-x) as 1/(1+e) for x ≥ 0 and e/(1+e)
// for x < 0 (by the sign bit), with e = e^-|x| ≤ 1: no overflow, no
// cancellation.
func logisticGo(dst, src []float32) {
	var ys [goChunk]float32
	for len(src) > 0 {
		n := min(len(src), goChunk)
		xs, d := src[:n], dst[:n]
		expBiased(ys[:n], xs, true)
		for i, x := range xs {
			e := ys[i] * 0x1p-64
			y := pick(x, e, 1) / (1 + e)
			if x != x {
				y = x
			}
			d[i] = y
		}
		src, dst = src[n:], dst[n:]
	}
}

// swigluGo sets dst[i] = (g[i]·logistic(g[i]))·u[i], a chunk at a time.
func swigluGo(dst, g, u []float32) {
	var sig [goChunk]float32
	for len(g) > 0 {
		n := min(len(g), goChunk)
		logisticGo(sig[:n], g[:n])
		for i, v := range g[:n] {
			dst[i] = float32(v*sig[i]) * u[i]
		}
		g, u, dst = g[n:], u[n:], dst[n:]
	}
}

// scaleMaskGo sets dst[i] = mask[i] ? src[i]·scale : fill.
func scaleMaskGo(dst, src []float32, mask []bool, scale, fill float32) {
	mask, dst = mask[:len(src)], dst[:len(src)]
	for i, v := range src {
		v *= scale
		if !mask[i] {
			v = fill
		}
		dst[i] = v
	}
}

// siluGo sets dst[i] = x·logistic(x): x/(1+e) for x ≥ 0; for x < 0, with
// e = y·2^-64, ((x·y)/(1+e))·2^-64, so that a result below the normals is
// rounded once and e's own underflow costs nothing. x is raised to expMin
// in the product (x·e^x rounds to −0 there; −Inf gives −0).
func siluGo(dst, src []float32) {
	var ys [goChunk]float32
	for len(src) > 0 {
		n := min(len(src), goChunk)
		xs, d := src[:n], dst[:n]
		expBiased(ys[:n], xs, true)
		for i, x := range xs {
			xc := x
			if xc < expMin {
				xc = expMin
			}
			y := pick(x, xc*ys[i], x) / (1 + ys[i]*0x1p-64) * scale(x)
			if x != x {
				y = x
			}
			d[i] = y
		}
		src, dst = src[n:], dst[n:]
	}
}

// expSubGo is expGo of src − m (each difference rounded to float32).
func expSubGo(dst, src []float32, m float32) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = x - m
	}
	expGo(dst, dst)
}

// divGo is the scalar quotient loop.
func divGo(dst, src []float32, s float32) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = x / s
	}
}
