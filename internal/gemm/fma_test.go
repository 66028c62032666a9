package gemm

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactFMA32 is a*b+c rounded once to f32 (big.Float arithmetic is exact
// at this precision; Float32 rounds to nearest even, subnormals included).
func exactFMA32(a, b, c float32) float32 {
	x := new(big.Float).SetPrec(400).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetFloat64(float64(c)))
	if x.Sign() == 0 {
		return float32(math.FMA(float64(a), float64(b), float64(c))) // signed zero rules
	}
	f, _ := x.Float32()
	return f
}

// fmaCases are inputs where rounding a*b+c to f64 first lands on an f32
// midpoint (double rounding), subnormal results and cancellations.
func fmaCases() [][3]float32 {
	// a·b = 2^-24·(1-2^-46): c + a·b rounds in f64 to the midpoint
	// c + 2^-24, then to even in f32, one ulp above the correct c.
	up := math.Nextafter32(1, 2) // 1+2^-23, odd
	a := float32(1 - math.Ldexp(1, -23))
	b := float32(math.Ldexp(1+math.Ldexp(1, -23), -24))
	cases := [][3]float32{
		{a, b, up}, {-a, b, -up}, {a, -b, -up}, {a, b, 1}, {a * 4, b / 4, up},
		{1e-20, 1e-20, 0}, {1e-30, 1e-15, -1e-45}, {3, 1.0 / 3, -1},
		{1e20, 1e20, 0}, {-2, 3, 6}, {0, 5, -0}, {-0, 5, 0}, {1e-45, 0.5, 0},
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		var v [3]float32
		for i := range v {
			v[i] = float32(math.Ldexp(rng.Float64()*2-1, rng.IntN(120)-60))
		}
		cases = append(cases, v)
		// Near-cancellation: c ≈ -a*b.
		cases = append(cases, [3]float32{v[0], v[1], -float32(float64(v[0])*float64(v[1])) * (1 + float32(rng.IntN(5)-2)*1e-7)})
	}
	return cases
}

// TestFMA32 checks the Go f32 FMA against exact arithmetic, and on amd64
// against the hardware through each assembly kernel (one k step continuing
// from c).
func TestFMA32(t *testing.T) {
	for _, v := range fmaCases() {
		got, want := fma32(v[0], v[1], v[2]), exactFMA32(v[0], v[1], v[2])
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("fma32(%g, %g, %g) = %g, want %g", v[0], v[1], v[2], got, want)
		}
	}
	for _, kn := range available() {
		if kn == goKernel {
			continue
		}
		a := make([]float32, kn.mr)
		b := make([]float32, kn.nr)
		c := make([]float32, kn.mr*kn.nr)
		for _, v := range fmaCases() {
			a[0], b[0], c[0] = v[0], v[1], v[2]
			kn.run(1, a, b, c, kn.nr, true, hint{})
			if want := fma32(v[0], v[1], v[2]); math.Float32bits(c[0]) != math.Float32bits(want) {
				t.Fatalf("%s: fma(%g, %g, %g) = %g, fma32 %g", kn.name, v[0], v[1], v[2], c[0], want)
			}
		}
	}
}
