package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAVX512MatchesAVX2: on an AVX-512 CPU the 16-lane loops give the AVX2
// loops' bits, lane for lane, for inputs over the whole float32 range,
// special values and every length's tail (so results do not depend on
// which of the two a machine has).
func TestAVX512MatchesAVX2(t *testing.T) {
	if archKernel == nil || archKernel.narrower == nil {
		t.Skip("no AVX-512 on this CPU")
	}
	wide, narrow := archKernel, archKernel.narrower
	rng := rand.New(rand.NewPCG(13, 14))
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), 88.72, -87.3, -103.9, 104, 1e-40, -1e-40, math.MaxFloat32, -math.MaxFloat32}
	draw := func() float32 {
		switch rng.IntN(4) {
		case 0:
			return special[rng.IntN(len(special))]
		case 1:
			return math.Float32frombits(rng.Uint32()) // any bit pattern
		}
		return float32(-110 + 220*rng.Float64())
	}
	check := func(what string, n int, got, want []float32) {
		t.Helper()
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
				t.Fatalf("%s, n=%d, element %d: avx512 %v, avx2 %v", what, n, i, got[i], want[i])
			}
		}
	}
	for rep := range 40 {
		n := rep*7 + rng.IntN(7) // 0 … ~280: whole vectors and tails of both widths
		x, u := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], u[i] = draw(), float32(rng.NormFloat64()*3)
		}
		m := draw()
		a, b := make([]float32, n), make([]float32, n)
		wide.exp(a, x)
		narrow.exp(b, x)
		check("Exp", n, a, b)
		wide.logistic(a, x)
		narrow.logistic(b, x)
		check("Logistic", n, a, b)
		wide.expSub(a, x, m)
		narrow.expSub(b, x, m)
		check("ExpShifted", n, a, b)
		wide.swiglu(a, x, u)
		narrow.swiglu(b, x, u)
		check("SwiGLU", n, a, b)
	}
}
