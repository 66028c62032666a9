package gemm

import "math"

// The pure-Go micro-kernel: 4 rows × 8 columns, each element one fma32
// chain, so its results equal the assembly kernels' bit for bit.
const goMR, goNR = 4, 8

var goKernel = &kernel{name: "go", mr: goMR, nr: goNR, kc: 256, mc: 128, nc: 2048, run: kernGo,
	bf16:  &bf16Kernels{full: kernGoBF16(goMR), few: kernGoBF16(2), fewRows: 2, one: kernGoBF16(1)},
	rowsB: &rowsBKernel{cols: goNR, run: rowsBGo}}

// kernGo is the Go micro-kernel (see microKernel): a [k][4], b [k][8],
// one row of the tile at a time.
func kernGo(k int, a, b, c []float32, ldc int, load bool, _ hint) {
	a, b = a[:k*goMR], b[:k*goNR]
	for r := 0; r < goMR; r++ {
		var acc [goNR]float32
		if load {
			copy(acc[:], c[r*ldc:r*ldc+goNR])
		}
		rowGo(&acc, a[r:], b, k)
		copy(c[r*ldc:r*ldc+goNR], acc[:])
	}
}

// rowGo continues eight chains over k steps: acc[j] = fma32(a[p*4],
// b[p*8+j], acc[j]) for p = 0..k-1, with the chains in registers (as f64
// holding f32 values) and fma32's fast path written out.
func rowGo(acc *[goNR]float32, a, b []float32, k int) {
	c0, c1, c2, c3 := float64(acc[0]), float64(acc[1]), float64(acc[2]), float64(acc[3])
	c4, c5, c6, c7 := float64(acc[4]), float64(acc[5]), float64(acc[6]), float64(acc[7])
	for p := 0; p < k; p++ {
		av := float64(a[p*goMR])
		bp := (*[goNR]float32)(b[p*goNR:])
		s0 := math.FMA(av, float64(bp[0]), c0)
		s1 := math.FMA(av, float64(bp[1]), c1)
		s2 := math.FMA(av, float64(bp[2]), c2)
		s3 := math.FMA(av, float64(bp[3]), c3)
		s4 := math.FMA(av, float64(bp[4]), c4)
		s5 := math.FMA(av, float64(bp[5]), c5)
		s6 := math.FMA(av, float64(bp[6]), c6)
		s7 := math.FMA(av, float64(bp[7]), c7)
		if slowFMA32(s0) || slowFMA32(s1) || slowFMA32(s2) || slowFMA32(s3) ||
			slowFMA32(s4) || slowFMA32(s5) || slowFMA32(s6) || slowFMA32(s7) {
			c := [goNR]float32{float32(c0), float32(c1), float32(c2), float32(c3),
				float32(c4), float32(c5), float32(c6), float32(c7)}
			for j := range c {
				c[j] = fma32(float32(av), bp[j], c[j])
			}
			s0, s1, s2, s3 = float64(c[0]), float64(c[1]), float64(c[2]), float64(c[3])
			s4, s5, s6, s7 = float64(c[4]), float64(c[5]), float64(c[6]), float64(c[7])
		}
		c0, c1, c2, c3 = float64(float32(s0)), float64(float32(s1)), float64(float32(s2)), float64(float32(s3))
		c4, c5, c6, c7 = float64(float32(s4)), float64(float32(s5)), float64(float32(s6)), float64(float32(s7))
	}
	*acc = [goNR]float32{float32(c0), float32(c1), float32(c2), float32(c3),
		float32(c4), float32(c5), float32(c6), float32(c7)}
}

// fma32 is the single-rounding f32 fused multiply-add a*b+c that
// VFMADD231PS computes. The f64 FMA is exact up to one rounding (a*b is
// exact in f64), and rounding that to f32 is the correctly rounded f32 FMA
// except where slowFMA32 says: those rare cases take fma32Slow.
func fma32(a, b, c float32) float32 {
	s := math.FMA(float64(a), float64(b), float64(c))
	if slowFMA32(s) {
		return fma32Slow(a, b, c)
	}
	return float32(s)
}

// slowFMA32 reports whether s, an f64 FMA of f32 operands, may round to f32
// differently from the exact result: s is exactly an f32 rounding midpoint
// (low 29 bits 1<<28, for an f32-normal exponent), or nonzero and below
// 2^-126 (f32 subnormal, whose midpoints have other bit patterns).
func slowFMA32(s float64) bool {
	u := math.Float64bits(s)
	return u&(1<<29-1) == 1<<28 || (u<<1)-1 < (1023-126)<<53-1
}

// fma32Slow rounds a*b+c to odd in f64 (TwoSum gives the exact error of the
// f64 sum) and then to nearest f32: with 53 ≥ 24+2 bits, round-to-odd then
// round-to-nearest is the correctly rounded result.
func fma32Slow(a, b, c float32) float32 {
	p := float64(float64(a) * float64(b)) // exact
	z := float64(c)
	s := float64(p + z)
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return float32(s)
	}
	bb := float64(s - p)
	e := float64(p-float64(s-bb)) + float64(z-bb) // p + z = s + e exactly
	if u := math.Float64bits(s); e != 0 && u&1 == 0 {
		if (e > 0) == (s > 0) {
			u++ // away from zero, toward the exact value
		} else {
			u--
		}
		s = math.Float64frombits(u)
	}
	return float32(s)
}
